/**
 * "One bad request must never hold up others": a redelivery whose request record exists but cannot be
 * read (not JSON, not a record, empty) is acknowledged as a duplicate through the real handler over a
 * real writer on ZooKeeper: the record is created in the multi of the change, so its existence says
 * the request was handled. Retrying could never succeed and would hold the cluster's FIFO group until
 * the DLQ (900 s). The outcome says why, a warning is logged and `UnreadableRecord` is counted;
 * nothing is written, and the next request of the cluster applies in the same batch.
 */
import type { Context } from 'aws-lambda';
import { clusterPath } from '../../../lib/d2';
import { RequestWriter, type Outcome } from '../../../lib/requests/request-writer';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { put, putClustersWithHost } from '../../helpers/d2';
import { runCli } from '../../helpers/cli';
import { failoutInput, sqsRecord } from '../../helpers/requests';
import { captureOutput, recordingHandler, type CapturedOutput } from '../../helpers/powertools-output';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

// helpers/cli (through helpers/requests-queue) turns metrics off; this test reads them.
delete process.env.POWERTOOLS_METRICS_DISABLED;
process.env.POWERTOOLS_METRICS_NAMESPACE = 'failout-test';
process.env.POWERTOOLS_SERVICE_NAME = 'failout-requests-test';

const context = { functionName: 'failout-requests', awsRequestId: 'aws-req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
const CLUSTER = 'greetings-lor1';

let base: string;
let session: ZkSession;
let output: CapturedOutput;

const d2Base = (): string => `${base}/d2`;
const requestsPath = (): string => `${base}/requests`;

beforeEach(async () => {
  base = uniqueBase('unreadable');
  session = await openSession();
  await put(session, clusterPath(d2Base(), CLUSTER), JSON.stringify({ clusterName: CLUSTER }));
  await putClustersWithHost(session, d2Base(), ['greetings-lva1', 'greetings-ltx1']);
  output = captureOutput();
  // Powertools writes JSON lines straight to stdout (info, EMF) and stderr (warn): capture both.
});

afterEach(async () => {
  output.restore();
  await session.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

it.each([
  ['not JSON', '{"requestId":', /not JSON/],
  ['JSON that is no record', '{"hello":"world"}', /malformed/],
  ['empty', '', /not JSON/],
])('acknowledges a redelivery whose record is %s as a duplicate, says why, counts it, writes nothing, and applies the next request of the cluster', async (_kind, stored, why) => {
  // Prepare: the first delivery's record, unreadable
  const outcomes: Outcome[] = [];
  const handler = recordingHandler(new RequestWriter({ session, d2BasePath: d2Base(), requestsPath: requestsPath(), recordAcl: OPEN_ACL, retention: false }), outcomes);
  await put(session, `${requestsPath()}/broken-1`, stored);
  const clusterBefore = (await session.get(clusterPath(d2Base(), CLUSTER))).stat.version;
  const recordBefore = await session.get(`${requestsPath()}/broken-1`);

  // Act: the redelivery, then the next request of its cluster, in one batch
  const response = await handler(
    { Records: [sqsRecord(failoutInput({ requestId: 'broken-1' }), CLUSTER, 'm-1'), sqsRecord(failoutInput({ requestId: 'next-1', reason: 'next' }), CLUSTER, 'm-2')] },
    context,
  );

  // Assess
  expect(response.batchItemFailures).toEqual([]);
  expect(outcomes.map((o) => [o.requestId, o.status])).toEqual([
    ['broken-1', 'duplicate'],
    ['next-1', 'applied'],
  ]);
  expect(outcomes[0]).toMatchObject({ cluster: CLUSTER, unreadableRecord: expect.stringMatching(why) });
  expect(outcomes[1]?.unreadableRecord).toBeUndefined();
  const recordAfter = await session.get(`${requestsPath()}/broken-1`);
  expect({ data: recordAfter.data.toString('utf8'), version: recordAfter.stat.version }).toEqual({ data: stored, version: recordBefore.stat.version });
  const cluster = await session.get(clusterPath(d2Base(), CLUSTER));
  expect(cluster.stat.version).toBe(clusterBefore + 1);
  expect(cluster.data.toString('utf8')).toContain('"requestId":"next-1"');

  const lines = output.lines();
  const warning = lines.find((l) => l.requestId === 'broken-1' && l.level === 'WARN');
  expect(warning).toMatchObject({ outcome: 'duplicate', cluster: CLUSTER, unreadableRecord: expect.stringMatching(why) });
  const emf = lines.filter((l) => l._aws !== undefined);
  expect(emf.map((l) => l.UnreadableRecord).filter((v) => v !== undefined)).toEqual([1]);
  expect(emf.map((l) => l.Duplicate).filter((v) => v !== undefined)).toEqual([1]);
});

it('failout request on an unreadable record says it cannot be read (exit 1), no crash', async () => {
  // Prepare
  await put(session, `${requestsPath()}/broken-2`, '{"requestId":');

  // Act
  const shown = await runCli({ ZK_CONNECT: sharedConnectString() }, 'request', 'broken-2', '--requests-base', requestsPath());

  // Assess
  expect(shown).toMatchObject({ code: 1, stdout: '' });
  expect(shown.stderr).toMatch(/record of broken-2 .* cannot be read \(request record is not JSON\)/);
});
