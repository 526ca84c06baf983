/**
 * Issue 24, item 1: `npm run bench -- console`. The pure parts, cheaply: the command line, the world
 * the benchmark seeds (checked against an in-memory ZooKeeper with the codecs the console reads it
 * with), the sequence of measured changes, and the figures made of the samples with their verdicts.
 * The measurements themselves need Chromium and ZooKeeper: `npm run bench -- console --quick`.
 */
import { clusterPath, parseClusterProperties } from '../../../lib/d2/data';
import { decodeRequestRecord } from '../../../lib/requests';
import { parameters } from '../../../bench/console/parameters';
import { atMost, changeStats, cpuPercent, judge, type ConsoleMeasurements } from '../../../bench/console/results';
import { ChangeWriter, changeAt, clusterDocument, expectedState, failedOutServices, failoutOf, peersOf, seedWorld, WINDOW_MS } from '../../../bench/console/world';
import { InMemoryZk } from '../../helpers/in-memory-zk';

describe('console bench: parameters', () => {
  it('defaults to the issue sizes: 1,000 services, 5 pages, 20 changes, 20 pages for CPU, 200 services for the selection', () => {
    const p = parameters([]);
    expect(p).toMatchObject({ quick: false, services: 1000, failedOut: 50, records: 5000, pages: 5, changes: 20, cpuPages: 20, cpuS: 30, everyMs: 2000, idleS: 20, selectionServices: 200, selectionS: 10 });
  });

  it('takes smaller sizes with --quick, and an explicit count over them', () => {
    const p = parameters(['--quick', '--pages', '3']);
    expect(p).toMatchObject({ quick: true, services: 60, pages: 3, changes: 3 });
  });

  it('takes the checkout whose console runs in both spellings', () => {
    expect(parameters(['--console-from', '/tmp/x']).consoleRoot).toBe('/tmp/x');
    expect(parameters(['--console-from=/tmp/y']).consoleRoot).toBe('/tmp/y');
  });

  it.each([[['--pages', '0']], [['--nope', '1']], [['--console-from']], [['--services', 'many']]])('refuses %j', (args) => {
    expect(() => parameters(args)).toThrow();
  });
});

describe('console bench: the world', () => {
  it('spreads the failed-out services evenly over all of them', () => {
    expect(failedOutServices(1000, 50)).toHaveLength(50);
    expect(failedOutServices(1000, 50).slice(0, 3)).toEqual([0, 20, 40]);
    expect(failedOutServices(3, 50)).toEqual([0, 1, 2]);
  });

  it('changes ltx1 clusters, a different one each time, failing out on the first pass and restoring on the second', () => {
    const changes = Array.from({ length: 6 }, (_, k) => changeAt(k, 3));
    expect(changes.map((c) => `${c.cluster}:${expectedState(c)}`)).toEqual([
      'svc0000-ltx1:failed-out',
      'svc0001-ltx1:failed-out',
      'svc0002-ltx1:failed-out',
      'svc0000-ltx1:serving',
      'svc0001-ltx1:serving',
      'svc0002-ltx1:serving',
    ]);
  });

  it('fails a cluster out to its service in the other fabrics, one window of an hour, through the D2 codec', () => {
    expect(peersOf('svc0007-lva1')).toEqual(['svc0007-lor1', 'svc0007-ltx1']);
    const doc = parseClusterProperties(clusterDocument('svc0007-lva1', failoutOf('svc0007-lva1', 'r-1', 1_000_000)).toString('utf8'));
    expect(doc.clusterName).toBe('svc0007-lva1');
    expect(doc.failoutProperties?.redirects.map((r) => r.peer)).toEqual(['svc0007-lor1', 'svc0007-ltx1']);
    expect(doc.failoutProperties?.buckets).toEqual([expect.objectContaining({ onlineAt: 1_000_000 + WINDOW_MS, requestId: 'r-1' })]);
    expect(parseClusterProperties(clusterDocument('svc0007-lva1', null).toString('utf8')).failoutProperties).toBeNull();
  });

  it('seeds services, clusters, hosts, the failouts and the records, readable with the codecs the console uses', async () => {
    // Prepare
    const zk = new InMemoryZk();
    const session = zk.session();
    const paths = { d2Base: '/b/d2', requestsBase: '/b/requests' };

    // Act
    const seeded = await seedWorld(session, paths, { services: 4, hosts: 2, failedOut: 2, records: 7 }, 5_000_000);

    // Assess
    expect(seeded.failedOut.map((f) => f.cluster)).toEqual(['svc0000-lor1', 'svc0002-lor1']);
    expect((await session.children('/b/d2/clusters')).children).toHaveLength(12);
    expect((await session.children('/b/d2/uris/svc0003-ltx1')).children).toHaveLength(2);
    const failed = parseClusterProperties((await session.get(clusterPath(paths.d2Base, 'svc0002-lor1'))).data.toString('utf8'));
    expect(failed.failoutProperties?.buckets[0]?.requestId).toBe(seeded.failedOut[1]!.requestId);
    const serving = parseClusterProperties((await session.get(clusterPath(paths.d2Base, 'svc0001-lor1'))).data.toString('utf8'));
    expect(serving.failoutProperties).toBeNull();
    const names = (await session.children(paths.requestsBase)).children;
    expect(names).toHaveLength(7);
    const records = await Promise.all(names.map(async (n) => decodeRequestRecord((await session.get(`${paths.requestsBase}/${n}`)).data)));
    // The failouts' own records, with their windows' ids.
    expect(records.filter((r) => seeded.failedOut.some((f) => f.requestId === r.requestId)).map((r) => r.cluster).sort()).toEqual(['svc0000-lor1', 'svc0002-lor1']);
  });

  it('writes each change as the document it prepared, in the sequence of changeAt', async () => {
    // Prepare
    const zk = new InMemoryZk();
    const session = zk.session();
    await seedWorld(session, { d2Base: '/d2', requestsBase: '/r' }, { services: 2, hosts: 1, failedOut: 1, records: 0 });
    const writer = new ChangeWriter(session, '/d2', 2);
    const failoutOfCluster = async (cluster: string) => parseClusterProperties((await session.get(clusterPath('/d2', cluster))).data.toString('utf8')).failoutProperties;

    // Act + Assess
    const first = writer.prepare();
    await writer.write(first);
    expect(first.cluster).toBe('svc0000-ltx1');
    expect(await failoutOfCluster('svc0000-ltx1')).not.toBeNull();
    await writer.write(writer.prepare());
    const third = writer.prepare();
    await writer.write(third);
    expect(third).toMatchObject({ cluster: 'svc0000-ltx1', failout: false });
    expect(await failoutOfCluster('svc0000-ltx1')).toBeNull();
  });
});

describe('console bench: figures and verdicts', () => {
  it('gives CPU as % of one core over the wall time between two readings', () => {
    expect(cpuPercent({ userUs: 0, systemUs: 0, at: 0 }, { userUs: 1_500_000, systemUs: 500_000, at: 10_000 })).toBe(20);
    expect(cpuPercent({ userUs: 5, systemUs: 5, at: 7 }, { userUs: 5, systemUs: 5, at: 7 })).toBe(0);
  });

  it('counts a change that never showed at the timeout in the percentiles', () => {
    const s = changeStats({ latenciesMs: Array.from({ length: 18 }, (_, i) => 100 + i), missed: 2, timeoutMs: 30_000 });
    expect(s).toMatchObject({ samples: 20, missed: 2, p50Ms: 109, p95Ms: 30_000, maxMs: 30_000 });
  });

  it('meets a target at or under it, misses over it or when nothing was measured', () => {
    expect(atMost(500, 500).met).toBe(true);
    expect(atMost(500.5, 500).met).toBe(false);
    expect(atMost(null, 500)).toEqual({ value: null, target: 500, met: false });
  });

  it('judges every measurement of a run against its target', () => {
    // Prepare
    const load = { firstPaintMs: 900, fullyLoadedMs: 2500, loadEventEndMs: 1000, liveOkMs: 1200, firstStateMs: 2500 };
    const m: ConsoleMeasurements = {
      loads: [load, { ...load, firstPaintMs: 2100, fullyLoadedMs: 3100 }, load],
      changes: { latenciesMs: [100, 200, 300], missed: 0, timeoutMs: 1000 },
      idle: { seconds: 20, encodedBytes: 30 * 1024 * 20, dataBytes: 0, eventSourceBytes: 0, eventSourceMessages: 0 },
      cpu: { pages: 20, seconds: 30, changes: 15, percent: 9.5 },
      selection: { clusters: 600, seconds: 10, changes: 5, selected: 'request r-1', after: '', connected: false },
    };

    // Act
    const j = judge(m);

    // Assess
    expect({ firstPaint: j.firstPaint.met, fullyLoaded: j.fullyLoaded.met, change: j.changeP95.met, idle: j.idleKiBPerS.met, cpu: j.cpuPercent.met, selection: j.selectionSurvives.met }).toEqual({
      firstPaint: true,
      fullyLoaded: true,
      change: true,
      idle: false,
      cpu: true,
      selection: false,
    });
    expect(j.idleKiBPerS.value).toBe(30);
  });
});
