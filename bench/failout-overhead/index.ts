// failout-overhead: the per-request in-process cost of FailoutClient over a bare D2Client, with no
// failout and while redirecting, as ratios measured in one run. Variants run interleaved (A/B/A/B
// batches, order rotated every round) so drift and GC hit them alike; the table reports medians.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { D2Client, LoadBalancerState, WeightedRoundRobin, parseClusterProperties, serializeClusterProperties, type FailoutProperties } from '../../lib/d2';
import { parseServiceProperties, serializeServiceProperties, serializeUriProperties } from '../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../lib/d2';
import { WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory, buildD2Client, type BuiltD2Client } from '../../lib/failout';
import { Registry } from 'prom-client';
import { startZooKeeper } from '../../lib/local';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';

interface Parameters {
  batches: number;
  resolveOps: number;
  httpBatches: number;
  httpOps: number;
  warmupOps: number;
}

function parseArgs(args: string[]): Parameters {
  const value = (flag: string, fallback: string): number => {
    const at = args.indexOf(flag);
    return Number(at >= 0 && args[at + 1] ? args[at + 1] : fallback);
  };
  return {
    batches: value('--batches', '60'),
    resolveOps: value('--ops', '5000'),
    httpBatches: value('--http-batches', '30'),
    httpOps: value('--http-ops', '200'),
    warmupOps: value('--warmup', '50000'),
  };
}

/** One measured thing: a name, what it is compared with, and one call. */
interface Variant {
  readonly name: string;
  readonly baseline: string | undefined;
  /** A second comparison: the same cluster choice made by D2Client alone, to separate the decision's cost. */
  readonly alsoVs?: string;
  readonly run: () => Promise<unknown>;
}

async function writeNode(session: ZkSession, path: string, text: string): Promise<void> {
  await session.create(path, Buffer.from(text), { parents: true, acl: OPEN_ACL });
}

/** Clusters plain, lor1 (failed out to lva1:2, ltx1:1), lva1, ltx1, one host each (the local server); services on plain and lor1. */
async function loadData(session: ZkSession, hostUri: string): Promise<void> {
  const failout: FailoutProperties = {
    redirects: [{ peer: 'bench-lva1', weight: 2 }, { peer: 'bench-ltx1', weight: 1 }],
    ignoredRedirectEntries: 0,
    buckets: [{ partition: 'main', offlineAt: Date.now() - 1000 }],
  };
  for (const cluster of ['bench-plain', 'bench-lor1', 'bench-lva1', 'bench-ltx1']) {
    const props = parseClusterProperties({ clusterName: cluster });
    const doc = cluster === 'bench-lor1' ? { ...props, failoutProperties: failout } : props;
    await writeNode(session, clusterPath(undefined, cluster), serializeClusterProperties(doc));
    await writeNode(session, `${urisPath(undefined, cluster)}/host-1`, serializeUriProperties({ clusterName: cluster, partitionDesc: { [hostUri]: { 0: 1 } }, uriSpecificProperties: {} }));
  }
  for (const [service, cluster] of [['svc-plain', 'bench-plain'], ['svc-out', 'bench-lor1']] as const) {
    const doc = parseServiceProperties({ serviceName: service, clusterName: cluster, path: `/${service}`, loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: ['http'] });
    await writeNode(session, servicePath(undefined, service), serializeServiceProperties(doc));
  }
}

/** Runs the variants interleaved: per round each variant does one batch, in a rotated order. ns/op per batch. */
async function interleave(variants: readonly Variant[], batches: number, ops: number, warmup: number): Promise<Map<string, number[]>> {
  for (const v of variants) for (let i = 0; i < warmup; i++) await v.run();
  const samples = new Map(variants.map((v) => [v.name, [] as number[]]));
  for (let b = 0; b < batches; b++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(b + k) % variants.length]!;
      const start = process.hrtime.bigint();
      for (let i = 0; i < ops; i++) await v.run();
      samples.get(v.name)!.push(Number(process.hrtime.bigint() - start) / ops);
    }
  }
  return samples;
}

/**
 * Per-round ratios: batch b of a variant over batch b of its baseline, both run in the same round a
 * few milliseconds apart, so drift of the shared machine cancels out; the median of those.
 */
function pairedRatio(samples: Map<string, number[]>, variant: string, baseline: string): number {
  const v = samples.get(variant)!;
  const base = samples.get(baseline)!;
  return percentile(
    v.map((ns, b) => ns / base[b]!),
    50,
  );
}

function rows(kind: string, variants: readonly Variant[], samples: Map<string, number[]>): Row[] {
  return variants.map((v) => {
    const p50 = percentile(samples.get(v.name)!, 50);
    const base = v.baseline === undefined ? undefined : percentile(samples.get(v.baseline)!, 50);
    const also = v.alsoVs === undefined ? undefined : percentile(samples.get(v.alsoVs)!, 50);
    return {
      kind,
      variant: v.name,
      'ns/op p50': round(p50, 0),
      'ns/op p90': round(percentile(samples.get(v.name)!, 90), 0),
      'ratio (p50)': base === undefined ? '' : round(p50 / base, 3),
      'paired ratio (p50)': v.baseline === undefined ? '' : round(pairedRatio(samples, v.name, v.baseline), 3),
      'ratio vs D2 peer rotation': also === undefined ? '' : round(p50 / also, 3),
    };
  });
}

/** `failout_client_redirected_total` by peer, from the client's registry. */
async function redirectedCounts(registry: Registry): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('failout_client_redirected_total');
  const counts: Record<string, number> = {};
  for (const v of metric ? (await metric.get()).values : []) counts[String(v.labels.peer)] = v.value;
  return counts;
}

async function startLocalServer(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Default export for `npm run bench -- failout-overhead [--batches 60] [--ops 5000] [--http-batches 30] [--http-ops 200]`. */
export default async function failoutOverhead(args: string[]): Promise<void> {
  const p = parseArgs(args);
  const zk = await startZooKeeper();
  const server = await startLocalServer();
  const session = await connectSession({ connectString: zk.connectString });
  const state = new LoadBalancerState({ session });
  // A registry as buildD2Client gives its client: both sides count and time their requests by target.
  const bare = new D2Client({ state, registry: new Registry() });
  const clients: BuiltD2Client[] = [];
  try {
    await loadData(session, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    // The path a service takes: buildD2Client with failout on (and warm-up, as by default).
    const failout = buildD2Client({
      state,
      enableClusterFailout: true,
      failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
      failoutRedirectStrategy: (view, context) => new WeightedFailoutRedirectStrategy({ view, registry: context.registry }),
      peerWatchTeardownDelayMs: 0,
    });
    clients.push(failout);
    const plain = 'd2://svc-plain/hello?name=ada';
    const out = 'd2://svc-out/hello?name=ada';
    const init = { routingKey: 'member-42' };
    // Load everything, and check that the decision is what the table claims.
    await bare.resolve(out);
    await bare.resolve(plain);
    const deadline = Date.now() + 10_000;
    while ((await failout.resolve(out, init)).cluster === 'bench-lor1') {
      if (Date.now() > deadline) throw new Error('failout of bench-lor1 not in effect');
      await new Promise((r) => setTimeout(r, 20));
    }
    if ((await failout.resolve(plain, init)).cluster !== 'bench-plain') throw new Error('plain service redirected');

    // The same 2:1 alternation between the two peers, without any failout logic: D2Client's own
    // cost of sending one service's requests to two clusters.
    const peers = new WeightedRoundRobin([{ item: 'bench-lva1', weight: 2 }, { item: 'bench-ltx1', weight: 1 }]);
    const resolveVariants: Variant[] = [
      { name: 'D2Client.resolve, no failout', baseline: undefined, run: () => bare.resolve(plain) },
      { name: 'FailoutClient.resolve, no failout', baseline: 'D2Client.resolve, no failout', run: () => failout.resolve(plain, init) },
      { name: 'D2Client.resolve, cluster failed out (ignored)', baseline: undefined, run: () => bare.resolve(out) },
      { name: 'D2Client.resolveInCluster, peers 2:1', baseline: 'D2Client.resolve, cluster failed out (ignored)', run: () => bare.resolveInCluster(peers.next()!, out) },
      { name: 'FailoutClient.resolve, redirecting', baseline: 'D2Client.resolve, cluster failed out (ignored)', alsoVs: 'D2Client.resolveInCluster, peers 2:1', run: () => failout.resolve(out, init) },
    ];
    const send = (client: { request: (url: string, init?: object) => Promise<{ body: { dump(): Promise<void> } }> }, url: string, options?: object) => async () => {
      const response = await client.request(url, options);
      await response.body.dump();
    };
    const httpVariants: Variant[] = [
      { name: 'D2Client.request, no failout', baseline: undefined, run: send(bare, plain) },
      { name: 'FailoutClient.request, no failout', baseline: 'D2Client.request, no failout', run: send(failout, plain, init) },
      { name: 'D2Client.request, cluster failed out (ignored)', baseline: undefined, run: send(bare, out) },
      { name: 'FailoutClient.request, redirecting', baseline: 'D2Client.request, cluster failed out (ignored)', run: send(failout, out, init) },
    ];
    const resolveSamples = await interleave(resolveVariants, p.batches, p.resolveOps, p.warmupOps);
    const httpSamples = await interleave(httpVariants, p.httpBatches, p.httpOps, Math.min(2_000, p.warmupOps));
    const table = [...rows('resolve', resolveVariants, resolveSamples), ...rows('http', httpVariants, httpSamples)];
    printTable(`failout-overhead: per-request cost, interleaved batches (resolve ${p.batches}×${p.resolveOps}, http ${p.httpBatches}×${p.httpOps})`, table);
    writeResults('failout-overhead', { parameters: { ...p }, targets: { noFailout: 1.05, redirecting: 1.2 }, rows: table, redirected: await redirectedCounts(failout.registry) });
  } finally {
    for (const client of clients) await client.close();
    await bare.close();
    state.close();
    await session.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await zk.close();
  }
}
