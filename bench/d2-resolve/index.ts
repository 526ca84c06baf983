// d2-resolve: the in-process cost of resolving `d2://<service>/<path>` to a host, per call.
// Starts its own ZooKeeper, loads one service per cluster size, then times D2Client.resolve() in batches.
import { D2Client, LoadBalancerState, WeightedRoundRobin, serializeClusterProperties, serializeServiceProperties, serializeUriProperties } from '../../lib/d2';
import { clusterPath, parseClusterProperties, parseServiceProperties, servicePath, urisPath } from '../../lib/d2';
import { startZooKeeper } from '../../lib/local';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';

interface Parameters {
  hosts: number[];
  batches: number;
  opsPerBatch: number;
  warmupOps: number;
}

function parseArgs(args: string[]): Parameters {
  const value = (flag: string, fallback: string): string => {
    const at = args.indexOf(flag);
    return at >= 0 && args[at + 1] ? args[at + 1]! : fallback;
  };
  return {
    hosts: value('--hosts', '10,100,1000').split(',').map(Number),
    batches: Number(value('--batches', '50')),
    opsPerBatch: Number(value('--ops', '2000')),
    warmupOps: Number(value('--warmup', '100000')),
  };
}

/** Writes a cluster of `hosts` announced URIs (persistent children, with varied weights) and a service on it. */
async function loadService(session: ZkSession, hosts: number): Promise<string> {
  const cluster = `bench-${hosts}`;
  const service = `svc-${hosts}`;
  await session.create(clusterPath(undefined, cluster), Buffer.from(serializeClusterProperties(parseClusterProperties({ clusterName: cluster }))), { parents: true, acl: OPEN_ACL });
  const serviceDoc = parseServiceProperties({ serviceName: service, clusterName: cluster, path: `/${service}`, loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: ['http'] });
  await session.create(servicePath(undefined, service), Buffer.from(serializeServiceProperties(serviceDoc)), { parents: true, acl: OPEN_ACL });
  await session.ensurePath(urisPath(undefined, cluster), OPEN_ACL);
  const creates = Array.from({ length: hosts }, (_, i) => {
    const uri = `http://10.0.${Math.floor(i / 250)}.${i % 250}:8080`;
    const data = serializeUriProperties({ clusterName: cluster, partitionDesc: { [uri]: { 0: 1 + (i % 3) } }, uriSpecificProperties: {} });
    return session.create(`${urisPath(undefined, cluster)}/host-${i}`, Buffer.from(data), { acl: OPEN_ACL });
  });
  await Promise.all(creates);
  return service;
}

/** ns per op of each batch of `run`, after `warmup` unmeasured calls. */
async function timeBatches(p: Parameters, run: () => Promise<unknown> | unknown): Promise<number[]> {
  for (let i = 0; i < p.warmupOps; i++) await run();
  const samples: number[] = [];
  for (let b = 0; b < p.batches; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < p.opsPerBatch; i++) await run();
    samples.push(Number(process.hrtime.bigint() - start) / p.opsPerBatch);
  }
  return samples;
}

function row(what: string, hosts: number, samples: number[]): Row {
  const p50 = percentile(samples, 50);
  return { what, hosts, 'ns/op p50': round(p50, 0), 'ns/op p99': round(percentile(samples, 99), 0), 'ops/s (p50)': Math.round(1e9 / p50) };
}

/** Default export for `npx tsx bench/run.ts d2-resolve [--hosts 10,100,1000] [--batches 50] [--ops 2000]`. */
export default async function d2Resolve(args: string[]): Promise<void> {
  const p = parseArgs(args);
  const zk = await startZooKeeper();
  let session: ZkSession | undefined;
  let state: LoadBalancerState | undefined;
  let client: D2Client | undefined;
  try {
    session = await connectSession({ connectString: zk.connectString });
    state = new LoadBalancerState({ session });
    client = new D2Client({ state });
    const rows: Row[] = [];
    for (const hosts of p.hosts) {
      const service = await loadService(session, hosts);
      const url = `d2://${service}/greetings/hello?name=ada`;
      const target = await client.resolve(url);
      if (state.getUris(target.cluster)?.hosts.length !== hosts) throw new Error(`expected ${hosts} hosts in ${target.cluster}`);
      const d2 = client;
      rows.push(row('D2Client.resolve', hosts, await timeBatches(p, () => d2.resolve(url))));
      // The rotation alone, to show how much of a resolve is host choice (O(hosts)) vs the rest.
      const wrr = new WeightedRoundRobin(state.getUris(target.cluster)!.hosts.map((h) => ({ item: h.uri, weight: h.weight })));
      rows.push(row('WeightedRoundRobin.next', hosts, await timeBatches(p, () => wrr.next())));
    }
    printTable(`d2-resolve: per-call cost, ${p.batches} batches × ${p.opsPerBatch} ops`, rows);
    writeResults('d2-resolve', { parameters: { ...p }, rows });
  } finally {
    await client?.close();
    state?.close();
    await session?.close();
    await zk.close();
  }
}
