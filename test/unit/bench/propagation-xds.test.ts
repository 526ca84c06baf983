/**
 * Issue 25: `npm run bench -- propagation --discovery xds`. The pure parts, cheaply: the command line
 * (the ZooKeeper mode's unchanged, the xDS mode's words and counts), which observers each client
 * lists, and the summary of a size: ratios to the floor and to the ZooKeeper path, the verdicts only
 * where the issue states a target, and each observer's share and cost.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientBootstrap, clientsPerObserver, observerOrder, primaryObserver } from '../../../bench/propagation/assignment';
import { compareZkAt, parameters, parseSeries, type XdsParameters } from '../../../bench/propagation/parameters';
import type { Round } from '../../../bench/propagation/rounds';
import { observerSummaries, summarizeSize, XDS_TARGET, type ObserverSample, type SizeMeasurement } from '../../../bench/propagation/summary';
import { ResultsFileError } from '../../../bench/charts/data';
import { decideXdsGrowth, propagationXdsSpec, readXdsGrowth, XDS_GROWTH_COPY_NAME, XDS_GROWTH_SERIES, xdsGrowthPoints, type XdsGrowthResults } from '../../../bench/charts/propagation-xds';
import { parseBootstrap } from '../../../lib/xds';

/** The xDS mode's parameters of `args` (with `--discovery xds` in front). */
function xdsParameters(args: string[]): XdsParameters {
  const p = parameters(['--discovery', 'xds', ...args]);
  if (p.discovery !== 'xds') throw new Error('expected the xDS mode');
  return p;
}

describe('propagation bench: parameters', () => {
  it('keeps the ZooKeeper mode when no discovery is given, its processes with the young generation of the xDS mode', () => {
    expect(parameters([])).toEqual({ discovery: 'zookeeper', clients: 1000, processes: 4, rounds: 20, warmup: 2, gapMs: 100, sessionTimeoutMs: 30000, connectConcurrency: 20, roundTimeoutMs: 30000, semiSpaceMb: 64 });
    expect(parameters(['--semi-space-mb', '0'])).toMatchObject({ discovery: 'zookeeper', semiSpaceMb: 0 });
    expect(parameters(['--clients', '200', '--rounds', '4'])).toMatchObject({ discovery: 'zookeeper', clients: 200, rounds: 4 });
  });

  it('refuses the xDS-only options in the ZooKeeper mode, so they never silently do nothing', () => {
    expect(() => parameters(['--observers', '2'])).toThrow();
    expect(() => parameters(['--clients-series', '10,20'])).toThrow();
  });

  it('reads the xDS mode: one size, observers, processes never more than the clients', () => {
    const p = parameters(['--discovery', 'xds', '--clients', '10000', '--observers', '4']);
    expect(p).toMatchObject({ discovery: 'xds', sizes: [10000], observers: 4, processes: 4, compareZk: undefined });
    expect(parameters(['--discovery=xds', '--clients', '3', '--observers', '4'])).toMatchObject({ sizes: [3], observers: 3, processes: 3 });
  });

  it('runs every size of a series, with the processes and observers of the smallest', () => {
    expect(parameters(['--discovery', 'xds', '--clients-series', '1000,4000,10000'])).toMatchObject({ sizes: [1000, 4000, 10000], processes: 4, observers: 4 });
    expect(parseSeries(' 5, 50 ')).toEqual([5, 50]);
  });

  it('measures the transport floor unless told not to', () => {
    expect(xdsParameters([]).grpcFloor).toBe(true);
    expect(xdsParameters(['--no-grpc-floor']).grpcFloor).toBe(false);
    expect(() => parameters(['--no-grpc-floor'])).toThrow();
  });

  it('speaks SotW to the observers unless told --delta', () => {
    expect(xdsParameters([]).delta).toBe(false);
    expect(xdsParameters(['--delta']).delta).toBe(true);
  });

  it('compares with the ZooKeeper path up to 4,000 clients unless told', () => {
    const auto = xdsParameters([]);
    expect([compareZkAt(auto, 1000), compareZkAt(auto, 4000), compareZkAt(auto, 10000)]).toEqual([true, true, false]);
    const on = xdsParameters(['--compare-zk']);
    expect(compareZkAt(on, 10000)).toBe(true);
    const off = xdsParameters(['--no-compare-zk']);
    expect(compareZkAt(off, 1000)).toBe(false);
  });

  it.each([
    [['--discovery', 'etcd']],
    [['--discovery']],
    [['--discovery', 'xds', '--clients', '10', '--clients-series', '10,20']],
    [['--discovery', 'xds', '--clients-series', '20,10']],
    [['--discovery', 'xds', '--clients-series', '10,x']],
    [['--discovery', 'xds', '--observers', '0']],
    [['--discovery', 'xds', '--nope', '1']],
  ])('refuses %j', (args) => {
    expect(() => parameters(args)).toThrow();
  });
});

describe('propagation bench: which observers a client lists', () => {
  it('spreads primaries evenly and lists the next observer as the fallback', () => {
    const observers = ['a', 'b', 'c', 'd'];
    const orders = Array.from({ length: 1000 }, (_, i) => observerOrder(i, observers));
    const primaries = new Map<string, number>();
    for (const [primary] of orders) primaries.set(primary!, (primaries.get(primary!) ?? 0) + 1);
    expect([...primaries.values()]).toEqual([250, 250, 250, 250]);
    expect(orders.every(([primary], i) => primary === observers[primaryObserver(i, 4)])).toBe(true);
    expect(orders.every(([primary, fallback]) => fallback === observers[(observers.indexOf(primary!) + 1) % 4])).toBe(true);
  });

  it('counts each observer’s share at most one apart, and lists one observer alone', () => {
    expect(clientsPerObserver(10, 4)).toEqual([3, 3, 2, 2]);
    expect(observerOrder(7, ['only'])).toEqual(['only']);
    expect(() => observerOrder(0, [])).toThrow();
  });

  it('writes a bootstrap the xDS client accepts, servers in priority order', () => {
    const bootstrap = parseBootstrap(clientBootstrap(5, ['127.0.0.1:1', '127.0.0.1:2']));
    expect(bootstrap.xdsServers.map((s) => s.serverUri)).toEqual(['127.0.0.1:1', '127.0.0.1:2']);
    expect(bootstrap.node.id).toBe('propagation-bench-client-5');
    expect(bootstrap.xdsServers.every((s) => !s.serverFeatures.includes('failout_delta_ads'))).toBe(true);
    expect(parseBootstrap(clientBootstrap(5, ['127.0.0.1:1', '127.0.0.1:2'], true)).xdsServers.every((s) => s.serverFeatures.includes('failout_delta_ads'))).toBe(true);
  });
});

describe('propagation bench: the summary of a size', () => {
  /** A round whose client i rerouted `fromWrite[i]` ms after the write (and 10 ms more after the send). */
  const round = (n: number, fromWrite: number[]): Round => ({ round: n, failedOut: n % 2 === 1, sendMs: 1, toWriteMs: 10, fromWrite, endToEnd: fromWrite.map((t) => t + 10) });
  const sample = (cpuMs: number[]): ObserverSample => ({ before: { rssBytes: 1000, heapUsedBytes: 500 }, after: { rssBytes: 1000 + 2 * 4096, heapUsedBytes: 500 + 2 * 1024 }, streams: 2, cpuMs });

  function measurement(clients: number, overrides: Partial<SizeMeasurement> = {}): SizeMeasurement {
    return {
      clients,
      observers: 2,
      // Clients 0 and 2 are on observer 0, 1 and 3 on observer 1.
      xds: [round(1, [100, 200, 300, 400]), round(2, [50, 60, 70, 80])],
      floor: [{ allNotifiedMs: 800, latencies: [700, 800] }, { allNotifiedMs: 160, latencies: [100, 160] }],
      zkPath: [round(1, [350, 360, 370, 380]), round(2, [90, 95, 99, 100])],
      observerSamples: [sample([4, 6]), sample([2, 2])],
      ...overrides,
    };
  }

  it('divides write → rerouted by the floor and by the ZooKeeper path, p50 and p99 over rounds of the last client', () => {
    const s = summarizeSize(measurement(4));
    expect(s.xds.writeToRerouted).toMatchObject({ allP50: 80, allP99: 400 });
    expect(s.floor).toMatchObject({ allP50: 160, allP99: 800 });
    expect(s.ratioToFloor).toEqual({ p50: 0.5, p99: 0.5 });
    expect(s.xdsOverZk).toEqual({ p50: 0.8, p99: 1.053 });
    expect(s.xds.endToEnd.allP99).toBe(410);
  });

  it('sets over xDS against the transport floor, and the transport floor against the ZooKeeper floor', () => {
    const transportFloor = { rounds: [{ allReceivedMs: 200, latencies: [150, 200] }, { allReceivedMs: 40, latencies: [30, 40] }], response: 2100, ack: 180 };
    const s = summarizeSize(measurement(4, { transportFloor }));
    expect(s.transport).toMatchObject({ allP50: 40, allP99: 200, responseBytes: 2100, ackBytes: 180 });
    expect(s.xdsOverTransport).toEqual({ p50: 2, p99: 2 });
    expect(s.transportOverFloor).toEqual({ p50: 0.25, p99: 0.25 });
    const without = summarizeSize(measurement(4));
    expect([without.transport, without.xdsOverTransport, without.transportOverFloor]).toEqual([undefined, undefined, undefined]);
  });

  it('judges a target only at the size the issue states it for', () => {
    expect(summarizeSize(measurement(4)).met).toEqual({ writeToReroutedP99: null, floorRatioP99: null, zkPathRatioP99: null });
    const atScale = summarizeSize(measurement(XDS_TARGET.atClients, { zkPath: undefined }));
    expect(atScale.met).toEqual({ writeToReroutedP99: true, floorRatioP99: true, zkPathRatioP99: null });
    expect(atScale.xdsOverZk).toBeUndefined();
    expect(summarizeSize(measurement(XDS_TARGET.zkPathAtClients)).met.zkPathRatioP99).toBe(true);
  });

  it('gives each observer its own clients’ last rerouting, memory per client and CPU per update per 1,000 clients', () => {
    const [first, second] = observerSummaries(measurement(4));
    expect(first).toMatchObject({ observer: 0, clients: 2, streams: 2, writeToAllP99Ms: 300, rssBytesPerClient: 4096, heapBytesPerClient: 1024 });
    expect(second).toMatchObject({ observer: 1, clients: 2, writeToAllP99Ms: 400 });
    // 4 and 6 ms for 2 clients: 2,000 and 3,000 ms per 1,000 clients.
    expect(first).toMatchObject({ cpuMsPerUpdatePer1000P50: 2000, cpuMsPerUpdatePer1000Mean: 2500 });
  });
});

describe('propagation bench: the chart of a series', () => {
  const size = (clients: number, xds: number, floor: number, zk?: number) => ({
    clients,
    xds: { writeToRerouted: { allP99: xds } },
    floor: { allP99: floor },
    ...(zk === undefined ? {} : { zkPath: { writeToRerouted: { allP99: zk } } }),
  });
  const run = (at: string, sizes = [size(1000, 300, 250, 280), size(10_000, 900, 1800)]): XdsGrowthResults => ({
    name: 'propagation-xds',
    at,
    machine: { node: 'v20', cpus: 2, model: 'x' },
    parameters: { observers: 4, processes: 4, rounds: 20 },
    sizes,
  });

  it('draws one line per path, and the ZooKeeper path only where it ran', () => {
    const r = run('2026-12-02T00:00:00Z');
    const values = (propagationXdsSpec(r, xdsGrowthPoints(r)).data as { values: { clients: number; series: string; ms: number }[] }).values;
    expect(values.filter((v) => v.series === XDS_GROWTH_SERIES.xds).map((v) => [v.clients, v.ms])).toEqual([[1000, 300], [10_000, 900]]);
    expect(values.filter((v) => v.series === XDS_GROWTH_SERIES.zk).map((v) => v.clients)).toEqual([1000]);
    expect(() => propagationXdsSpec(r, [])).toThrow();
  });

  it('replaces the committed copy only with a newer series from 1,000 to 10,000 clients', () => {
    const dir = mkdtempSync(join(tmpdir(), 'failout-xds-growth-'));
    try {
      const copy = join(dir, XDS_GROWTH_COPY_NAME);
      expect(decideXdsGrowth(run('2026-12-02T00:00:00Z', [size(200, 1, 1)]), copy)).toMatchObject({ take: false });
      expect(decideXdsGrowth(run('2026-12-02T00:00:00Z'), copy)).toEqual({ take: true, copyName: XDS_GROWTH_COPY_NAME });
      writeFileSync(copy, JSON.stringify(run('2026-12-02T00:00:00Z')));
      expect(readXdsGrowth(copy).sizes).toHaveLength(2);
      expect(decideXdsGrowth(run('2026-12-01T00:00:00Z'), copy)).toMatchObject({ take: false });
      writeFileSync(copy, JSON.stringify({ name: 'propagation-xds' }));
      expect(() => readXdsGrowth(copy)).toThrow(ResultsFileError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
