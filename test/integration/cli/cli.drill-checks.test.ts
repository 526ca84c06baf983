/**
 * Issue 21 through `failout drill …` in-process, against fauxqs, the shared ZooKeeper and the real
 * handler behind a poller:
 * - item 8: `drill put` runs the worker's own drill checks (lib/requests `checkPutDrill`, the code the
 *   worker records its verdict with) before sending: an unknown peer, or a name another cluster's
 *   drill uses, exits 1 and sends nothing;
 * - item 3: a run a blocking alarm stopped shows as `interrupted` in `drill list` and `drill history`.
 */
import { runCli, useCliQueueTestbed } from '../../helpers/cli';
import { drillHandler, putDrillBody, type DrillPaths } from '../../helpers/drills';
import { failoutBody, queueDepth, readRecord, restoreBody, send, startPollers, stopPollers } from '../../helpers/requests-queue';
import { eventually } from '../../helpers/zk';

const bed = useCliQueueTestbed(['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']);

function paths(): DrillPaths {
  return { ...bed.paths, drillsPath: bed.paths.d2Base.replace(/\/d2$/, '/drills') };
}

function cli(...argv: string[]) {
  return runCli({ ...bed.env, FAILOUT_DRILLS_PATH: paths().drillsPath }, ...argv);
}

function startWorker(): void {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => drillHandler(bed.session, paths()) });
}

/** Sends a body straight to the queue and waits until the worker applied it. */
async function apply(body: Record<string, unknown>): Promise<void> {
  await send(bed.sqs.client, bed.queue.queueUrl, body);
  await eventually(async () => (await readRecord(bed.session, bed.paths, String(body.requestId)))?.status === 'applied', 10_000, `${String(body.action)} applied`);
}

const put = (name: string, cluster: string, peer: string, ...more: string[]) => ['drill', 'put', name, '--cluster', cluster, '--peer', peer, '--for', '30m', '--every', 'rate(7 days)', '--outcome-alarm', `${name}-errors`, ...more];

describe('drill put refuses before sending what the worker would reject', () => {
  it('exits 1 for a peer without a cluster node, naming it, and sends nothing', async () => {
    const out = await cli(...put('weekly', 'greetings-lor1', 'greetings-nowhere'));

    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/REJECTED \(putDrill greetings-lor1\): unknownPeer — peers\[0\]\.cluster: "greetings-nowhere" has no cluster node/);
    expect(out.stdout).toMatch(/nothing was sent/);
    expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
  });

  it("exits 1 for a name another cluster's drill uses, as JSON with --json, and sends nothing", async () => {
    startWorker();
    await apply(putDrillBody('shared-name', 'greetings-ltx1', ['greetings-lva1']));
    await stopPollers();

    const out = await cli(...put('shared-name', 'greetings-lor1', 'greetings-lva1'), '--json');

    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ sent: false, rejection: { reason: 'badDrill', message: expect.stringMatching(/is a drill of cluster "greetings-ltx1"/) } });
    expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
  });

  it("still sends a redefinition of the cluster's own drill", async () => {
    startWorker();
    await apply(putDrillBody('mine', 'greetings-lor1', ['greetings-lva1']));

    const out = await cli(...put('mine', 'greetings-lor1', 'greetings-ltx1'), '--wait');

    expect(out).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(putDrill greetings-lor1\)/) });
  });
});

it('shows a run a blocking alarm stopped as interrupted in drill list and drill history', async () => {
  startWorker();
  await apply(putDrillBody('deploy-safe', 'greetings-lor1', ['greetings-lva1'], { every: 'rate(7 days)', blockingAlarms: ['deploys'] }));
  const runId = `drill-deploy-safe-${Date.now()}`;
  await apply(failoutBody('greetings-lor1', ['greetings-lva1'], { requestId: runId, drill: 'deploy-safe', stopAlarms: ['deploy-safe-outcome', 'deploys'], requestedBy: 'failout-drills' }));
  // The guard's restore for the blocking alarm, as it sends it.
  await apply(restoreBody('greetings-lor1', { requestedBy: 'failout-guard', reason: 'stopped by alarm deploys', stoppedByAlarm: 'deploys', alarmAt: Date.now(), drill: 'deploy-safe' }));

  const list = await cli('drill', 'list');
  const history = await cli('drill', 'history', 'deploy-safe');
  const json = JSON.parse((await cli('drill', 'history', 'deploy-safe', '--json')).stdout) as { runs: Record<string, unknown>[] };

  expect(list.stdout).toMatch(/^deploy-safe: .*; last run interrupted \(/m);
  expect(history.stdout).toMatch(new RegExp(`${runId} {2}INTERRUPTED {2}at .*; interrupted by alarm deploys \\(in ALARM at .*\\): no verdict on the peers; ended .* by request `));
  expect(json.runs[0]).toMatchObject({ runId, status: 'interrupted', stoppedByAlarm: 'deploys' });
});
