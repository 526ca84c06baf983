// worker: change requests applied per second through the local pipeline — SQS FIFO (fauxqs) → SqsPoller
// (batch 10) → the real failout-requests handler (Powertools FIFO batch) → RequestWriter → ZooKeeper —
// and the time from SendMessage to "applied". Starts its own ZooKeeper and local SQS.
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { clusterPath, parseClusterProperties, serializeClusterProperties, urisPath } from '../../lib/d2/data';
import { SqsPoller, startLocalSqs, startZooKeeper } from '../../lib/local';
import { RequestWriter } from '../../lib/requests';
import { createHandler } from '../../lib/requests/lambda';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import { parseIntOptions } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';

async function seed(session: ZkSession, clusters: readonly string[]): Promise<void> {
  for (const name of clusters) {
    await session.create(clusterPath(undefined, name), Buffer.from(serializeClusterProperties(parseClusterProperties({ clusterName: name }))), { parents: true, acl: OPEN_ACL });
    await session.create(`${urisPath(undefined, name)}/host-1`, Buffer.from(JSON.stringify({ clusterName: name, weights: { 'http://10.0.0.1:8080': 1 } })), { parents: true, acl: OPEN_ACL });
  }
}

function peerOf(cluster: string): string {
  return `${cluster}-peer`;
}

/**
 * One run: `requests` over `clusters` groups, drained by `pollers`; sent as fast as SQS takes them
 * (`rate` 0: throughput, latency is mostly queueing) or paced at `rate`/s (latency of an unloaded pipeline).
 */
async function runOnce(p: Record<'requests' | 'clusters' | 'pollers' | 'batch' | 'rate', number>): Promise<Row> {
  const zk = await startZooKeeper();
  const sqs = await startLocalSqs({ visibilityTimeoutSeconds: 30 });
  const session = await connectSession({ connectString: zk.connectString });
  const pollers: SqsPoller[] = [];
  try {
    const clusters = Array.from({ length: p.clusters }, (_, i) => `bench-${i}`);
    // Each cluster fails out to a peer of its own: since issue 21 every request is judged against every
    // open failout, and one peer shared by 50 clusters would (rightly) be refused for capacity.
    await seed(session, [...clusters, ...clusters.map(peerOf)]);
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let applied = 0;
    let lastApplied = 0;
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const writer = new RequestWriter({ session, recordAcl: OPEN_ACL });
    // One handler per poller, as each Lambda environment has its own (see SqsPoller).
    const makeHandler = (): ReturnType<typeof createHandler> =>
      createHandler({
        writer: {
          process: async (body, meta) => {
            const outcome = await writer.process(body, meta);
            const now = performance.now();
            const sent = sentAt.get(outcome.requestId);
            if (outcome.status === 'applied' && sent !== undefined) {
              latencies.push(now - sent);
              applied++;
              lastApplied = now;
              if (applied === p.requests) done();
            }
            return outcome;
          },
        },
        logger: new Logger({ serviceName: 'bench', logLevel: 'SILENT' }),
        metrics: new Metrics({ namespace: 'bench', serviceName: 'bench' }),
      });
    for (let i = 0; i < p.pollers; i++) {
      const poller = new SqsPoller({ client: sqs.client, queueUrl: sqs.queueUrl, handler: makeHandler(), batchSize: p.batch, waitTimeSeconds: 1 });
      poller.start();
      pollers.push(poller);
    }
    const start = performance.now();
    let next = 0;
    // 8 concurrent senders, each owning a disjoint set of clusters so every cluster's order is kept.
    await Promise.all(
      Array.from({ length: 8 }, async (_, sender) => {
        for (;;) {
          const i = next++;
          if (i >= p.requests) return;
          const cluster = clusters[(i * 8 + sender) % clusters.length]!;
          const requestId = randomUUID();
          const body = { version: 1, requestId, action: 'failout', cluster, peers: [{ cluster: peerOf(cluster), weight: 1 }], duration: 'PT1H', requestedBy: 'bench', reason: `#${i}` };
          sentAt.set(requestId, performance.now());
          await sqs.client.send(new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: JSON.stringify(body), MessageGroupId: cluster, MessageDeduplicationId: requestId }));
          if (p.rate > 0) await new Promise((r) => setTimeout(r, (8 * 1000) / p.rate));
        }
      }),
    );
    const timeout = setTimeout(done, 120_000);
    await finished;
    clearTimeout(timeout);
    const seconds = (lastApplied - start) / 1000;
    return {
      mode: p.rate > 0 ? `paced ${p.rate}/s` : 'saturated',
      requests: p.requests,
      applied,
      clusters: p.clusters,
      pollers: p.pollers,
      batch: p.batch,
      'applied/s': round(applied / seconds, 1),
      'p50 ms': round(percentile(latencies, 50), 1),
      'p99 ms': round(percentile(latencies, 99), 1),
      'max ms': round(Math.max(...latencies), 1),
    };
  } finally {
    await Promise.all(pollers.map((poller) => poller.close()));
    await session.close();
    await sqs.close();
    await zk.close();
  }
}

export default async function worker(args: string[]): Promise<void> {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.FAILOUT_LOG_LEVEL ??= 'warn';
  const p = parseIntOptions(args, {
    requests: { default: 2000, min: 10 },
    clusters: { default: 10, min: 1 },
    pollers: { default: 4, min: 1 },
    batch: { default: 10, min: 1 },
    rate: { default: 100, min: 1 },
  });
  const rows: Row[] = [];
  for (const clusters of [...new Set([p.clusters, 50])]) rows.push(await runOnce({ ...p, clusters, rate: 0 }));
  rows.push(await runOnce({ ...p, requests: Math.min(p.requests, 5 * p.rate), rate: p.rate }));
  printTable('worker: poller → handler → ZooKeeper (target ≥ 200 applied/s)', rows);
  writeResults('worker', { parameters: p, rows });
}
