/**
 * One observer delta ADS stream against a fake call: each name goes out once its first read is in
 * (no waiting for the others), a burst of changes is one response with the latest version, a name
 * subscribed again is sent again, an ACK or NACK of a nonce the stream never sent changes nothing, a
 * slow client gets only the latest versions after drain, and a closed stream gives its
 * subscriptions back.
 */
import { EventEmitter } from 'node:events';
import { DeltaAdsStream, type DeltaAdsCall } from '../../../lib/observer/delta-ads-stream';
import type { Subscriptions } from '../../../lib/observer/subscriptions';
import { indis } from '../../../lib/xds';
import { loadXdsProtos, type DeltaDiscoveryRequest, type DeltaDiscoveryResponse } from '../../../lib/xds/envoy-protos';
import { streamFixture, turns, type StreamFixture } from '../../helpers/observer-stream-fixture';

const NODE = indis.D2_NODE_TYPE_URL;
const A = '/d2/clusters/a';
const B = '/d2/clusters/b';

const decode = (bytes: Buffer): DeltaDiscoveryResponse => loadXdsProtos().adsService.DeltaAggregatedResources!.responseDeserialize(bytes) as DeltaDiscoveryResponse;

/** A fake duplex call: requests in by `request`, responses out in `written` (decoded as a client would). */
class FakeCall extends EventEmitter {
  readonly written: DeltaDiscoveryResponse[] = [];
  /** What `write` answers: false plays a client that does not read (grpc-js buffering). */
  accepting = true;
  write(bytes: Buffer): boolean {
    this.written.push(decode(bytes));
    return this.accepting;
  }
  end(): void {}
  request(req: Partial<DeltaDiscoveryRequest>): void {
    this.emit('data', { type_url: NODE, resource_names_subscribe: [], resource_names_unsubscribe: [], initial_resource_versions: {}, response_nonce: '', ...req });
  }
}

let fixture: StreamFixture;
let subscriptions: Subscriptions;
let call: FakeCall;
let nacks: string[];

function write(path: string, mzxid: bigint): void {
  fixture.write(path, mzxid);
}

/** `name@version` of each resource, then `-name` of each removed one. */
function content(r: DeltaDiscoveryResponse | undefined): string[] {
  return [...(r?.resources ?? []).map((x) => `${x.name}@${x.version}`), ...(r?.removed_resources ?? []).map((n) => `-${n}`)];
}

beforeEach(() => {
  fixture = streamFixture();
  ({ subscriptions, nacks } = fixture);
  call = new FakeCall();
  new DeltaAdsStream(call as unknown as DeltaAdsCall, { id: 1, cache: fixture.cache, subscriptions, hooks: fixture.hooks });
});

afterEach(() => subscriptions.close());

describe('an observer delta ADS stream', () => {
  it('sends each name once its first read is in, without waiting for the others', async () => {
    // Act
    call.request({ resource_names_subscribe: [A, B] });
    await turns();
    const whilePending = call.written.length;
    write(A, 5n);
    await turns();
    fixture.remove(B);
    await turns();

    // Assess
    expect(whilePending).toBe(0);
    expect(call.written.map(content)).toEqual([[`${A}@5`], [`-${B}`]]);
  });

  it('sends a burst of changes as one response with the latest version', async () => {
    // Prepare
    write(A, 1n);
    call.request({ resource_names_subscribe: [A] });
    await turns();
    call.request({ response_nonce: call.written[0]!.nonce });

    // Act
    write(A, 2n);
    write(A, 3n);
    await turns();

    // Assess
    expect(call.written.map(content)).toEqual([[`${A}@1`], [`${A}@3`]]);
  });

  it('sends a name again when it is subscribed again, but not on an ACK alone', async () => {
    // Prepare
    write(A, 1n);
    call.request({ resource_names_subscribe: [A] });
    await turns();

    // Act
    call.request({ response_nonce: call.written[0]!.nonce });
    await turns();
    const afterAck = call.written.length;
    call.request({ resource_names_subscribe: [A] });
    await turns();

    // Assess
    expect(afterAck).toBe(1);
    expect(call.written.map(content)).toEqual([[`${A}@1`], [`${A}@1`]]);
  });

  it('answers a reconnecting client whose versions are all current with one empty response, once its reads are in', async () => {
    // Act: the client holds A@1 and B@1; B's first read comes in after the request, then nothing changes
    write(A, 1n);
    call.request({ resource_names_subscribe: [A, B], initial_resource_versions: { [A]: '1', [B]: '1' } });
    await turns();
    const whilePending = call.written.length;
    write(B, 1n);
    await turns();
    call.request({ response_nonce: call.written[0]?.nonce ?? '' });
    await turns();

    // Assess: one response, with neither resources nor removals; its ACK is not answered again
    expect(whilePending).toBe(0);
    expect(call.written.map(content)).toEqual([[]]);
  });

  it('ignores the NACK of a nonce it never sent, and reports one it did once', async () => {
    // Prepare
    write(A, 1n);
    call.request({ resource_names_subscribe: [A] });
    await turns();
    const nonce = call.written[0]!.nonce;

    // Act
    call.request({ response_nonce: '999', error_detail: { code: 3, message: 'unknown nonce' } });
    call.request({ response_nonce: nonce, error_detail: { code: 3, message: 'rejected' } });
    call.request({ response_nonce: nonce, error_detail: { code: 3, message: 'rejected again' } });
    await turns();

    // Assess
    expect(nacks).toEqual(['rejected']);
    expect(call.written).toHaveLength(1);
  });

  it('holds responses for a slow client until drain, then sends only the latest versions', async () => {
    // Prepare
    write(A, 1n);
    write(B, 1n);
    call.accepting = false;
    call.request({ resource_names_subscribe: [A, B] });
    await turns();

    // Act
    write(A, 2n);
    write(A, 3n);
    write(B, 2n);
    await turns();
    const whileBlocked = call.written.length;
    call.accepting = true;
    call.emit('drain');
    await turns();

    // Assess
    expect(whileBlocked).toBe(1);
    expect(call.written.map(content)).toEqual([[`${A}@1`, `${B}@1`], [`${A}@3`, `${B}@2`]]);
  });

  it('gives its subscriptions back when the call ends, and sends nothing after', async () => {
    // Prepare
    write(A, 1n);
    call.request({ resource_names_subscribe: [A] });
    await turns();

    // Act
    call.emit('cancelled');
    call.emit('close');
    write(A, 2n);
    await turns();

    // Assess
    expect(subscriptions.subscriptions).toBe(0);
    expect(fixture.closed()).toBe(1);
    expect(call.written).toHaveLength(1);
  });
});
