import { eventually } from '../../helpers/zk';
import { failoutBody, queueDepth, readCluster, readRecord, realHandler, restoreBody, seedClusters, send, startPollers, type OutcomeLog, useQueueFixture } from '../../helpers/requests-queue';

// The whole path: FIFO queue (fauxqs) → local poller → the real handler → ZooKeeper.

const fx = useQueueFixture((session, paths) => seedClusters(session, paths, ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']));

it('applies a failout once, records it as applied, and keeps every other key of the cluster', async () => {
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  const log: OutcomeLog = { outcomes: [] };
  const before = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths, log) });
  const body = failoutBody('greetings-lor1', ['greetings-lva1', 'greetings-ltx1'], { reason: 'INC-4711' });
  await send(fx.sqs.client, queue.queueUrl, body);

  await eventually(async () => (await readRecord(fx.session, fx.paths, String(body.requestId))) !== undefined, 10_000, 'the record');
  const record = await readRecord(fx.session, fx.paths, String(body.requestId));
  const after = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  expect(record).toMatchObject({ requestId: body.requestId, status: 'applied', cluster: 'greetings-lor1', action: 'failout', clusterVersion: after.version });
  expect(after.version).toBe(before.version + 1);
  const { failoutProperties, ...rest } = after.json;
  const { failoutProperties: _none, ...restBefore } = before.json;
  expect(rest).toEqual(restBefore);
  expect(failoutProperties).toMatchObject({
    failoutRedirectConfigs: [
      { peer: 'greetings-lva1', weight: 1 },
      { peer: 'greetings-ltx1', weight: 2 },
    ],
    failoutBucketConfigs: [expect.objectContaining({ requestId: body.requestId, reason: 'INC-4711', bucketOfflineRange: { from: 0, to: 99 } })],
  });
  await eventually(async () => (await queueDepth(fx.sqs.client, queue.queueUrl)) === 0, 5000, 'an empty queue');
  expect(log.outcomes.map((o) => o.status)).toEqual(['applied']);
});

it('removes the failout on restore and leaves the rest of the cluster as it was', async () => {
  const queue = await fx.sqs.createFifoQueuePair();
  const original = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  const out = failoutBody('greetings-lor1', ['greetings-lva1']);
  const restore = restoreBody('greetings-lor1');
  await send(fx.sqs.client, queue.queueUrl, out);
  await send(fx.sqs.client, queue.queueUrl, restore);

  await eventually(async () => (await readRecord(fx.session, fx.paths, String(restore.requestId)))?.status === 'applied', 10_000, 'the restore');
  const after = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  expect(after.json.failoutProperties ?? null).toBeNull();
  const { failoutProperties: _a, ...rest } = after.json;
  const { failoutProperties: _b, ...restOriginal } = original.json;
  expect(rest).toEqual(restOriginal);
  expect(after.version).toBe(original.version + 2);
});

it('applies a message delivered twice once: the redelivery is acknowledged as a duplicate', async () => {
  // The first delivery is applied but its acknowledgement is "lost" (reported as a failure, as after a
  // Lambda timeout), so SQS delivers it again after the 1 s visibility timeout.
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 1 });
  const log: OutcomeLog = { outcomes: [] };
  let deliveries = 0;
  const base = realHandler(fx.session, fx.paths, log);
  startPollers(1, {
    client: fx.sqs.client,
    queueUrl: queue.queueUrl,
    handler: () => async (event, context) => {
      const response = await base(event, context);
      deliveries += event.Records.length;
      return deliveries === 1 ? { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) } : response;
    },
  });
  const before = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  const body = failoutBody('greetings-lor1', ['greetings-lva1']);
  await send(fx.sqs.client, queue.queueUrl, body);

  await eventually(() => log.outcomes.length === 2, 10_000, 'the redelivery');
  await eventually(async () => (await queueDepth(fx.sqs.client, queue.queueUrl)) === 0, 5000, 'an empty queue');
  expect(log.outcomes.map((o) => o.status)).toEqual(['applied', 'duplicate']);
  expect((await readCluster(fx.session, fx.paths, 'greetings-lor1')).version).toBe(before.version + 1);
  expect(await readRecord(fx.session, fx.paths, String(body.requestId))).toMatchObject({ status: 'applied' });
});

it('applies the same requestId sent twice once: SQS drops the resend, and a resend past dedup is a duplicate', async () => {
  const queue = await fx.sqs.createFifoQueuePair();
  const log: OutcomeLog = { outcomes: [] };
  const body = failoutBody('greetings-lor1', ['greetings-lva1']);
  // Same deduplication id: SQS keeps one. A different one (a resend after SQS's 5-minute window): the record catches it.
  await send(fx.sqs.client, queue.queueUrl, body);
  await send(fx.sqs.client, queue.queueUrl, body);
  await send(fx.sqs.client, queue.queueUrl, body, { dedupId: `${String(body.requestId)}-later` });
  const before = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths, log) });

  await eventually(() => log.outcomes.length === 2, 10_000, 'both deliveries');
  await eventually(async () => (await queueDepth(fx.sqs.client, queue.queueUrl)) === 0, 5000, 'an empty queue');
  expect(log.outcomes.map((o) => o.status)).toEqual(['applied', 'duplicate']);
  expect((await readCluster(fx.session, fx.paths, 'greetings-lor1')).version).toBe(before.version + 1);
});
