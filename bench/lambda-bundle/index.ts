// lambda-bundle: the failout-requests Lambda as CDK's NodejsFunction would build it (esbuild, minified,
// node20, CommonJS, `@aws-sdk/*` external: the runtime provides it), its size, and its cold init in a
// fresh `node` process: require the bundle, then the first invocation (first ZooKeeper connect + one
// request applied). p50 over several runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterPath, parseClusterProperties, serializeClusterProperties, urisPath } from '../../lib/d2/data';
import { bundleFunction, startZooKeeper } from '../../lib/local';
import { connectSession, OPEN_ACL } from '../../lib/zk';
import { parseIntOptions } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';

const ROOT = join(__dirname, '..', '..');
// Inside the repository, so the external @aws-sdk/* resolve from node_modules as the runtime's would.
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'failout-bench');

/** The child: times require() and the first invocation, prints one JSON line. */
const PROBE = `
const t0 = process.hrtime.bigint();
const { handler } = require(process.argv[2]);
const t1 = process.hrtime.bigint();
const body = JSON.stringify({ version: 1, requestId: process.argv[3], action: 'failout', cluster: 'cold-a',
  peers: [{ cluster: 'cold-peer', weight: 1 }], duration: 'PT1H', requestedBy: 'bench' });
const now = String(Date.now());
const event = { Records: [{ messageId: process.argv[3], receiptHandle: 'rh', body, md5OfBody: '', messageAttributes: {},
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: now, SenderId: 'x', ApproximateFirstReceiveTimestamp: now,
    MessageGroupId: 'cold-a', MessageDeduplicationId: process.argv[3], SequenceNumber: '1' },
  eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q.fifo', awsRegion: 'us-east-1' }] };
const context = { functionName: 'failout-requests', functionVersion: '$LATEST', awsRequestId: 'cold',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:failout-requests', memoryLimitInMB: '256',
  logGroupName: 'g', logStreamName: 's', callbackWaitsForEmptyEventLoop: false, getRemainingTimeInMillis: () => 30000 };
handler(event, context).then((response) => {
  const t2 = process.hrtime.bigint();
  if (response.batchItemFailures.length > 0) throw new Error('the request failed: ' + JSON.stringify(response));
  process.stdout.write(JSON.stringify({ requireMs: Number(t1 - t0) / 1e6, firstInvokeMs: Number(t2 - t1) / 1e6 }) + '\\n');
  process.exit(0);
}, (err) => { console.error(err); process.exit(1); });
`;

export default async function lambdaBundle(args: string[]): Promise<void> {
  const p = parseIntOptions(args, { runs: { default: 7, min: 1 } });
  mkdirSync(OUT_DIR, { recursive: true });
  const started = performance.now();
  // The artefact the local stack and the bundle test run too (lib/local bundleFunction: CDK's options).
  const { file: outfile, metafile } = await bundleFunction('failout-requests', OUT_DIR);
  const buildMs = performance.now() - started;
  const bytes = statSync(outfile).size;
  const inputs = Object.entries(metafile.outputs[Object.keys(metafile.outputs)[0]!]!.inputs)
    .map(([file, info]) => [file.replace(/^node_modules\/((@[^/]+\/)?[^/]+).*/, '$1').replace(/^(lib|functions)\/.*/, 'our code'), info.bytesInOutput] as const)
    .reduce((acc, [name, size]) => acc.set(name, (acc.get(name) ?? 0) + size), new Map<string, number>());
  const probe = join(OUT_DIR, 'probe.cjs');
  writeFileSync(probe, PROBE);

  const zk = await startZooKeeper();
  const session = await connectSession({ connectString: zk.connectString });
  const requireMs: number[] = [];
  const invokeMs: number[] = [];
  try {
    for (const name of ['cold-a', 'cold-peer']) {
      await session.create(clusterPath(undefined, name), Buffer.from(serializeClusterProperties(parseClusterProperties({ clusterName: name }))), { parents: true, acl: OPEN_ACL });
      // A real announcement: the worker counts only hosts a D2 client would send to (issue 16).
      const announcement = JSON.stringify({ clusterName: name, weights: { [`http://127.0.0.1:1/${name}`]: 1 } });
      await session.create(`${urisPath(undefined, name)}/host-1`, Buffer.from(announcement), { parents: true, acl: OPEN_ACL });
    }
    for (let i = 0; i < p.runs; i++) {
      const out = execFileSync(process.execPath, [probe, outfile, `cold-${Date.now()}-${i}`], {
        env: { ...process.env, ZK_CONNECT: zk.connectString, POWERTOOLS_METRICS_DISABLED: 'true', FAILOUT_ALLOW_OPEN_ACL: '1', POWERTOOLS_LOG_LEVEL: 'WARN', FAILOUT_LOG_LEVEL: 'warn', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        encoding: 'utf8',
      });
      const timing = JSON.parse(out.trim().split('\n').pop()!) as { requireMs: number; firstInvokeMs: number };
      requireMs.push(timing.requireMs);
      invokeMs.push(timing.firstInvokeMs);
    }
  } finally {
    await session.close();
    await zk.close();
  }
  const total = requireMs.map((r, i) => r + invokeMs[i]!);
  const rows: Row[] = [
    {
      'bundle KB': round(bytes / 1024, 1),
      'build ms': round(buildMs, 0),
      runs: p.runs,
      'require p50 ms': round(percentile(requireMs, 50), 1),
      'first invoke p50 ms': round(percentile(invokeMs, 50), 1),
      'cold init p50 ms': round(percentile(total, 50), 1),
      'cold init max ms': round(Math.max(...total), 1),
    },
  ];
  printTable('lambda-bundle: size (target ≤ 1 MB) and cold init (target ≤ 300 ms)', rows);
  const largest = [...inputs].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([name, size]) => ({ input: name, KB: round(size / 1024, 1) }));
  printTable('largest inputs', largest);
  writeResults('lambda-bundle', { parameters: p, rows, largestInputs: largest });
}
