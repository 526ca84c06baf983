import { Registry } from 'prom-client';
import { D2Client, LoadBalancerState, urisPath, ZooKeeperAnnouncer } from '../../../lib/d2';
import { buildD2Client, WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory, type BuiltD2Client } from '../../../lib/failout';
import { D2_REQUESTS_METRIC, parsePrometheusText, TargetHealthSeries } from '../../../lib/metrics';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeServers, startServer } from '../../helpers/http';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

// Issue 24 ("health per target"): every D2 client counts its requests by the cluster they went to and
// how they ended, and times them; read back from the Prometheus text, a target answering 500s (or
// not answering) shows as failing. Real ZooKeeper, real HTTP servers on loopback.

describe('D2 client request metrics by target cluster', () => {
  let session: ZkSession;
  let base: string;
  let state: LoadBalancerState;
  const announcers: ZooKeeperAnnouncer[] = [];
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('d2-metrics');
    state = new LoadBalancerState({ session, basePath: base });
  });

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    for (const announcer of announcers.splice(0)) await announcer.close();
    state.close();
    await closeServers();
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  async function announce(cluster: string, uri: string): Promise<void> {
    await session.ensurePath(urisPath(base, cluster), OPEN_ACL);
    const announcer = new ZooKeeperAnnouncer({ session, basePath: base, cluster, uri, weight: 1 });
    announcers.push(announcer);
    await announcer.markUp();
  }

  /** greetings-lor1 answers 200, greetings-lva1 500, greetings-ltx1 announces a port nobody listens on. */
  async function world(): Promise<void> {
    const ok = await startServer('lor1');
    const failing = await startServer('lva1', { status: 500 });
    const gone = await startServer('ltx1');
    await gone.close();
    for (const cluster of ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']) await putCluster(session, base, clusterDoc(cluster));
    await putService(session, base, serviceDoc('greetings', 'greetings-lor1', '/greetings'));
    await announce('greetings-lor1', ok.uri);
    await announce('greetings-lva1', failing.uri);
    await putUri(session, base, 'greetings-ltx1', 'gone', gone.uri);
  }

  async function send(client: D2Client, cluster: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      try {
        const response = await client.requestToCluster(cluster, 'd2://greetings/hello');
        await response.body.dump();
      } catch {
        // a refused connection: counted as `error`, which is what is checked
      }
    }
  }

  it('counts requests by target and outcome, times them, and reads back as each target health', async () => {
    // Prepare
    await world();
    const registry = new Registry();
    const client = new D2Client({ state, registry, poolOptions: { connect: { timeout: 2000 } } });
    closers.push(() => client.close());
    const series = new TargetHealthSeries();
    const t0 = Date.now();
    series.add(t0, parsePrometheusText(await registry.metrics()));

    // Act
    await send(client, 'greetings-lor1', 20);
    await send(client, 'greetings-lva1', 10);
    await send(client, 'greetings-ltx1', 3);
    const text = await registry.metrics();
    const health = series.add(t0 + 1000, parsePrometheusText(text));

    // Assess
    expect(text).toContain(`${D2_REQUESTS_METRIC}{cluster="greetings-lor1",outcome="2xx"} 20`);
    expect(text).toContain(`${D2_REQUESTS_METRIC}{cluster="greetings-lva1",outcome="5xx"} 10`);
    expect(text).toContain(`${D2_REQUESTS_METRIC}{cluster="greetings-ltx1",outcome="error"} 3`);
    expect(health?.get('greetings-lor1')).toMatchObject({ rps: 20, errorPct: 0 });
    expect(health?.get('greetings-lva1')).toMatchObject({ rps: 10, errorPct: 100 });
    expect(health?.get('greetings-ltx1')).toMatchObject({ rps: 3, errorPct: 100 });
    expect(health?.get('greetings-lor1')?.p99Ms).toBeGreaterThan(0);
  });

  it('is exported by a client built as the README wires it, counting a failed-out service by the peer its requests reach, not warm-ups', async () => {
    // Prepare: lor1 failed out to lva1, whose hosts answer 500
    await world();
    const now = Date.now();
    await putCluster(
      session,
      base,
      clusterDoc('greetings-lor1', { failoutProperties: { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: now - 1000, onlineAt: now + 3_600_000 }] } }),
    );
    const built: BuiltD2Client = buildD2Client({
      state,
      enableClusterFailout: true,
      failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
      failoutRedirectStrategy: (view, context) => new WeightedFailoutRedirectStrategy({ view, registry: context.registry }),
      warmUp: true,
      peerWatchTeardownDelayMs: 0,
    });
    closers.push(() => built.close());

    // Act: until the failout is seen, then five more
    let redirected = 0;
    for (let i = 0; i < 200 && redirected < 5; i++) {
      const response = await built.request('d2://greetings/hello');
      await response.body.dump();
      if (response.target.cluster === 'greetings-lva1') redirected++;
      else await new Promise((r) => setTimeout(r, 20));
    }
    const samples = parsePrometheusText(await built.registry.metrics()).filter((s) => s.name === D2_REQUESTS_METRIC && s.labels.cluster === 'greetings-lva1');

    // Assess: the five went to the failing peer and are counted there as 5xx; the warm-up's GETs are not
    expect(redirected).toBe(5);
    expect(samples).toEqual([{ name: D2_REQUESTS_METRIC, labels: { cluster: 'greetings-lva1', outcome: '5xx' }, value: 5 }]);
  });
});
