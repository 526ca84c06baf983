import { eventually } from '../../helpers/zk';
import { failoutBody, readRecord, realHandler, restoreBody, seedClusters, send, startPollers, useQueueFixture } from '../../helpers/requests-queue';

// Issue 17: the history (console, `failout request`) says why each request was made: the record keeps
// the request's own `reason` (as `requestReason`; `reason` is a rejection's), bounded in length.

const fx = useQueueFixture((session, paths) => seedClusters(session, paths, ['greetings-lor1', 'greetings-lva1']));

it("keeps the request's reason in its record, applied or rejected, and bounds it", async () => {
  // Prepare
  const queue = await fx.sqs.createFifoQueuePair();
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  const out = failoutBody('greetings-lor1', ['greetings-lva1'], { reason: 'INC-4711 <img src=x onerror=alert(1)>' });
  const rejected = failoutBody('greetings-lor1', ['greetings-nowhere'], { reason: 'typo on purpose' });
  const long = restoreBody('greetings-lor1', { reason: 'é'.repeat(1024) });

  // Act
  await send(fx.sqs.client, queue.queueUrl, out);
  await send(fx.sqs.client, queue.queueUrl, rejected);
  await send(fx.sqs.client, queue.queueUrl, long);
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(long.requestId))) !== undefined, 10_000, 'the last record');

  // Assess
  expect(await readRecord(fx.session, fx.paths, String(out.requestId))).toMatchObject({ status: 'applied', requestReason: 'INC-4711 <img src=x onerror=alert(1)>' });
  expect(await readRecord(fx.session, fx.paths, String(rejected.requestId))).toMatchObject({ status: 'rejected', reason: 'unknownPeer', requestReason: 'typo on purpose' });
  const kept = (await readRecord(fx.session, fx.paths, String(long.requestId)))?.requestReason ?? '';
  expect(kept.startsWith('éééé')).toBe(true);
  expect(kept.length).toBeLessThanOrEqual(300);
});
