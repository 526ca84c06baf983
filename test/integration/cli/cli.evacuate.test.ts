/**
 * Issue 23, `failout evacuate <fabric>` and `failout restore --fabric` end to end: the CLI in-process
 * (run(argv, io)) against fauxqs and the shared ZooKeeper, with the real request handler (fabric maps
 * and evacuations under the test's own paths) behind a poller. Two services in three fabrics by the
 * naming rule: the dry run prints the plan and writes nothing; `--wait` applies it (every cluster of
 * lor1 failed out to the same service in lva1 and ltx1) and `failout status` groups by fabric with the
 * open evacuation; `restore --fabric --wait` ends it; a service with no cluster outside the fabric is
 * refused before sending, named.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { resolveSettings } from '../../../lib/operator';
import { buildFabricBody, judgeFabricBody } from '../../../lib/operator/fabric-requests';
import { RequestWriter } from '../../../lib/requests';
import { createHandler } from '../../../lib/requests/lambda';
import { OPEN_ACL } from '../../../lib/zk';
import { runCli, useCliQueueTestbed } from '../../helpers/cli';
import { clusterDoc, put, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { queueDepth, readCluster, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed([]);

const FABRICS = ['lor1', 'lva1', 'ltx1'] as const;
const SERVICES = ['greetings', 'hello'] as const;

const root = (): string => bed.paths.d2Base.replace(/\/d2$/, '');
const env = (): Record<string, string> => ({ ...bed.env, FAILOUT_FABRICS_PATH: `${root()}/fabrics`, FAILOUT_EVACUATIONS_PATH: `${root()}/evacuations` });
const cli = (...argv: string[]) => runCli(env(), ...argv);

/** A service with one cluster per fabric, `hosts` announced hosts each. */
async function seedService(service: string, fabrics: readonly string[], hosts = 2): Promise<void> {
  const d2 = bed.paths.d2Base;
  await putService(bed.session, d2, serviceDoc(service, `${service}-${fabrics[0]}`));
  for (const fabric of fabrics) {
    const cluster = `${service}-${fabric}`;
    await putCluster(bed.session, d2, clusterDoc(cluster));
    for (let i = 1; i <= hosts; i++) await putUri(bed.session, d2, cluster, `h${i}`, `http://${cluster}-${i}:8080`);
  }
}

function startWorker(before?: () => Promise<void>): void {
  const handler = () => {
    const inner = createHandler({
      writer: new RequestWriter({
        session: bed.session,
        d2BasePath: bed.paths.d2Base,
        requestsPath: bed.paths.requestsPath,
        fabricsPath: `${root()}/fabrics`,
        evacuationsPath: `${root()}/evacuations`,
        recordAcl: OPEN_ACL,
      }),
      logger: new Logger({ serviceName: 'failout-requests-test', logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }),
    });
    if (before === undefined) return inner;
    // Something changes between the CLI's judgement and the worker's.
    return (async (...args: Parameters<typeof inner>) => {
      await before();
      return inner(...args);
    }) as typeof inner;
  };
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler });
}

interface FailoutJson {
  failoutProperties?: { failoutRedirectConfigs: { peer: string; weight: number }[]; failoutBucketConfigs: { onlineAt?: number; evacuation?: string }[] } | null;
}

async function failoutOf(cluster: string): Promise<FailoutJson['failoutProperties']> {
  return ((await readCluster(bed.session, bed.paths, cluster)).json as FailoutJson).failoutProperties;
}

beforeEach(async () => {
  for (const service of SERVICES) await seedService(service, FABRICS);
});

it('prints the plan with --dry-run and writes nothing', async () => {
  // Act
  const dry = await cli('evacuate', 'lor1', '--to', 'lva1:2,ltx1:1', '--for', '1h', '--dry-run');
  const json = await cli('evacuate', 'lor1', '--to', 'lva1:2,ltx1:1', '--for', '1h', '--dry-run', '--output', 'json');

  // Assess
  expect(dry.code).toBe(0);
  expect(dry.stdout).toMatch(/^dry run: the evacuation would be applied; nothing was sent\./);
  expect(dry.stdout).toMatch(/evacuation of lor1: 2 clusters of 2 services in 1 stage, to lva1 \(weight 2\), ltx1 \(weight 1\)/);
  expect(dry.stdout).toMatch(/greetings-lor1 +greetings +1 \(all\) +2 +greetings-ltx1 \(1\), greetings-lva1 \(2\)\n/);
  expect(dry.stdout).toMatch(/hello-lor1 +hello +1 \(all\) +2 +hello-ltx1 \(1\), hello-lva1 \(2\)\n/);
  expect(dry.stdout).toMatch(/receiving clusters: projected load per host, × their own load \(limit ×2\)/);
  expect(dry.stdout).toMatch(/greetings-lva1 +lva1 +greetings +2 +×1 +×1\.67\n/);
  expect(dry.stdout).toMatch(/greetings-ltx1 +ltx1 +greetings +2 +×1 +×1\.33\n/);
  expect(json.code).toBe(0);
  const doc = JSON.parse(json.stdout) as { dryRun: boolean; ok: boolean; plan: { clusters: { cluster: string; peers: { cluster: string; weight: number }[] }[] } };
  expect(doc).toMatchObject({ dryRun: true, ok: true });
  expect(doc.plan.clusters.map((c) => c.cluster).sort()).toEqual(['greetings-lor1', 'hello-lor1']);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
  for (const service of SERVICES) expect(await failoutOf(`${service}-lor1`)).toBeFalsy();
  expect(await bed.session.exists(`${root()}/evacuations/lor1`)).toBeFalsy();
});

it('evacuates a fabric with --wait, shows it in status by fabric, and restores it with restore --fabric --wait', async () => {
  startWorker();

  // Act: evacuate
  const out = await cli('evacuate', 'lor1', '--to', 'lva1:2,ltx1:1', '--for', '1h', '--reason', 'INC-4711', '--wait');

  // Assess: every cluster of lor1 is failed out to the same service in lva1 and ltx1
  expect(out).toMatchObject({ code: 0, stdout: expect.stringMatching(/: applied \(evacuate fabric lor1\) at \S+ — 2 clusters in 1 stage, in one ZooKeeper multi \(\d+ bytes\)/) });
  expect(out.stdout).toMatch(/^plan \(judged against ZooKeeper now; the worker judges it again\):\nevacuation of lor1:/);
  for (const service of SERVICES) {
    const failout = await failoutOf(`${service}-lor1`);
    expect(failout?.failoutRedirectConfigs).toEqual(
      expect.arrayContaining([
        { peer: `${service}-lva1`, weight: 2 },
        { peer: `${service}-ltx1`, weight: 1 },
      ]),
    );
    expect(failout?.failoutRedirectConfigs).toHaveLength(2);
    expect(failout?.failoutBucketConfigs[0]).toMatchObject({ evacuation: 'lor1' });
  }
  for (const fabric of ['lva1', 'ltx1']) for (const service of SERVICES) expect(await failoutOf(`${service}-${fabric}`)).toBeFalsy();

  // Assess: status groups by fabric, with the open evacuation
  const status = await cli('status');
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(/^fabric lor1: 2 clusters\n {2}evacuation of lor1 OPEN: stage 1 of 1 \(all\) (moving out|out); ends \S+ \(in \d+m[^)]*\) {2}\[request [0-9a-f-]+\] by oncall@example\.com — INC-4711\ngreetings-lor1 {2}FAILED OUT/m);
  expect(status.stdout).toMatch(/^fabric ltx1: 2 clusters\ngreetings-ltx1 {2}serving/m);
  expect(status.stdout).toMatch(/^fabric lva1: 2 clusters\ngreetings-lva1 {2}serving/m);
  const json = JSON.parse((await cli('status', '--json')).stdout) as { clusters: { cluster: string; fabric: string | null; state: string }[]; evacuations: { fabric: string; open: boolean; phase: string }[] };
  expect(json.clusters.find((c) => c.cluster === 'hello-lor1')).toMatchObject({ fabric: 'lor1', state: 'failed-out' });
  expect(json.clusters.find((c) => c.cluster === 'hello-ltx1')).toMatchObject({ fabric: 'ltx1', state: 'serving' });
  expect(json.evacuations).toEqual([expect.objectContaining({ fabric: 'lor1', open: true })]);
  expect((await cli('status', 'greetings-lor1')).stdout).toMatch(/\n {2}fabric {3}evacuation of lor1 OPEN: /);

  // Act: a second evacuation while this one is open is refused before sending, naming it
  const again = await cli('evacuate', 'lva1', '--to', 'ltx1', '--for', '1h');
  expect(again.code).toBe(1);
  expect(again.stdout).toMatch(/REJECTED \(evacuate fabric lva1\): evacuationOpen — .*lor1/);

  // Act: restore the fabric
  const restore = await cli('restore', '--fabric', 'lor1', '--wait');

  // Assess
  expect(restore).toMatchObject({ code: 0, stdout: expect.stringMatching(/: applied \(restoreFabric fabric lor1\)/) });
  expect(await cli('restore', '--fabric', 'lor1', '--wait')).toMatchObject({ code: 0, stdout: expect.stringMatching(/no evacuation of lor1 was open; nothing was written/) });
  const after = JSON.parse((await cli('status', '--json')).stdout) as typeof json;
  expect(after.evacuations).toEqual([expect.objectContaining({ fabric: 'lor1', open: false })]);
  for (const service of SERVICES) expect(after.clusters.find((c) => c.cluster === `${service}-lor1`)?.state).not.toBe('failed-out');
  expect((await cli('status')).stdout).not.toMatch(/OPEN/);
});

it('shows, after restore --fabric of a staged evacuation, the stages still coming home in status until the last is back', async () => {
  startWorker();
  const applied = await cli('evacuate', 'lor1', '--to', 'lva1', '--for', '1h', '--stage', 'greetings-lor1', '--hold', '0s', '--restore-gap', '10m', '--wait');
  expect(applied.code).toBe(0);

  // Act: restore it; the last stage (hello-lor1) is back at once, the first (greetings-lor1) 10 minutes later
  const restore = await cli('restore', '--fabric', 'lor1', '--wait');
  const status = await cli('status');
  const json = JSON.parse((await cli('status', '--json')).stdout) as { clusters: { cluster: string; state: string }[]; evacuations: { fabric: string; open: boolean; phase: string; backAt?: string; stage?: { number: number } }[] };

  // Assess: what status says is what ZooKeeper holds: greetings-lor1 is still out, and says until when
  expect(restore.code).toBe(0);
  expect(json.clusters.find((c) => c.cluster === 'greetings-lor1')?.state).toBe('failed-out');
  expect(json.clusters.find((c) => c.cluster === 'hello-lor1')?.state).not.toBe('failed-out');
  expect(json.evacuations).toEqual([expect.objectContaining({ fabric: 'lor1', open: false, phase: 'restoring', stage: expect.objectContaining({ number: 1 }), backAt: expect.any(String) })]);
  const backAt = Date.parse(json.evacuations[0]!.backAt!);
  expect(backAt - Date.now()).toBeGreaterThan(9 * 60_000);
  expect(backAt - Date.now()).toBeLessThanOrEqual(10 * 60_000);
  expect(status.stdout).toMatch(/^fabric lor1: 2 clusters\n {2}evacuation of lor1 RETURNING \(restored by oncall@example\.com\): stage 1 of 2 still out, the last stage first; all back \S+ \(in (9m|10m)[^)]*\) {2}\[request [0-9a-f-]+\]/m);
  expect(status.stdout).not.toMatch(/OPEN/);
});

it("brings home with `restore --fabric` a member whose windows `failout extend` kept open past the evacuation's end, and says so before sending", async () => {
  startWorker();
  expect((await cli('evacuate', 'lor1', '--to', 'lva1,ltx1', '--for', '3s', '--wait')).code).toBe(0);
  expect((await cli('extend', 'greetings-lor1', '--for', '1h', '--wait')).code).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 3500));
  expect((await failoutOf('greetings-lor1'))?.failoutBucketConfigs[0]).toMatchObject({ evacuation: 'lor1' });

  // The console's Check of "Restore…" (the operator path's judgement of the body) says what it will do.
  const body = buildFabricBody('restoreFabric', 'lor1', {}, { requestId: '0195d5a8-7c00-7000-8000-000000000000', now: Date.now(), requestedBy: 'oncall' });
  const check = await judgeFabricBody(resolveSettings({}, env()), env(), body, { now: Date.now(), session: bed.session });
  const restore = await cli('restore', '--fabric', 'lor1', '--wait');

  expect(check).toMatchObject({ kind: 'ready', judged: true, judgement: expect.stringMatching(/no open evacuation now, but 1 cluster still carry windows of an evacuation of it \(greetings-lor1\): the worker brings them home now/) });
  expect(restore).toMatchObject({ code: 0, stdout: expect.stringMatching(/: applied \(restoreFabric fabric lor1\)/) });
  expect(restore.stdout).not.toMatch(/nothing was written/);
  const after = (await failoutOf('greetings-lor1'))?.failoutBucketConfigs ?? [];
  expect(after.every((b) => b.onlineAt !== undefined && b.onlineAt <= Date.now())).toBe(true);
});

it("says in the console's Check of a restore that an evacuation node that cannot be read is removed, as the worker then removes it", async () => {
  startWorker();
  await put(bed.session, `${root()}/evacuations/lor1`, '{"version": 1, "fabric": "lor1"');
  const body = buildFabricBody('restoreFabric', 'lor1', {}, { requestId: '0195d5a8-7c00-7000-8000-000000000001', now: Date.now(), requestedBy: 'oncall' });

  // Act
  const check = await judgeFabricBody(resolveSettings({}, env()), env(), body, { now: Date.now(), session: bed.session });
  const restore = await cli('restore', '--fabric', 'lor1', '--wait');

  // Assess: the Check says what the worker did (the broken node, which refused every later evacuation, is gone)
  expect(check).toMatchObject({ kind: 'ready', judged: true, judgement: expect.stringMatching(/^the evacuation node of fabric lor1 cannot be read \(evacuation node is not JSON\): no cluster carries its evacuation now; the worker removes the node, so that later evacuations are not refused\.$/) });
  expect(restore).toMatchObject({ code: 0, stdout: expect.stringMatching(/: applied \(restoreFabric fabric lor1\)/) });
  expect(await bed.session.exists(`${root()}/evacuations/lor1`)).toBeFalsy();
});

it("refuses a mistyped fabric, target or stage while another evacuation is open for what it is, not as evacuationOpen", async () => {
  startWorker();
  expect((await cli('evacuate', 'lor1', '--to', 'lva1:2,ltx1:1', '--for', '1h', '--wait')).code).toBe(0);

  // Act: a typo in an incident must not read "restore lor1 first" (restoring it would not help)
  const fabric = await cli('evacuate', 'lorl', '--for', '1h');
  const target = await cli('evacuate', 'lva1', '--to', 'ltxl', '--for', '1h');
  const stage = await cli('evacuate', 'lva1', '--to', 'ltx1', '--stage', 'greetings-ltx1', '--for', '1h');
  const exclude = await cli('evacuate', 'lva1', '--to', 'ltx1', '--exclude', 'nope', '--for', '1h');
  const valid = await cli('evacuate', 'lva1', '--to', 'ltx1', '--for', '1h');

  // Assess
  expect(fabric).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(evacuate fabric lorl\): unknownFabric — fabric: "lorl" has no cluster \(fabrics with clusters: lor1, ltx1, lva1\)/) });
  expect(target).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(evacuate fabric lva1\): unknownFabric — targets\[0\]\.fabric: "ltxl" has no cluster/) });
  expect(stage).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(evacuate fabric lva1\): badStages — stages\[0\]\.clusters\[0\]: "greetings-ltx1" is not a cluster of fabric "lva1"/) });
  expect(exclude).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(evacuate fabric lva1\): badTargets — exclude\[0\]: "nope" is not a service of fabric "lva1"/) });
  for (const refused of [fabric, target, stage, exclude]) expect(refused.stdout).not.toMatch(/evacuationOpen/);
  expect(valid).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(evacuate fabric lva1\): evacuationOpen — fabric "lor1" is being evacuated/) });
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});

it('refuses, before sending, a restore --fabric of a name that is no fabric and was never evacuated, as the console\'s Check does', async () => {
  // Act
  const typo = await cli('restore', '--fabric', 'lorl', '--wait');
  const json = await cli('restore', '--fabric', 'lorl', '--json');
  const known = await cli('restore', '--fabric', 'lor1');

  // Assess: the typo is refused with the worker's reason, nothing sent; a known fabric with nothing open is still sent
  expect(typo).toMatchObject({ code: 1, stdout: expect.stringMatching(/^request \S+: REJECTED \(restoreFabric fabric lorl\): unknownFabric — fabric: "lorl" has no cluster and no evacuation \(fabrics with clusters: lor1, ltx1, lva1\); nothing to restore\n {2}nothing was sent/) });
  expect(JSON.parse(json.stdout)).toMatchObject({ sent: false, request: { action: 'restoreFabric', fabric: 'lorl' }, rejection: { reason: 'unknownFabric' } });
  expect(json.code).toBe(1);
  expect(known.code).toBe(0);
  expect(known.stdout + known.stderr).toMatch(/sent request \S+ \(restoreFabric fabric lor1\)/);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(1);
});

it('resends an evacuation with its request id safely: not refused as another open evacuation, applied once', async () => {
  startWorker();
  const args = ['evacuate', 'lor1', '--to', 'lva1:2,ltx1:1', '--for', '1h', '--request-id', 'evac-resend-1', '--wait'];
  const first = await cli(...args);
  const version = (await readCluster(bed.session, bed.paths, 'greetings-lor1')).version;

  // Act: the operator did not see the outcome and sends the same request again
  const again = await cli(...args);

  // Assess
  expect(first).toMatchObject({ code: 0, stdout: expect.stringMatching(/request evac-resend-1: applied \(evacuate fabric lor1\)/) });
  expect(again.stdout).not.toMatch(/evacuationOpen/);
  expect(again).toMatchObject({ code: 0, stdout: expect.stringMatching(/request evac-resend-1: applied \(evacuate fabric lor1\)/) });
  expect((await readCluster(bed.session, bed.paths, 'greetings-lor1')).version).toBe(version);
});

it('with --wait, shows the plan again when the worker judged another one than the CLI showed (hosts came in between)', async () => {
  // Prepare: targets by capacity; greetings-lva1 gains 6 hosts after the CLI judged, before the worker does
  for (const service of SERVICES) await seedService(service, FABRICS);
  let added = 2;
  startWorker(async () => {
    for (const last = added + 6; added < last; added++) await putUri(bed.session, bed.paths.d2Base, 'greetings-lva1', `h${added + 1}`, `http://greetings-lva1-${added + 1}:8080`);
  });

  // Act
  const text = await cli('evacuate', 'lor1', '--for', '1h', '--wait');

  // Assess: the plan shown first (weights by hosts, 2 and 2), then the applied one shown again, as the worker judged it (8 hosts in lva1)
  expect(text.code).toBe(0);
  const [shown, applied] = text.stdout.split(/the worker judged the evacuation again when it arrived, and its plan differs from the one shown above; it applied this one:\n/);
  expect(shown).toMatch(/greetings-lor1 +greetings +1 \(all\) +2 +greetings-ltx1 \(2\), greetings-lva1 \(2\)/);
  expect(shown).toMatch(/request [0-9a-f-]+: applied \(evacuate fabric lor1\)/);
  expect(applied).toMatch(/greetings-lor1 +greetings +1 \(all\) +2 +greetings-ltx1 \(2\), greetings-lva1 \(8\)/);

  // And in JSON: the plan shown, and the one applied (each delivery, the restore's too, brings 6 hosts to lva1)
  expect((await cli('restore', '--fabric', 'lor1', '--wait')).code).toBe(0);
  await putUri(bed.session, bed.paths.d2Base, 'greetings-ltx1', 'h3', 'http://greetings-ltx1-3:8080');
  const json = JSON.parse((await cli('evacuate', 'lor1', '--for', '1h', '--wait', '--json')).stdout) as { planChanged?: boolean; plan: { clusters: { peers: unknown[] }[] }; appliedPlan: { clusters: { peers: unknown[] }[] } };
  expect(json.planChanged).toBe(true);
  expect(json.plan.clusters[0]?.peers).toEqual([{ cluster: 'greetings-ltx1', weight: 3 }, { cluster: 'greetings-lva1', weight: 14 }]);
  expect(json.appliedPlan.clusters[0]?.peers).toEqual([{ cluster: 'greetings-ltx1', weight: 3 }, { cluster: 'greetings-lva1', weight: 20 }]);
});

it('with --wait, says nothing more when the worker applied the plan shown', async () => {
  // Prepare
  for (const service of SERVICES) await seedService(service, FABRICS);
  startWorker();

  // Act
  const text = await cli('evacuate', 'lor1', '--for', '1h', '--wait');

  // Assess
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/: applied \(evacuate fabric lor1\)/);
  expect(text.stdout).not.toMatch(/differs from the one shown/);
});

it('with --wait, says nothing more when the worker applied the plan shown, with more receivers than the evacuation node keeps', async () => {
  // Prepare: 26 services × 2 target fabrics = 52 receiving clusters; the node keeps the 50 most loaded.
  for (let i = 0; i < 26; i++) await seedService(`svc${String(i).padStart(2, '0')}`, FABRICS);
  startWorker();

  // Act
  const text = await cli('evacuate', 'lor1', '--for', '1h', '--wait');

  // Assess
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/: applied \(evacuate fabric lor1\)/);
  expect(text.stdout).not.toMatch(/differs from the one shown/);
});

it('refuses, before sending, a fabric with a service that has no cluster outside it, naming the service', async () => {
  // Prepare: solo runs only in lor1
  await seedService('solo', ['lor1']);

  // Act
  const refused = await cli('evacuate', 'lor1', '--for', '1h', '--wait');
  const excluded = await cli('evacuate', 'lor1', '--for', '1h', '--exclude', 'solo', '--dry-run');

  // Assess
  expect(refused.code).toBe(1);
  expect(refused.stdout).toMatch(/REJECTED \(evacuate fabric lor1\): noTargetForService — .*solo/);
  expect(refused.stdout).toMatch(/nothing was sent/);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
  expect(await failoutOf('greetings-lor1')).toBeFalsy();
  expect(excluded.code).toBe(0);
  expect(excluded.stdout).toMatch(/excluded solo \(left in place\)/);
  expect(excluded.stdout).toMatch(/to every other fabric, by capacity/);
});

it('refuses bad flags as usage errors before anything is read or sent', async () => {
  expect(await cli('evacuate', 'lor1', '--to', 'lor1', '--for', '1h')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--to lor1: that is the fabric being evacuated/) });
  expect(await cli('evacuate', 'lor1', '--to', 'lva1:101', '--for', '1h')).toMatchObject({ code: 2, stderr: expect.stringMatching(/from 1 to 100/) });
  expect(await cli('evacuate', 'lor1', '--for', '1h', '--stages', 'front end')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--stages "front end"/) });
  expect(await cli('evacuate', 'lor1')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--for <duration>/) });
  expect(await cli('evacuate', 'lor1', '--for', '1h', '--stages', 'frontend', '--dry-run')).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED: badStages — .*frontend/) });
  // A stage the hold pushes past the end is the plan's to refuse: judged (the worker would refuse it), never sent.
  expect(await cli('evacuate', 'lor1', '--for', '1h', '--stage', 'greetings-lor1', '--hold', '2h', '--dry-run')).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED: badStages — stage 2 \(rest\) would start at \S+, not before it returns at/) });
  expect(await cli('evacuate', 'lor1', '--for', '1h', '--stage', 'greetings-lor1', '--hold', '2h')).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(evacuate fabric lor1\): badStages — stage 2 \(rest\)[^]*nothing was sent/) });
  // A restore gap that carries the first stage's return past the maximum window (72 h): judged, never sent.
  expect(await cli('evacuate', 'lor1', '--for', '72h', '--stage', 'greetings-lor1', '--restore-gap', '24h')).toMatchObject({ code: 1, stdout: expect.stringMatching(/REJECTED \(evacuate fabric lor1\): windowTooLong — stage 1 would return at \S+, 24h after the end [^]*nothing was sent/) });
  expect(await cli('restore')).toMatchObject({ code: 2, stderr: expect.stringMatching(/a cluster .* or a fabric/) });
  expect(await cli('restore', 'greetings-lor1', '--fabric', 'lor1')).toMatchObject({ code: 2, stderr: expect.stringMatching(/either a cluster or --fabric/) });
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});
