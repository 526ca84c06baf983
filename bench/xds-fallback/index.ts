// bench/xds-fallback: how fast the A71 fallback loop moves, on loopback.
//  (a) the primary refuses connections (stopped before the client starts) → time from creating the
//      client until its watchers have the fallback's LDS → RDS → CDS → EDS chain;
//  (a') the primary accepts but fails each ADS stream before its first response → same measure;
//  (b) the primary restarts while the client serves from the fallback → time from the primary
//      listening again until the client's `serverSwitch` 'return' event (and until the watchers have
//      the primary's endpoint). How long the primary was down is spread over the runs from
//      --min-outage-ms to --max-outage-ms, so the return lands at every phase of the probe backoff
//      (1 s × 1.6, ±20 %, capped at --fallback-probe-cap-ms).
// Each run uses a fresh XdsClient; the two management servers are reused.
// `npm run bench -- xds-fallback [--runs 20] [--min-outage-ms 500] [--max-outage-ms 15000] [--fallback-probe-cap-ms 5000]`.
import { createXdsClient, parseBootstrap, type ServerSwitchEvent, type XdsClient } from '../../lib/xds';
import { LDS_TYPE_URL } from '../../lib/xds/envoy-protos';
import { XdsManagementServer, buildCluster, buildClusterLoadAssignment, buildListener, buildRouteConfiguration, type SnapshotInput } from '../../lib/xds/server';
import { parseIntOptions } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';
import { clock, sleep } from '../lib/workers';
import { ChainFollower } from './chain';

interface Parameters {
  runs: number;
  warmup: number;
  minOutageMs: number;
  maxOutageMs: number;
  fallbackProbeCapMs: number;
  runTimeoutMs: number;
}

const LISTENER = 'bench-service';
const PRIMARY_ENDPOINT = '127.0.0.1:1001';
const FALLBACK_ENDPOINT = '127.0.0.1:1002';

function parameters(args: string[]): Parameters {
  const v = parseIntOptions(args, {
    runs: { default: 20, min: 1 },
    warmup: { default: 1, min: 0 },
    'min-outage-ms': { default: 500, min: 0 },
    'max-outage-ms': { default: 15_000, min: 0 },
    'fallback-probe-cap-ms': { default: 5000, min: 1 },
    'run-timeout-ms': { default: 30_000, min: 100 },
  });
  return {
    runs: v.runs,
    warmup: v.warmup,
    minOutageMs: v['min-outage-ms'],
    maxOutageMs: Math.max(v['max-outage-ms'], v['min-outage-ms']),
    fallbackProbeCapMs: v['fallback-probe-cap-ms'],
    runTimeoutMs: v['run-timeout-ms'],
  };
}

/** The same resource names on both servers (replicas of one control plane); only the endpoint differs. */
function snapshot(version: string, endpointPort: number): SnapshotInput {
  return {
    version,
    listeners: [buildListener(LISTENER, { routeConfigName: 'bench-route' })],
    routes: [buildRouteConfiguration('bench-route', { cluster: 'bench-cluster' })],
    clusters: [buildCluster('bench-cluster')],
    endpoints: [buildClusterLoadAssignment('bench-cluster', [{ address: '127.0.0.1', port: endpointPort }])],
  };
}

function newClient(servers: readonly XdsManagementServer[], p: Parameters): XdsClient {
  const bootstrap = parseBootstrap({
    xds_servers: servers.map((s) => ({ server_uri: s.uri, channel_creds: [{ type: 'insecure' }] })),
    node: { id: 'bench-node', locality: {} },
  });
  return createXdsClient({ bootstrap, fallbackProbeCapMs: p.fallbackProbeCapMs });
}

function within<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** (a)/(a'): client created → fallback's chain in the watchers, in ms. */
async function timeToFallbackData(servers: readonly XdsManagementServer[], p: Parameters): Promise<number> {
  const t0 = clock();
  const client = newClient(servers, p);
  const chain = new ChainFollower(client, LISTENER);
  try {
    return (await within('fallback data', chain.reached(FALLBACK_ENDPOINT), p.runTimeoutMs)) - t0;
  } finally {
    chain.close();
    client.close();
  }
}

interface ReturnSample {
  outageMs: number;
  returnMs: number;
  primaryDataMs: number;
}

/** (b): the primary restarts after `outageMs` → the client returns to it. The primary is stopped on entry and exit. */
async function timeToReturn(primary: XdsManagementServer, fallback: XdsManagementServer, outageMs: number, p: Parameters): Promise<ReturnSample> {
  const down = clock();
  const client = newClient([primary, fallback], p);
  const chain = new ChainFollower(client, LISTENER);
  try {
    await within('fallback data', chain.reached(FALLBACK_ENDPOINT), p.runTimeoutMs);
    await sleep(Math.max(0, outageMs - (clock() - down)));
    const returned = new Promise<number>((resolve) =>
      client.on('serverSwitch', (e: ServerSwitchEvent) => {
        if (e.reason === 'return' && e.to.index === 0) resolve(clock());
      }),
    );
    await primary.start();
    const up = clock();
    const returnAt = await within('return to the primary', returned, p.runTimeoutMs);
    const dataAt = await within('primary data', chain.reached(PRIMARY_ENDPOINT), p.runTimeoutMs);
    const active = client.dump().authorities[0]?.activeServer;
    if (active !== primary.uri) throw new Error(`after the return event, the active server is ${String(active)}, not ${primary.uri}`);
    return { outageMs: up - down, returnMs: returnAt - up, primaryDataMs: dataAt - up };
  } finally {
    chain.close();
    client.close();
    await primary.stopServing();
  }
}

async function repeat<T>(label: string, p: Parameters, run: (i: number) => Promise<T>): Promise<T[]> {
  for (let i = 0; i < p.warmup; i++) await run(i);
  const samples: T[] = [];
  for (let i = 0; i < p.runs; i++) samples.push(await run(i));
  process.stdout.write(`${label}: ${p.runs} runs done\n`);
  return samples;
}

function row(scenario: string, samples: readonly number[], target: string): Row {
  return {
    scenario,
    runs: samples.length,
    'p50 ms': round(percentile(samples, 50), 1),
    'p99 ms': round(percentile(samples, 99), 1),
    'min ms': round(Math.min(...samples), 1),
    'max ms': round(Math.max(...samples), 1),
    target,
  };
}

export default async function xdsFallback(args: string[]): Promise<void> {
  const p = parameters(args);
  const primary = await XdsManagementServer.start({ recordResourceNames: false });
  const fallback = await XdsManagementServer.start({ recordResourceNames: false });
  try {
    primary.setSnapshot('*', snapshot('p1', 1001));
    fallback.setSnapshot('*', snapshot('f1', 1002));

    await primary.stopServing();
    const refused = await repeat('primary refused', p, () => timeToFallbackData([primary, fallback], p));

    await primary.start();
    const disarm = primary.faults.failStreamWhenRequested({ typeUrl: LDS_TYPE_URL, details: 'bench: stream fails before its first response' });
    const failing = await repeat('primary fails streams', p, () => timeToFallbackData([primary, fallback], p));
    disarm();
    await primary.stopServing();

    const outage = (i: number): number => p.minOutageMs + ((p.maxOutageMs - p.minOutageMs) * i) / Math.max(1, p.runs - 1);
    const returns = await repeat('primary restarted', { ...p, warmup: 0 }, (i) => timeToReturn(primary, fallback, outage(i), p));

    const rows = [
      row('(a) primary refused → fallback chain LDS→EDS', refused, '≤ 100 ms'),
      row("(a') primary fails stream → fallback chain", failing, '≤ 100 ms'),
      row('(b) primary restarted → serverSwitch return', returns.map((r) => r.returnMs), '≤ 6000 ms'),
      row('(b) primary restarted → primary endpoint', returns.map((r) => r.primaryDataMs), ''),
    ];
    printTable(`xds-fallback (loopback, fresh client per run, probe cap ${p.fallbackProbeCapMs} ms)`, rows);
    writeResults('xds-fallback', {
      parameters: { ...p },
      rows,
      samples: { refusedMs: refused.map((x) => round(x, 2)), failingMs: failing.map((x) => round(x, 2)), returns: returns.map((r) => ({ outageMs: round(r.outageMs, 0), returnMs: round(r.returnMs, 1), primaryDataMs: round(r.primaryDataMs, 1) })) },
    });
  } finally {
    await primary.close();
    await fallback.close();
  }
}
