/**
 * Issue 23, item 5: `failout drill put --fabric` (a drain test) through the CLI in-process
 * (run(argv, io)) against fauxqs and the shared ZooKeeper, with the real request handler (drills,
 * fabric maps and evacuations under the test's own paths) behind a poller and a loopback alarm-state
 * server as FAILOUT_ALARMS_URL. Two services in three fabrics by the naming rule.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { RequestWriter } from '../../../lib/requests';
import { createHandler } from '../../../lib/requests/lambda';
import { OPEN_ACL } from '../../../lib/zk';
import { runCli, useCliQueueTestbed } from '../../helpers/cli';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { startAlarmServer, type AlarmServer } from '../../helpers/drills';
import { readCluster, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed([]);
let alarms: AlarmServer;

const FABRICS = ['lor1', 'lva1', 'ltx1'] as const;
const SERVICES = ['greetings', 'hello'] as const;

const root = (): string => bed.paths.d2Base.replace(/\/d2$/, '');
const env = (): Record<string, string> => ({ ...bed.env, FAILOUT_DRILLS_PATH: `${root()}/drills`, FAILOUT_FABRICS_PATH: `${root()}/fabrics`, FAILOUT_EVACUATIONS_PATH: `${root()}/evacuations`, FAILOUT_ALARMS_URL: alarms.url });
const cli = (...argv: string[]) => runCli(env(), ...argv);

const PUT = ['drill', 'put', 'drain-lor1', '--fabric', 'lor1', '--to', 'lva1:2,ltx1:1', '--for', '1h', '--every', 'rate(7 days)', '--outcome-alarm', 'lor1-drain-errors'];

beforeAll(async () => {
  alarms = await startAlarmServer();
  alarms.set('lor1-drain-errors', 'OK');
  alarms.set('deploys', 'OK');
});
afterAll(async () => {
  await alarms.close();
});

beforeEach(async () => {
  const d2 = bed.paths.d2Base;
  for (const service of SERVICES) {
    await putService(bed.session, d2, serviceDoc(service, `${service}-lor1`));
    for (const fabric of FABRICS) {
      const cluster = `${service}-${fabric}`;
      await putCluster(bed.session, d2, clusterDoc(cluster));
      for (let i = 1; i <= 2; i++) await putUri(bed.session, d2, cluster, `h${i}`, `http://${cluster}-${i}:8080`);
    }
  }
});

function startWorker(): void {
  const handler = () =>
    createHandler({
      writer: new RequestWriter({ session: bed.session, d2BasePath: bed.paths.d2Base, requestsPath: bed.paths.requestsPath, drillsPath: `${root()}/drills`, fabricsPath: `${root()}/fabrics`, evacuationsPath: `${root()}/evacuations`, recordAcl: OPEN_ACL }),
      logger: new Logger({ serviceName: 'failout-requests-test', logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }),
    });
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler });
}

it('puts a drain test with --fabric, lists it, runs it now (the fabric is evacuated), shows its history, and deletes it once the fabric is restored', async () => {
  startWorker();

  // Act: define
  const put = await cli(...PUT, '--blocking-alarm', 'deploys', '--blocked-dates', '2026-12-24', '--blocked-windows', 'Sat:00:00-Sun:00:00', '--stages', 'frontend', '--wait');
  const fixed = await cli(...PUT, '--blocking-alarm', 'deploys', '--blocked-dates', '2026-12-24', '--blocked-windows', 'Sat:00:00-Sun:00:00', '--hold', '0s', '--wait');

  // Assess: a stage of a tier the fabric does not have is refused before sending; without it, applied
  expect(put).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(putDrill fabric lor1\): badStages — .*"frontend"[\s\S]*nothing was sent/) });
  expect(fixed).toMatchObject({ code: 0, stdout: expect.stringMatching(/: applied \(putDrill fabric lor1\)/) });
  // A restore gap that would bring every run's first stage home after the maximum window: refused before sending.
  const long = await cli('drill', 'put', 'long-lor1', '--fabric', 'lor1', '--for', '72h', '--every', 'cron(0 14 ? * WED *)', '--outcome-alarm', 'lor1-drain-errors', '--stage', 'greetings-lor1', '--restore-gap', '24h');
  expect(long).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(putDrill fabric lor1\): windowTooLong — stage 1 would return 96h into a run[\s\S]*nothing was sent/) });
  const list = JSON.parse((await cli('drill', 'list', '--json')).stdout) as { drills: Record<string, unknown>[] };
  expect(list.drills).toEqual([
    expect.objectContaining({ name: 'drain-lor1', fabric: 'lor1', every: 'rate(7 days)', forMs: 3_600_000, evacuation: expect.objectContaining({ targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1', weight: 1 }], holdMs: 0 }), blockingAlarms: ['deploys'], lastRun: null }),
  ]);
  expect((await cli('drill', 'list')).stdout).toMatch(/^drain-lor1: fabric lor1 → lva1×2, ltx1×1 for 3600 s, rate\(7 days\); outcome alarm lor1-drain-errors, blocking deploys; next 20\d\d-.*; no runs yet/);

  // Act: run now
  const run = await cli('drill', 'run-now', 'drain-lor1', '--wait');

  // Assess: every cluster of lor1 moves to lva1 and ltx1, as the drill's run
  expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/run drill-drain-lor1-\d+ sent \(evacuation of fabric lor1\)\n.*applied \(evacuate fabric lor1\)/) });
  for (const service of SERVICES) {
    const failout = (await readCluster(bed.session, bed.paths, `${service}-lor1`)).json.failoutProperties as { failoutRedirectConfigs: unknown[]; failoutBucketConfigs: Record<string, unknown>[] };
    expect(failout.failoutRedirectConfigs).toEqual(expect.arrayContaining([{ peer: `${service}-lva1`, weight: 2 }, { peer: `${service}-ltx1`, weight: 1 }]));
    expect(failout.failoutBucketConfigs[0]).toMatchObject({ drill: 'drain-lor1', evacuation: 'lor1', stopAlarms: ['lor1-drain-errors', 'deploys'] });
  }
  expect((await cli('drill', 'history', 'drain-lor1')).stdout).toMatch(/drill-drain-lor1-\d+ {2}RUNNING {2}at .*; evacuated 2 clusters; until /);

  // Act / Assess: refused while its run moves traffic; an operator's restore of the fabric replaces the run
  expect(await cli('drill', 'delete', 'drain-lor1', '--wait')).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED .*drillRunning/) });
  expect((await cli('restore', '--fabric', 'lor1', '--wait')).code).toBe(0);
  expect(JSON.parse((await cli('drill', 'history', 'drain-lor1', '--json')).stdout).runs[0]).toMatchObject({ status: 'replaced' });
  expect(await cli('drill', 'delete', 'drain-lor1', '--wait')).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(deleteDrill fabric lor1\)/) });
  expect((await cli('drill', 'list', '--json')).stdout).toMatch(/"drills": \[\]/);
});

it("sends a drain test's definition in the fabric actions' FIFO group", async () => {
  // Act (no worker: the message stays on the queue)
  const put = await cli(...PUT);
  const received = await bed.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: bed.queue.queueUrl, MaxNumberOfMessages: 1, MessageSystemAttributeNames: ['MessageGroupId'] }));

  // Assess
  expect(put.code).toBe(0);
  expect(received.Messages?.[0]?.Attributes?.MessageGroupId).toBe('failout/fabrics');
  expect(JSON.parse(received.Messages?.[0]?.Body ?? '{}')).toMatchObject({ action: 'putDrill', fabric: 'lor1', drill: 'drain-lor1', targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1', weight: 1 }] });
});

it.each([
  ['--fabric with --peer', [...PUT, '--peer', 'greetings-lva1'], 2, /not --peer, --share or --buckets/],
  ['--cluster with --fabric', [...PUT, '--cluster', 'greetings-lor1'], 2, /--cluster\) or evacuates a fabric \(--fabric\), not both/],
  ['a cluster drill with --to', ['drill', 'put', 'd', '--cluster', 'greetings-lor1', '--peer', 'greetings-lva1', '--to', 'lva1', '--for', '1h', '--every', 'rate(7 days)', '--outcome-alarm', 'lor1-drain-errors'], 2, /--to: only for a drain test/],
  ['a target that is the fabric', ['drill', 'put', 'd', '--fabric', 'lor1', '--to', 'lor1', '--for', '1h', '--every', 'rate(7 days)', '--outcome-alarm', 'lor1-drain-errors'], 2, /that is the fabric being evacuated/],
  ['an unknown fabric', ['drill', 'put', 'd', '--fabric', 'nope1', '--for', '1h', '--every', 'rate(7 days)', '--outcome-alarm', 'lor1-drain-errors'], 1, /unknownFabric — fabric: "nope1" has no cluster/],
  ['an outcome alarm the source does not know', ['drill', 'put', 'd', '--fabric', 'lor1', '--for', '1h', '--every', 'rate(7 days)', '--outcome-alarm', 'no-such-alarm'], 1, /unknownAlarm/],
])('refuses %s before sending', async (_what, argv, code, message) => {
  // Act
  const out = await cli(...argv);

  // Assess
  expect(out.code).toBe(code);
  expect(`${out.stdout}${out.stderr}`).toMatch(message);
  const received = await bed.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: bed.queue.queueUrl, MaxNumberOfMessages: 1 }));
  expect(received.Messages ?? []).toEqual([]);
});
