import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import { clusterPath } from '../../../lib/d2';
import { consolePoster } from '../../helpers/console-post';
import { put, putService, serviceDoc } from '../../helpers/d2';
import { cliEnvFor, queueDepth, seedClusters, useQueueFixture } from '../../helpers/requests-queue';
import { eventually } from '../../helpers/zk';

// The console's Check of a restore of a cluster whose failoutProperties another tool wrote unreadable
// (D2 clients keep the last good failout): before, it was refused (`malformedCluster`), as the worker
// refused it; now it is ready, and its judgement says what the restore will do, and a Confirm sends it.
// A failout of that cluster is still refused. Real ZooKeeper and a real queue (fauxqs); no worker.

const CLUSTER = 'greetings-lor1';
const BAD = `{"clusterName":"${CLUSTER}","failoutProperties":{"failoutRedirectConfigs":[{"peer":"greetings-lva1","weight":0}],"failoutBucketConfigs":[{"offlineAt":1}]}}`;

interface Answer {
  readonly kind: string;
  readonly judgement?: string;
  readonly reason?: string;
  readonly body?: { requestId: string };
}

const fx = useQueueFixture(async (session, paths) => {
  await putService(session, paths.d2Base, serviceDoc('greetings', CLUSTER));
  await seedClusters(session, paths, ['greetings-lva1']);
  await put(session, clusterPath(paths.d2Base, CLUSTER), BAD);
});

it('Check of a restore says it removes the unreadable failout, and Confirm sends it; a failout stays refused', async () => {
  // Prepare
  const queueUrl = (await fx.sqs.createFifoQueuePair()).queueUrl;
  const server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, cliEnvFor(fx, queueUrl), pino({ level: 'silent' })), queueProbeMs: 60_000 });
  try {
    // Judged only while the console's ZooKeeper session is connected (else "not judged now").
    await eventually(async () => /data-zk="connected"[\s\S]*greetings-lva1/.test(await (await fetch(server.url)).text()), 10_000, 'connected, the clusters on the page');
    const post = consolePoster<Answer>(server.url, await (await fetch(server.url)).text());

    // Act
    const check = await post('api/check', { action: 'restore', fields: { cluster: CLUSTER } });
    const send = await post('api/send', { action: 'restore', fields: { cluster: CLUSTER }, requestId: check.json.body?.requestId });
    const failout = await post('api/check', { action: 'failout', fields: { cluster: CLUSTER, peers: 'greetings-lva1', for: '1h' } });

    // Assess
    expect(check.json).toMatchObject({ kind: 'ready', judgement: expect.stringMatching(/removes an unreadable failout: .*failoutProperties.*weight/) });
    expect(send).toMatchObject({ status: 202, json: { kind: 'sent' } });
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(1);
    expect(failout.json).toMatchObject({ kind: 'rejected', reason: 'malformedCluster' });
  } finally {
    await server.close();
  }
});
