/**
 * AdsStream with a SotW server that resends every subscribed resource in each response (the `indis`
 * types): a resource whose bytes did not change is not decoded again, and still reaches the handler
 * with the value it had; changed or invalid bytes are decoded (and judged) as ever.
 */
import { AdsStream, type AdsResponseEvent } from '../../../lib/xds/ads-stream';
import { packAny, wrapResource } from '../../../lib/xds/protos';
import type { AnyResourceType } from '../../../lib/xds/resource-state';
import { buildD2Node, D2_NODE_TYPE_URL, d2NodeType } from '../../../lib/xds/resource-types';
import { FakeAdsTransport } from '../../helpers/xds-fakes';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const stat = { czxid: 1n, mzxid: 1n, pzxid: 1n, ephemeralOwner: 0n, mtime: 1, version: 0, cversion: 0, aversion: 0, dataLength: 2, numChildren: 0 };
const node = (path: string, data: object, mzxid = 1n) => wrapResource(buildD2Node(path, JSON.stringify(data), { ...stat, mzxid }), path);

function fixture() {
  const transport = new FakeAdsTransport();
  const decoded: string[] = [];
  const counting: AnyResourceType = { ...(d2NodeType as AnyResourceType), decode: (any, name) => (decoded.push(name ?? ''), d2NodeType.decode(any, name)) };
  const responses: AdsResponseEvent[] = [];
  const stream = new AdsStream({
    serverUri: 'observer:1',
    callFactory: transport.factory,
    handler: { onStreamError: () => undefined, onResponse: (e) => responses.push(e), onResourceDoesNotExist: () => undefined, isResourceCached: () => false },
    node: { id: 'node-1' },
    resourceTypes: new Map([[D2_NODE_TYPE_URL, counting]]),
    retryDelayMs: () => 1000,
    isTransportReady: () => transport.ready,
  });
  return { stream, transport, decoded, responses };
}

describe('AdsStream decodes only what changed', () => {
  it('reuses the value of a resource whose bytes are unchanged, and decodes the changed one', () => {
    const { stream, transport, decoded, responses } = fixture();
    stream.start();
    stream.subscribe(D2_NODE_TYPE_URL, '/d2/clusters/a');
    stream.subscribe(D2_NODE_TYPE_URL, '/d2/clusters/b');
    jest.advanceTimersByTime(0);
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '1', nonce: 'n1', resources: [node('/d2/clusters/a', { x: 1 }), node('/d2/clusters/b', { y: 1 })] });
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '2', nonce: 'n2', resources: [node('/d2/clusters/a', { x: 1 }), node('/d2/clusters/b', { y: 2 }, 2n)] });
    expect(decoded).toEqual(['/d2/clusters/a', '/d2/clusters/b', '/d2/clusters/b']);
    const [first, second] = responses;
    expect(second!.updates.map((u) => u.name)).toEqual(['/d2/clusters/a', '/d2/clusters/b']);
    // The same value as before, and the same bytes as the response carried.
    expect(second!.updates[0]!.value).toBe(first!.updates[0]!.value);
    expect(Buffer.compare(second!.updates[0]!.raw.value, first!.updates[0]!.raw.value)).toBe(0);
    expect((second!.updates[1]!.value as { data: unknown }).data).toEqual({ y: 2 });
    expect(second!.errors).toEqual([]);
    stream.close();
  });

  it('judges invalid bytes every time, and keeps the last good bytes for the next unchanged resend', () => {
    const { stream, transport, decoded, responses } = fixture();
    stream.start();
    stream.subscribe(D2_NODE_TYPE_URL, '/d2/clusters/a');
    jest.advanceTimersByTime(0);
    const bad = wrapResource(packAny(D2_NODE_TYPE_URL, {}), '/d2/clusters/a');
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '1', nonce: 'n1', resources: [node('/d2/clusters/a', { x: 1 })] });
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '2', nonce: 'n2', resources: [bad] });
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '3', nonce: 'n3', resources: [bad] });
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '4', nonce: 'n4', resources: [node('/d2/clusters/a', { x: 1 })] });
    expect(decoded).toHaveLength(3);
    expect(responses.map((r) => r.errors.length)).toEqual([0, 1, 1, 0]);
    expect(responses[3]!.updates[0]!.value).toBe(responses[0]!.updates[0]!.value);
    stream.close();
  });

  it('finds each resource by its own wrapper when a server resends them in another order', () => {
    const { stream, transport, decoded, responses } = fixture();
    stream.start();
    stream.subscribe(D2_NODE_TYPE_URL, '/d2/clusters/a');
    stream.subscribe(D2_NODE_TYPE_URL, '/d2/clusters/b');
    jest.advanceTimersByTime(0);
    const a = node('/d2/clusters/a', { x: 1 });
    const b = node('/d2/clusters/b', { y: 1 });
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '1', nonce: 'n1', resources: [a, b] });
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '2', nonce: 'n2', resources: [b, a] });
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '3', nonce: 'n3', resources: [b, a] });
    expect(decoded).toEqual(['/d2/clusters/a', '/d2/clusters/b']);
    for (const r of responses.slice(1)) {
      const byName = new Map(r.updates.map((u) => [u.name, (u.value as { data: unknown }).data]));
      expect(byName).toEqual(new Map<string, unknown>([['/d2/clusters/b', { y: 1 }], ['/d2/clusters/a', { x: 1 }]]));
    }
    stream.close();
  });
});
