import type { FifoQueuePair } from '../../../lib/local/sqs';
import { clusterPath, parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import { runCli, type CliResult } from '../../helpers/cli';
import { put } from '../../helpers/d2';
import { cliEnvFor, queueDepth, realHandler, seedClusters, startPollers, useQueueFixture } from '../../helpers/requests-queue';

// `failout restore X` when another tool wrote X's failoutProperties unreadable (D2 clients keep the
// last good failout): before, the CLI's own check refused it (`malformedCluster`) and so did the
// worker; now the check says what the restore will do, the worker applies it, and `--wait` says what it
// did. A failout of X is still refused before anything is sent. The CLI in-process, fauxqs, the shared
// ZooKeeper and the real handler behind a poller.

const CLUSTER = 'greetings-lor1';
const OTHER_MEMBERS = `"clusterName":"${CLUSTER}","properties":{"owner":"team-x"},"someFutureKey":{"n":123456789012345678901234567890}`;
const BAD_FAILOUT = '{"failoutRedirectConfigs":[{"peer":"greetings-lva1","weight":0}],"failoutBucketConfigs":[{"offlineAt":1}]}';

let queue: FifoQueuePair;
let env: Record<string, string>;

function cli(...argv: string[]): Promise<CliResult> {
  return runCli(env, ...argv);
}

const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, ['greetings-lva1']);
  await put(session, clusterPath(paths.d2Base, CLUSTER), `{${OTHER_MEMBERS},"failoutProperties":${BAD_FAILOUT}}`);
});
beforeEach(async () => {
  queue = await fx.sqs.createFifoQueuePair();
  env = cliEnvFor(fx, queue.queueUrl);
});

it('restore --wait removes the unreadable failout and says so, before sending and after', async () => {
  // Prepare
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });

  // Act
  const restore = await cli('restore', CLUSTER, '--reason', 'INC-4711', '--wait');

  // Assess
  expect(restore.code).toBe(0);
  expect(restore.stderr).toMatch(/restore greetings-lor1 removes an unreadable failout: .*failoutProperties.*weight/);
  expect(restore.stdout).toMatch(/request [0-9a-f-]+: applied \(restore greetings-lor1\).* — removed an unreadable failout \(.*weight.*\)/);
  const { data } = await fx.session.get(clusterPath(fx.paths.d2Base, CLUSTER));
  expect(data.toString('utf8')).toBe(serializeClusterProperties(parseClusterProperties(`{${OTHER_MEMBERS}}`)));
  expect((await cli('status', CLUSTER)).stdout).toBe(`${CLUSTER}  serving\n`);
});

it('restore --wait --json carries the record that says it', async () => {
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  const restore = await cli('restore', CLUSTER, '--wait', '--json');
  expect(restore.code).toBe(0);
  expect(JSON.parse(restore.stdout)).toMatchObject({ sent: true, outcome: { status: 'applied', action: 'restore', unreadableFailout: expect.stringMatching(/weight/) } });
});

it('still refuses a failout of that cluster before sending it (malformedCluster)', async () => {
  const out = await cli('out', CLUSTER, '--peer', 'greetings-lva1', '--for', '1h');
  expect(out.code).toBe(1);
  expect(out.stdout).toMatch(/REJECTED \(failout greetings-lor1\): malformedCluster/);
  expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
});
