/**
 * Issue 23, an evacuation ended by its stop alarm on the real pipeline: a real ZooKeeper, the FIFO
 * queue on fauxqs, the real `failout-requests` handler behind the local poller, and the real
 * `failout-guard` handler. The guard sends ONE `restoreFabric` for the fabric (not one restore per
 * cluster), the worker brings every cluster of it home, and the records say why.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { isFailedOutAt, parseClusterProperties } from '../../../lib/d2/data';
import { newRequestId } from '../../../lib/requests';
import { alarmStateChangeEvent, StopGuard } from '../../../lib/safety';
import { createGuardHandler, type FailoutGuardHandler } from '../../../lib/safety/lambda';
import { OPEN_ACL } from '../../../lib/zk';
import { eventually } from '../../helpers/zk';
import { readRecord, realHandler, seedClusters, send, startPollers, useQueueFixture } from '../../helpers/requests-queue';

const ALARM = 'lor1-evacuation-errors';
const CONTEXT = { functionName: 'failout-guard', awsRequestId: 'test', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
const SERVICES = ['f', 'g'];
const CLUSTERS = SERVICES.flatMap((s) => ['lor1', 'lva1', 'ltx1'].map((fabric) => `${s}-${fabric}`));

let queueUrl: string;
let guard: FailoutGuardHandler;

const fx = useQueueFixture(async (session, paths) => {
  for (const service of SERVICES) await session.create(`${paths.d2Base}/services/${service}`, Buffer.from(JSON.stringify({ serviceName: service, path: `/${service}` })), { parents: true, acl: OPEN_ACL });
  await seedClusters(session, paths, CLUSTERS);
});
beforeEach(async () => {
  queueUrl = (await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 })).queueUrl;
  startPollers(1, { client: fx.sqs.client, queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  const logger = new Logger({ serviceName: 'failout-guard-test', logLevel: 'SILENT' });
  const stopGuard = new StopGuard({
    zk: fx.session,
    d2BasePath: fx.paths.d2Base,
    queueUrl,
    send: async (message) => {
      const out = await fx.sqs.client.send(new SendMessageCommand(message));
      return out.MessageId === undefined ? {} : { messageId: out.MessageId };
    },
    logger,
  });
  guard = createGuardHandler({ guard: stopGuard, logger, metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-guard-test' }) });
});

async function failedOut(cluster: string): Promise<boolean> {
  const node = await fx.session.get(`${fx.paths.d2Base}/clusters/${cluster}`);
  return isFailedOutAt(parseClusterProperties(node.data).failoutProperties, Date.now());
}

it('ends the whole evacuation with one restoreFabric when its stop alarm fires', async () => {
  // Prepare: lor1 evacuated through the queue, naming the stop alarm.
  const requestId = newRequestId(Date.now());
  await send(fx.sqs.client, queueUrl, { version: 1, requestId, action: 'evacuate', fabric: 'lor1', duration: 'PT1H', stopAlarms: [ALARM], requestedBy: 'oncall' }, { group: 'failout/fabrics' });
  await eventually(async () => (await readRecord(fx.session, fx.paths, requestId))?.status === 'applied', 10_000, 'the evacuation');
  expect(await Promise.all(['f-lor1', 'g-lor1'].map(failedOut))).toEqual([true, true]);

  // Act
  const response = await guard(alarmStateChangeEvent({ id: randomUUID(), alarmName: ALARM, state: 'ALARM', previousState: 'OK', at: Date.now(), reason: 'test' }), CONTEXT);

  // Assess: one restore, for the fabric; every cluster of it home; the records say why.
  expect(response).toMatchObject({ outcome: 'handled', restores: [expect.objectContaining({ cluster: 'fabric lor1' })] });
  const restoreId = response.outcome === 'handled' ? response.restores[0]!.requestId : '';
  await eventually(async () => (await readRecord(fx.session, fx.paths, restoreId))?.status === 'applied', 10_000, 'the fabric restore');
  expect(await readRecord(fx.session, fx.paths, restoreId)).toMatchObject({ action: 'restoreFabric', fabric: 'lor1', requestedBy: 'failout-guard', stoppedByAlarm: ALARM, evacuation: { clusters: 2 } });
  expect(await Promise.all(['f-lor1', 'g-lor1'].map(failedOut))).toEqual([false, false]);
});
