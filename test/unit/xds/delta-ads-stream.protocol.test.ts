/**
 * DeltaAdsStream wire protocol (envoy xds_protocol.rst "Incremental xDS"): the first request of a
 * call (node, every subscribed name, `initial_resource_versions` after a restart), subscription
 * deltas, ACK/NACK by nonce, `removed_resources`, coalescing (fake timers).
 */
import type { AnyResourceType } from '../../../lib/xds/resource-state';
import { CDS_TYPE_URL, LDS_TYPE_URL, fakeAny, fakeType } from '../../helpers/xds-fakes';
import { tick } from './ads-stream-setup';
import { deltaStreamFixture } from './delta-ads-stream-setup';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('DeltaAdsStream requests', () => {
  it('sends node only in the first request of a call, each type subscribing its whole name set with no versions yet', () => {
    // Prepare
    const { stream, transport } = deltaStreamFixture();

    // Act
    stream.start();
    stream.subscribe(LDS_TYPE_URL, 'l1');
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(CDS_TYPE_URL, 'c2');
    tick();

    // Assess
    expect(transport.current.requests).toEqual([
      { node: { id: 'node-1' }, type_url: LDS_TYPE_URL, resource_names_subscribe: ['l1'], resource_names_unsubscribe: [], initial_resource_versions: {}, response_nonce: '' },
      { type_url: CDS_TYPE_URL, resource_names_subscribe: ['c1', 'c2'], resource_names_unsubscribe: [], initial_resource_versions: {}, response_nonce: '' },
    ]);
    stream.close();
  });

  it('sends later subscription changes as deltas: only the names added and the names removed', () => {
    // Prepare
    const { stream, transport } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(CDS_TYPE_URL, 'c2');
    tick();

    // Act
    stream.subscribe(CDS_TYPE_URL, 'c3');
    stream.unsubscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(CDS_TYPE_URL, 'c4');
    stream.unsubscribe(CDS_TYPE_URL, 'c4'); // never sent: nothing to say about it
    tick();

    // Assess
    expect(transport.current.requests).toHaveLength(2);
    expect(transport.current.requests[1]).toEqual({
      type_url: CDS_TYPE_URL,
      resource_names_subscribe: ['c3'],
      resource_names_unsubscribe: ['c1'],
      initial_resource_versions: {},
      response_nonce: '',
    });
    stream.close();
  });

  it('writes one request per type per tick however many names change', () => {
    // Prepare
    const { stream, transport } = deltaStreamFixture();
    stream.start();

    // Act
    for (let i = 0; i < 1000; i++) stream.subscribe(CDS_TYPE_URL, `c${i}`);
    stream.unsubscribe(CDS_TYPE_URL, 'c0');
    tick();

    // Assess
    expect(transport.current.requests).toHaveLength(1);
    expect(transport.current.requests[0]?.resource_names_subscribe).toHaveLength(999);
    stream.close();
  });

  it('sends nothing for a type whose only name went before its first request', () => {
    // Prepare
    const { stream, transport } = deltaStreamFixture();
    stream.start();

    // Act
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(LDS_TYPE_URL, 'l1');
    stream.unsubscribe(LDS_TYPE_URL, 'l1');
    tick();

    // Assess
    expect(transport.current.requests.map((r) => r.type_url)).toEqual([CDS_TYPE_URL]);
    stream.close();
  });
});

describe('DeltaAdsStream ACK/NACK', () => {
  it('ACKs a response by its nonce alone, once, and reports each resource with its own version', () => {
    // Prepare
    const { stream, transport, responses } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();

    // Act
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', system_version_info: 's1', resources: [['c1', 'v7', 'x']] });
    tick();
    tick();

    // Assess
    expect(transport.current.requests).toHaveLength(2);
    expect(transport.current.requests[1]).toEqual({ type_url: CDS_TYPE_URL, resource_names_subscribe: [], resource_names_unsubscribe: [], initial_resource_versions: {}, response_nonce: 'n1' });
    expect(responses).toEqual([
      {
        typeUrl: CDS_TYPE_URL,
        version: 's1',
        protocol: 'delta',
        updates: [{ name: 'c1', value: 'x', raw: fakeAny(CDS_TYPE_URL, 'c1', 'x'), version: 'v7' }],
        errors: [],
        names: new Set(['c1']),
        removed: [],
      },
    ]);
    stream.close();
  });

  it('folds an ACK and the subscription changes of the same tick into one request', () => {
    // Prepare
    const { stream, transport } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();

    // Act
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['c1', 'v1', 1]] });
    stream.subscribe(CDS_TYPE_URL, 'c2');
    tick();

    // Assess
    expect(transport.current.requests).toHaveLength(2);
    expect(transport.current.requests[1]).toMatchObject({ response_nonce: 'n1', resource_names_subscribe: ['c2'], resource_names_unsubscribe: [] });
    stream.close();
  });

  it('NACKs with the nonce and error_detail, and still reports the valid resources', () => {
    // Prepare
    const { stream, transport, responses } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'good');
    stream.subscribe(CDS_TYPE_URL, 'bad');
    tick();

    // Act
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['good', 'v1', 1], ['bad', 'v1', 0, 'no lb policy']] });
    tick();

    // Assess
    const nack = transport.current.requests.at(-1);
    expect(nack).toMatchObject({ type_url: CDS_TYPE_URL, response_nonce: 'n1', resource_names_subscribe: [], resource_names_unsubscribe: [] });
    expect(nack?.error_detail?.code).toBe(14);
    expect(nack?.error_detail?.message).toMatch(/^xDS response validation errors: \[bad: no lb policy\]$/);
    expect(responses[0]?.updates).toEqual([{ name: 'good', value: 1, raw: fakeAny(CDS_TYPE_URL, 'good', 1), version: 'v1' }]);
    expect(responses[0]?.errors.map((e) => [e.name, e.version])).toEqual([['bad', 'v1']]);
    stream.close();
  });

  it('ignores resources that were not subscribed and NACKs duplicate names', () => {
    // Prepare
    const { stream, transport, responses } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();

    // Act
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['other', 'v1', 0], ['c1', 'v1', 1], ['c1', 'v2', 2]] });
    tick();

    // Assess
    expect(responses[0]?.updates.map((u) => u.name)).toEqual(['c1']);
    expect(responses[0]?.errors[0]?.error.message).toContain('duplicate');
    expect(transport.current.requests.at(-1)?.error_detail).toBeDefined();
    stream.close();
  });

  it('neither ACKs nor NACKs a response of an unknown type', () => {
    // Prepare
    const { stream, transport, responses } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    const before = transport.current.requests.length;

    // Act
    transport.current.respond({ type_url: 'type.googleapis.com/unknown.Type', nonce: 'n1' });
    tick();

    // Assess
    expect(transport.current.requests).toHaveLength(before);
    expect(responses).toEqual([]);
    stream.close();
  });
});

describe('DeltaAdsStream removed_resources', () => {
  it('reports the subscribed names the server removed, ignores others, and ACKs', () => {
    // Prepare
    const { stream, transport, responses } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'nosuch');
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();

    // Act
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['c1', 'v1', 1]], removed: ['nosuch', 'never-subscribed'] });
    tick();

    // Assess
    expect(responses[0]).toMatchObject({ protocol: 'delta', removed: ['nosuch'] });
    expect(stream.watchState(CDS_TYPE_URL, 'nosuch')).toBe('received');
    expect(transport.current.requests.at(-1)).toEqual({ type_url: CDS_TYPE_URL, resource_names_subscribe: [], resource_names_unsubscribe: [], initial_resource_versions: {}, response_nonce: 'n1' });
    stream.close();
  });
});

describe('DeltaAdsStream restarts', () => {
  it('resubscribes every name on a new call with the versions of the resources it holds, and the node again', () => {
    // Prepare: c1 accepted at v1, then c1 changed to v2; c2 removed; c3 rejected; c4 never answered
    const { stream, transport } = deltaStreamFixture();
    stream.start();
    for (const name of ['c1', 'c2', 'c3', 'c4']) stream.subscribe(CDS_TYPE_URL, name);
    tick();
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['c1', 'v1', 1], ['c2', 'v1', 1]] });
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n2', resources: [['c1', 'v2', 2], ['c3', 'v1', 0, 'bad']], removed: ['c2'] });
    tick();

    // Act: the call fails after a response (immediate retry)
    transport.current.close(new Error('reset'));
    jest.advanceTimersByTime(1);

    // Assess
    expect(transport.calls).toHaveLength(2);
    expect(transport.current.requests).toEqual([
      {
        node: { id: 'node-1' },
        type_url: CDS_TYPE_URL,
        resource_names_subscribe: ['c1', 'c2', 'c3', 'c4'],
        resource_names_unsubscribe: [],
        initial_resource_versions: { c1: 'v2' },
        response_nonce: '',
      },
    ]);
    stream.close();
  });

  it('leaves out of initial_resource_versions a name the client now holds from another server in another version', () => {
    // Prepare: c1, c2 and c3 accepted at v1; the client then took c1 at v0 and c3 (as not existing) from another server, c2 at v1
    const { stream, transport } = deltaStreamFixture();
    stream.start();
    for (const name of ['c1', 'c2', 'c3']) stream.subscribe(CDS_TYPE_URL, name);
    tick();
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['c1', 'v1', 1], ['c2', 'v1', 1], ['c3', 'v1', 1]] });
    tick();
    stream.heldFromOtherServer(CDS_TYPE_URL, 'c1', 'v0');
    stream.heldFromOtherServer(CDS_TYPE_URL, 'c2', 'v1');
    stream.heldFromOtherServer(CDS_TYPE_URL, 'c3', undefined);

    // Act
    transport.current.close(new Error('reset'));
    jest.advanceTimersByTime(1);

    // Assess: only c2's version is still one the client holds
    expect(transport.current.requests[0]).toMatchObject({ resource_names_subscribe: ['c1', 'c2', 'c3'], initial_resource_versions: { c2: 'v1' } });
    stream.close();
  });

  it('forgets the version of a name unsubscribed before the restart', () => {
    // Prepare
    const { stream, transport } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(CDS_TYPE_URL, 'c2');
    tick();
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['c1', 'v1', 1], ['c2', 'v1', 1]] });
    tick();
    stream.unsubscribe(CDS_TYPE_URL, 'c2');
    tick();

    // Act
    transport.current.close(new Error('reset'));
    jest.advanceTimersByTime(1);

    // Assess
    expect(transport.current.requests[0]).toMatchObject({ resource_names_subscribe: ['c1'], initial_resource_versions: { c1: 'v1' } });
    stream.close();
  });

  it('reports a failure before the first response as a connectivity failure and retries after the backoff', () => {
    // Prepare
    const { stream, transport, errors } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();

    // Act
    transport.current.close(new Error('connection refused'));
    jest.advanceTimersByTime(999);
    const callsBeforeBackoff = transport.calls.length;
    jest.advanceTimersByTime(1); // retry 0 after 1 s
    jest.advanceTimersByTime(1); // the resend (sinon delays 0-ms timers set during a tick by 1 ms)

    // Assess
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ beforeFirstResponse: true });
    expect(errors[0]?.error.kind).toBe('connection');
    expect(callsBeforeBackoff).toBe(1);
    expect(transport.calls).toHaveLength(2);
    expect(transport.current.requests[0]).toMatchObject({ node: { id: 'node-1' }, resource_names_subscribe: ['c1'] });
    stream.close();
  });
});

describe('DeltaAdsStream decoding', () => {
  it('does not decode again a resource resent with the bytes it last accepted, and reports the same value', () => {
    // Prepare
    const decoded: string[] = [];
    const plain = fakeType(CDS_TYPE_URL);
    const counting: AnyResourceType = { ...plain, decode: (any, name) => (decoded.push(name ?? ''), plain.decode(any, name)) };
    const { stream, transport, responses } = deltaStreamFixture(undefined, new Map([[CDS_TYPE_URL, counting]]));
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();

    // Act: the same bytes under a new version (a server resending after a resubscribe), then new bytes
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['c1', 'v1', { x: 1 }]] });
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n2', resources: [['c1', 'v2', { x: 1 }]] });
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n3', resources: [['c1', 'v3', { x: 2 }]] });

    // Assess
    expect(decoded).toEqual(['c1', 'c1']);
    expect(responses[1]?.updates[0]?.value).toBe(responses[0]?.updates[0]?.value);
    expect(responses.map((r) => r.updates[0]?.version)).toEqual(['v1', 'v2', 'v3']);
    stream.close();
  });
});
