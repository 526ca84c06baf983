/**
 * XdsClient: routing of names to authorities, channel sharing across authorities, errors at watch
 * time, events, dump and close (fake transports).
 */
import type { AdsCallListener } from '../../../lib/xds/ads-stream';
import { parseBootstrap, type Bootstrap } from '../../../lib/xds/bootstrap';
import type { XdsTransport } from '../../../lib/xds/channel';
import { createXdsClient, authorityOf, type XdsClient } from '../../../lib/xds/client';
import { CDS_TYPE_URL, FakeAdsTransport, LDS_TYPE_URL, fakeAny, fakeTypes, recordingWatcher, settle, type RecordingWatcher } from '../../helpers/xds-fakes';

const insecure = [{ type: 'insecure' }];
const bootstrap = parseBootstrap({
  xds_servers: [
    { server_uri: 'top-primary:1', channel_creds: insecure },
    { server_uri: 'top-secondary:2', channel_creds: insecure },
  ],
  authorities: {
    a: { xds_servers: [{ server_uri: 'a-primary:3', channel_creds: insecure }, { server_uri: 'top-secondary:2', channel_creds: insecure }] },
    b: {},
  },
  node: { id: 'n1' },
});

interface Fixture {
  client: XdsClient;
  transports: Map<string, FakeAdsTransport & { closed: boolean }>;
}

function fixture(config: Bootstrap = bootstrap): Fixture {
  const transports = new Map<string, FakeAdsTransport & { closed: boolean }>();
  const client = createXdsClient({
    bootstrap: config,
    resourceTypes: fakeTypes(),
    transportFactory: (server): XdsTransport => {
      const fake = Object.assign(new FakeAdsTransport(), { closed: false });
      transports.set(server.serverUri, fake);
      return {
        openAdsCall: (l: AdsCallListener) => fake.factory(l),
        isReady: () => true,
        onReady: () => undefined,
        close: () => {
          fake.closed = true;
        },
      };
    },
  });
  return { client, transports };
}

describe('authorityOf', () => {
  it.each([
    ['xdstp://a/envoy.config.cluster.v3.Cluster/c1', 'a'],
    ['xdstp://a', 'a'],
    ['xdstp:///envoy.config.cluster.v3.Cluster/c1', ''],
    ['plain-name', undefined],
  ])('%s → %s', (name, expected) => {
    expect(authorityOf(name)).toBe(expected);
  });
});

describe('XdsClient', () => {
  let f: Fixture;
  beforeEach(() => {
    f = fixture();
  });
  afterEach(() => f.client.close());

  it('routes a plain name to the top-level servers and an xdstp name to its authority', async () => {
    f.client.watch('cluster', 'c1', recordingWatcher());
    f.client.watch(CDS_TYPE_URL, 'xdstp://a/envoy.config.cluster.v3.Cluster/c2', recordingWatcher());
    await settle(5);
    expect([...f.transports.keys()].sort()).toEqual(['a-primary:3', 'top-primary:1']);
    expect(f.transports.get('top-primary:1')?.current.requests[0]?.resource_names).toEqual(['c1']);
    expect(f.transports.get('a-primary:3')?.current.requests[0]?.resource_names).toEqual(['xdstp://a/envoy.config.cluster.v3.Cluster/c2']);
  });

  it('uses the top-level servers for an authority without its own list', async () => {
    f.client.watch('listener', 'xdstp://b/envoy.config.listener.v3.Listener/l', recordingWatcher());
    await settle(5);
    expect([...f.transports.keys()]).toEqual(['top-primary:1']);
  });

  it('shares one channel per server across authorities and keeps it while one still needs it', async () => {
    const cancelTop = f.client.watch('cluster', 'c1', recordingWatcher());
    f.client.watch('cluster', 'xdstp://a/envoy.config.cluster.v3.Cluster/c2', recordingWatcher());
    await settle(5);
    f.transports.get('top-primary:1')?.current.close(new Error('refused'));
    f.transports.get('a-primary:3')?.current.close(new Error('refused'));
    await settle(5);
    const shared = f.transports.get('top-secondary:2');
    expect(shared?.calls).toHaveLength(1);
    expect(shared?.current.requests.at(-1)?.resource_names.sort()).toEqual(['c1', 'xdstp://a/envoy.config.cluster.v3.Cluster/c2']);
    cancelTop();
    await settle(5);
    expect(shared?.closed).toBe(false);
    expect(shared?.current.requests.at(-1)?.resource_names).toEqual(['xdstp://a/envoy.config.cluster.v3.Cluster/c2']);
  });

  it('reports an authority missing from the bootstrap to the watcher', async () => {
    const w = recordingWatcher();
    f.client.watch('cluster', 'xdstp://nope/envoy.config.cluster.v3.Cluster/c', w);
    const event = await w.next();
    expect(event).toMatchObject({ type: 'error', ambient: false });
    if (event.type === 'error') expect(event.error.kind).toBe('bootstrap');
    expect(f.transports.size).toBe(0);
  });

  it('reports an unsupported type to the watcher', async () => {
    const w = recordingWatcher();
    f.client.watch('secret' as 'cluster', 'x', w);
    const event = await w.next();
    if (event.type !== 'error') throw new Error('expected an error');
    expect(event.error.kind).toBe('resourceTypeUnsupported');
  });

  it('emits serverSwitch and dumps per authority', async () => {
    const switches: unknown[] = [];
    f.client.on('serverSwitch', (e) => switches.push(e));
    const w = recordingWatcher();
    f.client.watch(LDS_TYPE_URL, 'l1', w);
    await settle(5);
    f.transports.get('top-primary:1')?.current.close(new Error('refused'));
    await settle(5);
    f.transports.get('top-secondary:2')?.current.respond({ type_url: LDS_TYPE_URL, version_info: 'v9', nonce: 'x', resources: [fakeAny(LDS_TYPE_URL, 'l1', 'val')] });
    expect(await w.next()).toEqual({ type: 'update', value: 'val' });
    expect(switches).toEqual([expect.objectContaining({ authority: '', reason: 'fallback', to: { index: 1, serverUri: 'top-secondary:2' } })]);
    const dump = f.client.dump().authorities[0];
    expect(dump?.activeServer).toBe('top-secondary:2');
    expect(dump?.resources[0]).toMatchObject({ name: 'l1', status: 'acked', version: 'v9', source: 'top-secondary:2' });
  });

  it('closes every transport on close and refuses watches afterwards', async () => {
    f.client.watch('cluster', 'c1', recordingWatcher());
    f.client.watch('cluster', 'xdstp://a/envoy.config.cluster.v3.Cluster/c2', recordingWatcher());
    await settle(5);
    f.client.close();
    expect([...f.transports.values()].every((t) => t.closed && t.current.cancelled)).toBe(true);
    expect(() => f.client.watch('cluster', 'c3', recordingWatcher())).toThrow(expect.objectContaining({ kind: 'closed' }));
  });
});

describe('XdsClient xdstp:/// names (empty authority, gRFC A47)', () => {
  const EMPTY_NAME = 'xdstp:///envoy.config.cluster.v3.Cluster/c1';
  const withEmptyAuthority = parseBootstrap({
    xds_servers: [{ server_uri: 'top-primary:1', channel_creds: insecure }],
    authorities: { '': { xds_servers: [{ server_uri: 'empty-authority:5', channel_creds: insecure }] } },
    node: { id: 'n1' },
  });

  it('routes an xdstp:/// name to authorities[""] and an old-style name to the top-level servers', async () => {
    const { client, transports } = fixture(withEmptyAuthority);
    client.watch('cluster', EMPTY_NAME, recordingWatcher());
    client.watch('cluster', 'c2', recordingWatcher());
    await settle(5);

    expect(transports.get('empty-authority:5')?.current.requests[0]?.resource_names).toEqual([EMPTY_NAME]);
    expect(transports.get('top-primary:1')?.current.requests[0]?.resource_names).toEqual(['c2']);
    expect(client.dump().authorities.map(({ authority, topLevel, activeServer }) => ({ authority, topLevel, activeServer }))).toEqual([
      { authority: '', topLevel: false, activeServer: 'empty-authority:5' },
      { authority: '', topLevel: true, activeServer: 'top-primary:1' },
    ]);
    client.close();
  });

  it('fails the watch of an xdstp:/// name when the bootstrap has no "" authority, without using the top-level servers', async () => {
    const { client, transports } = fixture();
    const w = recordingWatcher();
    client.watch('cluster', EMPTY_NAME, w);
    await settle(5);

    expect(w.events).toEqual([
      { type: 'error', ambient: false, error: expect.objectContaining({ kind: 'bootstrap', field: 'authorities[""]', resourceName: EMPTY_NAME }) },
    ]);
    expect(transports.size).toBe(0);
    client.close();
  });
});

describe('XdsClient xdstp names with context parameters (gRFC A47 normalization)', () => {
  const SORTED = 'xdstp://a/envoy.config.cluster.v3.Cluster/c2?a=1&b=2';

  it('subscribes the normalized name, matches a response naming the resource in another order, and shares one entry', async () => {
    const { client, transports } = fixture();
    const first = recordingWatcher();
    client.watch('cluster', 'xdstp://a/envoy.config.cluster.v3.Cluster/c2?b=2&a=1', first);
    await settle(5);
    const call = transports.get('a-primary:3')?.current;
    expect(call?.requests.at(-1)?.resource_names).toEqual([SORTED]);
    call?.respond({ type_url: CDS_TYPE_URL, version_info: 'v1', nonce: 'n1', resources: [fakeAny(CDS_TYPE_URL, 'xdstp://a/envoy.config.cluster.v3.Cluster/c2?b=2&a=1', 'value')] });
    expect(await first.next()).toEqual({ type: 'update', value: 'value' });
    const second = recordingWatcher();
    client.watch('cluster', SORTED, second);
    expect(await second.next()).toEqual({ type: 'update', value: 'value' });
    await settle(5);
    expect(call?.requests.at(-1)?.resource_names).toEqual([SORTED]);
    expect(client.dump().authorities[0]?.resources.map((r) => [r.name, r.watchers])).toEqual([[SORTED, 2]]);
    client.close();
  });
});

describe('XdsClient scope', () => {
  it('reports its CSDS client_scope: the target, or "#server" by default', () => {
    const byDefault = createXdsClient({ bootstrap, resourceTypes: fakeTypes(), transportFactory: () => { throw new Error('unused'); } });
    const perTarget = createXdsClient({ bootstrap, resourceTypes: fakeTypes(), clientScope: 'xds:///svc', transportFactory: () => { throw new Error('unused'); } });
    expect(byDefault.dump()).toEqual({ clientScope: '#server', node: expect.objectContaining({ id: 'n1', user_agent_name: 'failout' }), authorities: [] });
    expect(perTarget.dump().clientScope).toBe('xds:///svc');
    byDefault.close();
    perTarget.close();
  });
});

describe('XdsClient type names', () => {
  it.each(['cluster', CDS_TYPE_URL, 'envoy.config.cluster.v3.Cluster'])('accepts %s', async (type) => {
    const { client, transports } = fixture();
    client.watch(type as 'cluster', 'c1', recordingWatcher());
    await settle(5);
    expect(transports.get('top-primary:1')?.current.requests[0]?.type_url).toBe(CDS_TYPE_URL);
    client.close();
  });
});

describe('XdsClient fallback onto a channel shared with another authority', () => {
  // Authority "a" and the top-level authority share "shared:2"; "a" has already found it failing.
  function sharedFixture(topLevel: string[]): Fixture {
    return fixture(
      parseBootstrap({
        xds_servers: topLevel.map((server_uri) => ({ server_uri, channel_creds: insecure })),
        authorities: { a: { xds_servers: [{ server_uri: 'a-primary:3', channel_creds: insecure }, { server_uri: 'shared:2', channel_creds: insecure }] } },
        node: { id: 'n1' },
      }),
    );
  }

  async function failSharedThroughAuthorityA(f: Fixture): Promise<void> {
    const aWatcher = recordingWatcher();
    f.client.watch('cluster', 'xdstp://a/envoy.config.cluster.v3.Cluster/c2', aWatcher);
    await settle(5);
    f.transports.get('a-primary:3')?.current.close(new Error('refused'));
    await settle(5);
    f.transports.get('shared:2')?.current.close(new Error('refused'));
    expect(await aWatcher.next()).toMatchObject({ type: 'error', ambient: false });
  }

  /** The shared server failed through authority "a"; then a top-level watch of c1. */
  async function watchAfterSharedFailed(topLevel: string[]): Promise<{ f: Fixture; w: RecordingWatcher }> {
    const f = sharedFixture(topLevel);
    await failSharedThroughAuthorityA(f);
    const w = recordingWatcher();
    f.client.watch('cluster', 'c1', w);
    await settle(5);
    return { f, w };
  }

  it('skips a server whose shared channel is already failing and tries the next one at once (C-core MaybeFallbackLocked)', async () => {
    const { f, w } = await watchAfterSharedFailed(['top-primary:1', 'shared:2', 'top-tertiary:4']);
    f.transports.get('top-primary:1')?.current.close(new Error('refused'));
    await settle(5);
    expect(f.transports.get('top-tertiary:4')?.current.requests.at(-1)?.resource_names).toEqual(['c1']);
    expect(w.events).toEqual([]);
    f.transports.get('top-tertiary:4')?.current.respond({ type_url: CDS_TYPE_URL, version_info: 't1', nonce: 'n', resources: [fakeAny(CDS_TYPE_URL, 'c1', 'from-t')] });
    expect(await w.next()).toEqual({ type: 'update', value: 'from-t' });
    f.client.close();
  });

  it('tells a new uncached watch of the outage at once, and the watchers already told nothing more', async () => {
    const { f, w: cached } = await watchAfterSharedFailed(['top-primary:1', 'shared:2']);
    f.transports.get('top-primary:1')?.current.respond({ type_url: CDS_TYPE_URL, version_info: 'p1', nonce: 'n', resources: [fakeAny(CDS_TYPE_URL, 'c1', 'from-p')] });
    expect(await cached.next()).toEqual({ type: 'update', value: 'from-p' });
    f.transports.get('top-primary:1')?.current.close(new Error('refused')); // after a response: an immediate retry
    await settle(5);
    f.transports.get('top-primary:1')?.current.close(new Error('refused'));
    expect(await cached.next()).toMatchObject({ type: 'error', ambient: true });
    const fresh = recordingWatcher();
    f.client.watch('cluster', 'c2', fresh);
    expect(await fresh.next()).toMatchObject({ type: 'error', ambient: false });
    await settle(20);
    expect(cached.events).toHaveLength(2);
    f.client.close();
  });

  it('tells the watchers at once when the only other server is a shared channel already failing, and still takes its data when it recovers', async () => {
    const { f, w } = await watchAfterSharedFailed(['top-primary:1', 'shared:2']);
    f.transports.get('top-primary:1')?.current.close(new Error('refused'));
    const event = await Promise.race([w.next(), settle(200).then(() => undefined)]);
    expect(event).toMatchObject({ type: 'error', ambient: false, error: expect.objectContaining({ serverUri: 'shared:2' }) });
    // The shared server comes back first: its data is used (it is the last server this authority tried).
    const shared = f.transports.get('shared:2');
    await new Promise((resolve) => setTimeout(resolve, 1300)); // its retry (1 s ± 20 %)
    expect(shared?.current.requests.at(-1)?.resource_names.sort()).toEqual(['c1', 'xdstp://a/envoy.config.cluster.v3.Cluster/c2']);
    shared?.current.respond({ type_url: CDS_TYPE_URL, version_info: 's1', nonce: 'n', resources: [fakeAny(CDS_TYPE_URL, 'c1', 'from-s')] });
    expect(await w.next()).toEqual({ type: 'update', value: 'from-s' });
    f.client.close();
  });
});
