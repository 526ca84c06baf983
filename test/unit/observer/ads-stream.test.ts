/**
 * One observer ADS stream against a fake call: a response waits for every subscribed resource's
 * first read (SotW: a name left out means deleted), absent resources are left out, a burst of
 * changes is one response, stale requests are ignored, a NACK is reported and not answered with a
 * resend, and a closed stream gives its subscriptions back.
 */
import { EventEmitter } from 'node:events';
import { ObserverAdsStream, type AdsCall } from '../../../lib/observer/ads-stream';
import { ResponseEncoder } from '../../../lib/observer/response-encoder';
import type { Subscriptions } from '../../../lib/observer/subscriptions';
import { indis } from '../../../lib/xds';
import { loadXdsProtos, type DiscoveryRequest, type DiscoveryResponse } from '../../../lib/xds/envoy-protos';
import { streamFixture, turns, type StreamFixture } from '../../helpers/observer-stream-fixture';

const decodeDiscoveryResponse = (bytes: Buffer): DiscoveryResponse => loadXdsProtos().adsService.StreamAggregatedResources!.responseDeserialize(bytes) as DiscoveryResponse;

const NODE = indis.D2_NODE_TYPE_URL;
const A = '/d2/clusters/a';
const B = '/d2/clusters/b';

/** A fake duplex call: requests in by `request`, responses out in `written`. */
class FakeCall extends EventEmitter {
  readonly written: DiscoveryResponse[] = [];
  /** The bytes as written. */
  readonly bytes: Buffer[] = [];
  /** What `write` answers: false plays a client that does not read (grpc-js buffering). */
  accepting = true;
  write(response: DiscoveryResponse | Buffer): boolean {
    // The observer writes encoded responses: read them back as a client would.
    if (Buffer.isBuffer(response)) this.bytes.push(response);
    this.written.push(Buffer.isBuffer(response) ? decodeDiscoveryResponse(response) : response);
    return this.accepting;
  }
  end(): void {}
  request(req: Partial<DiscoveryRequest> & Pick<DiscoveryRequest, 'resource_names'>): void {
    this.emit('data', { type_url: NODE, version_info: '', response_nonce: '', ...req });
  }
}

let fixture: StreamFixture;
let subscriptions: Subscriptions;
let call: FakeCall;
let nacks: string[];
let encoder: ResponseEncoder;
let encodes: number;

function write(path: string, mzxid: bigint, v: string): void {
  fixture.write(path, mzxid, { v });
}

function names(response: DiscoveryResponse | undefined): string[] {
  return (response?.resources ?? []).map((any) => {
    const d = indis.d2NodeType.decode(any, undefined);
    return d.ok ? `${d.value.name}@${String(d.value.data.properties && (d.value.data.properties as { v: string }).v)}` : 'undecodable';
  });
}

beforeEach(() => {
  fixture = streamFixture();
  ({ subscriptions, nacks } = fixture);
  call = new FakeCall();
  encodes = 0;
  encoder = new ResponseEncoder(() => void encodes++);
  new ObserverAdsStream(call as unknown as AdsCall, { id: 1, cache: fixture.cache, subscriptions, encoder, hooks: fixture.hooks });
});

afterEach(() => subscriptions.close());

describe('an observer ADS stream', () => {
  it('holds its response until every subscribed resource was read, and leaves absent ones out', async () => {
    // Act
    call.request({ resource_names: [A, B] });
    await turns();
    const whilePending = call.written.length;
    write(A, 5n, '1');
    await turns();
    const whileOnePending = call.written.length;
    fixture.remove(B);
    await turns();

    // Assess
    expect([whilePending, whileOnePending]).toEqual([0, 0]);
    expect(call.written.map(names)).toEqual([[`${A}@1`]]);
  });

  it('sends a burst of changes as one response carrying the latest state', async () => {
    // Prepare
    write(A, 1n, '1');
    call.request({ resource_names: [A] });
    await turns();
    call.request({ resource_names: [A], response_nonce: call.written[0]!.nonce, version_info: call.written[0]!.version_info });

    // Act
    write(A, 2n, '2');
    write(A, 3n, '3');
    await turns();

    // Assess
    expect(call.written.map(names)).toEqual([[`${A}@1`], [`${A}@3`]]);
    expect(new Set(call.written.map((r) => r.nonce)).size).toBe(2);
  });

  it('ignores a request with a stale nonce', async () => {
    // Prepare
    write(A, 1n, '1');
    write(B, 1n, '1');
    call.request({ resource_names: [A] });
    await turns();
    write(A, 2n, '2');
    await turns();

    // Act: names changed, but answering the first response: a newer request follows
    call.request({ resource_names: [A, B], response_nonce: call.written[0]!.nonce });
    await turns();

    // Assess
    expect(call.written).toHaveLength(2);
    expect(subscriptions.subscriptions).toBe(1);
  });

  it('reports a NACK and does not resend the rejected state', async () => {
    // Prepare
    write(A, 1n, '1');
    call.request({ resource_names: [A] });
    await turns();

    // Act
    call.request({ resource_names: [A], response_nonce: call.written[0]!.nonce, error_detail: { code: 3, message: 'bad' } });
    await turns();

    // Assess
    expect(nacks).toEqual(['bad']);
    expect(call.written).toHaveLength(1);
  });

  it('gives its subscriptions back when the call ends', async () => {
    // Prepare
    call.request({ resource_names: [A, B] });
    await turns();

    // Act
    call.emit('cancelled');

    // Assess
    expect(subscriptions.subscriptions).toBe(0);
    expect(fixture.closed()).toBe(1);
  });

  it('holds responses for a slow client until drain, then sends only the latest state', async () => {
    // Prepare
    write(A, 1n, '1');
    call.accepting = false;
    call.request({ resource_names: [A] });
    await turns();

    // Act
    write(A, 2n, '2');
    await turns();
    write(A, 3n, '3');
    await turns();
    const whileBlocked = call.written.length;
    call.accepting = true;
    call.emit('drain');
    await turns();

    // Assess
    expect(whileBlocked).toBe(1);
    expect(call.written.map(names)).toEqual([[`${A}@1`], [`${A}@3`]]);
  });

  it('encodes a change once for every stream with the same subscription, with nonces growing on each stream', async () => {
    // Prepare: two more streams, one subscribed as the first, one to more names
    const same = new FakeCall();
    const other = new FakeCall();
    for (const [id, c] of [[2, same], [3, other]] as const) new ObserverAdsStream(c as unknown as AdsCall, { id, cache: fixture.cache, subscriptions, encoder, hooks: fixture.hooks });
    write(A, 1n, '1');
    write(B, 1n, '1');
    call.request({ resource_names: [A] });
    same.request({ resource_names: [A] });
    other.request({ resource_names: [A, B] });
    await turns();
    const initial = encodes;

    // Act: a change to A reaches all three; then the first stream adds B and drops it again
    write(A, 2n, '2');
    await turns();
    const afterChange = encodes;
    for (const c of [call, same, other]) c.request({ resource_names: c === other ? [A, B] : [A], response_nonce: c.written.at(-1)!.nonce });
    call.request({ resource_names: [A, B], response_nonce: call.written.at(-1)!.nonce });
    await turns();
    call.request({ resource_names: [A], response_nonce: call.written.at(-1)!.nonce });
    await turns();

    // Assess
    expect([initial, afterChange - initial]).toEqual([2, 2]);
    expect(same.bytes[1]).toBe(call.bytes[1]);
    expect(same.written.map(names)).toEqual([[`${A}@1`], [`${A}@2`]]);
    expect(other.written.map(names)).toEqual([[`${A}@1`, `${B}@1`], [`${A}@2`, `${B}@1`]]);
    const nonces = call.written.map((r) => Number(r.nonce));
    expect(call.written.map(names)).toEqual([[`${A}@1`], [`${A}@2`], [`${A}@2`, `${B}@1`], [`${A}@2`]]);
    expect(nonces).toEqual([...nonces].sort((x, y) => x - y));
    expect(new Set(nonces).size).toBe(4);
    expect(call.written.every((r) => r.version_info === r.nonce)).toBe(true);
  });
});
