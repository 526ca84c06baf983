/**
 * Issue 14 through the CLI, in-process against fauxqs and the shared ZooKeeper, with the real handler
 * behind a poller: what the worker can only reject is refused before it is sent; `--wait` finds the
 * outcome of a request the worker rejects for its size; text another operator put in ZooKeeper cannot
 * drive the terminal; and a record pruned after the retention is reported as pruned.
 */
import { newRequestId } from '../../../lib/requests';
import { digestAcl, OPEN_ACL } from '../../../lib/zk';
import { putService, serviceDoc } from '../../helpers/d2';
import { directHandler, type DirectHandler } from '../../helpers/requests-handler';
import { runCli, useCliQueueTestbed } from '../../helpers/cli';
import { queueDepth, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed();
const cli = bed.cli;

/** The C0 (but newline), DEL and C1 characters in `text`: what must never reach a terminal raw. */
function controls(text: string): string[] {
  return [...text].filter((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f')));
}

function startWorker(options: Parameters<typeof directHandler>[2] = {}): DirectHandler {
  const h = directHandler(bed.session, bed.paths, options);
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => h.handler });
  return h;
}


describe('the CLI checks with the worker’s rules before it sends', () => {
  it.each([
    ['a cluster that is a path', ['out', '../x', '--peer', 'greetings-lva1', '--for', '1h'], /badName.*cluster: "\.\.\/x"/],
    ['a peer that is the cluster', ['out', 'greetings-lor1', '--peer', 'greetings-lor1', '--for', '1h'], /peerIsCluster/],
    ['--for 3650d', ['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '3650d'], /windowTooLong/],
    ['--request-id ../../…', ['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--request-id', '../../etc/passwd'], /badName.*requestId/],
    ['--at before 1970', ['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--at', '1969-12-31T23:00:00Z', '--until', '+1h'], /badWindow.*before 1970/],
    ['an ESC sequence in --reason', ['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--reason', 'x\u001b[2J'], /reason: must not contain control characters/],
    ['a restore of a path', ['restore', '../x'], /badName/],
  ])('refuses %s with exit 2 and sends nothing', async (_, argv, message) => {
    const out = await cli(...argv);
    expect(out).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
    expect(out.stderr).toMatch(/nothing was sent/);
    expect(controls(out.stderr)).toEqual([]);
    expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
  });

  it('refuses what the worker would reject against the live state with exit 1, sending nothing', async () => {
    const text = await cli('out', 'greetings-lor1', '--peer', 'greetings-nowhere', '--for', '1h');
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/REJECTED \(failout greetings-lor1\): unknownPeer — .*\n {2}nothing was sent/);
    const json = await cli('restore', 'greetings-ghost', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ sent: false, rejection: { reason: 'unknownCluster' } });
    expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
  });
});

describe('--wait', () => {
  it('finds the outcome of a request the worker rejects for its size (its limit below the CLI’s)', async () => {
    startWorker({ limits: { maxBodyBytes: 600 } });
    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--reason', 'INC-'.repeat(100), '--wait', '--timeout', '20s');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/REJECTED \(failout greetings-lor1\): oversize — body is \d+ bytes; at most 600 are accepted/);
  });
});

describe('text from ZooKeeper', () => {
  it('cannot drive the terminal: status shows an ESC sequence and a C1 CSI as visible escapes, JSON keeps the text', async () => {
    const reason = 'INC-1\u001b[2J\u001b[Hgreetings-lor1  serving\u009b';
    const doc = {
      clusterName: 'greetings-lor1',
      failoutProperties: {
        failoutRedirectConfigs: [{ peer: 'greetings-lva1', weight: 1 }],
        failoutBucketConfigs: [{ offlineAt: Date.now() - 1000, onlineAt: Date.now() + 3_600_000, requestedBy: 'mallory', reason }],
      },
    };
    // Written past the worker, as anyone with write access to the node could.
    await bed.session.set(`${bed.paths.d2Base}/clusters/greetings-lor1`, Buffer.from(JSON.stringify(doc)));

    const text = await cli('status', 'greetings-lor1');
    expect(text.code).toBe(0);
    expect(controls(text.stdout)).toEqual([]);
    expect(text.stdout).toContain('mallory — INC-1\\u001b[2J\\u001b[Hgreetings-lor1  serving\\u009b');
    const json = await cli('status', 'greetings-lor1', '--json');
    expect(controls(json.stdout)).toEqual([]);
    expect(JSON.parse(json.stdout)).toMatchObject({ clusters: [{ windows: [{ reason }] }] });
  });

  it('cannot forge lines in drill list and drill history: a newline in a drill node is shown as \\n', async () => {
    const drillsPath = bed.paths.d2Base.replace(/\/d2$/, '/drills');
    const at = Date.now() - 60_000;
    const forged = 'lor1-errors; next never; no runs yet\nall-clear: greetings-lor1 → greetings-lva1×1, 100%';
    const node = {
      version: 1,
      definition: {
        name: 'weekly', cluster: 'greetings-lor1', peers: [{ cluster: 'greetings-lva1', weight: 1 }], buckets: { from: 0, to: 99 },
        durationMs: 60_000, every: 'rate(7 days)', outcomeAlarm: forged, blockingAlarms: [], blockedDates: [], blockedWindows: [], definedAt: at, requestId: 'r-1',
      },
      runs: [{ runId: 'drill-weekly-1', status: 'skipped', at, skipReason: 'blockingAlarm', detail: 'deploys\ndrill-weekly-0  PASSED  at 2026-01-01T00:00:00.000Z' }],
    };
    // Written past the worker, as anyone with write access to the drills could.
    await bed.session.create(`${drillsPath}/weekly`, Buffer.from(JSON.stringify(node)), { acl: OPEN_ACL, parents: true });
    const env = { ...bed.env, FAILOUT_DRILLS_PATH: drillsPath };

    const list = await runCli(env, 'drill', 'list');
    const history = await runCli(env, 'drill', 'history', 'weekly');

    expect(list.code).toBe(0);
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(list.stdout).toContain('lor1-errors; next never; no runs yet\\nall-clear');
    expect(history.code).toBe(0);
    // The drill's line and its one run's.
    expect(history.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(history.stdout).toContain('deploys\\ndrill-weekly-0');
  });
});

describe('a node in ZooKeeper that does not decode', () => {
  /** A drill node of `greetings-lor1` as the worker writes it. */
  function drillNode(name: string): Buffer {
    const at = Date.now() - 60_000;
    const definition = {
      name, cluster: 'greetings-lor1', peers: [{ cluster: 'greetings-lva1', weight: 1 }], buckets: { from: 0, to: 99 },
      durationMs: 60_000, every: 'rate(7 days)', outcomeAlarm: 'greetings-lor1-errors', blockingAlarms: [], blockedDates: [], blockedWindows: [], definedAt: at, requestId: `r-${name}`,
    };
    return Buffer.from(JSON.stringify({ version: 1, definition, runs: [] }));
  }

  it('is named by drill list (text and JSON) beside the drills that read, not left out unsaid', async () => {
    // Prepare: one good drill, one hand-edited into something no codec reads
    const drillsPath = bed.paths.d2Base.replace(/\/d2$/, '/drills');
    await bed.session.create(`${drillsPath}/weekly`, drillNode('weekly'), { acl: OPEN_ACL, parents: true });
    await bed.session.create(`${drillsPath}/monthly`, Buffer.from('{ "version": 1, "definition": \u001b[2J'), { acl: OPEN_ACL });
    const env = { ...bed.env, FAILOUT_DRILLS_PATH: drillsPath };

    // Act
    const text = await runCli(env, 'drill', 'list');
    const json = await runCli(env, 'drill', 'list', '--json');

    // Assess
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^weekly: greetings-lor1 → greetings-lva1×1/m);
    expect(text.stdout).toMatch(/^monthly: cannot be read: .*not JSON/m);
    expect(controls(text.stdout)).toEqual([]);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { drills: { name: string }[]; unreadable: { name: string; problem: string }[] };
    expect(listed.drills.map((d) => d.name)).toEqual(['weekly']);
    expect(listed.unreadable).toEqual([{ name: 'monthly', problem: expect.stringMatching(/not JSON/) }]);
  });

  it('is named by status as a warning when it is a drill, the clusters still shown', async () => {
    // Prepare
    const drillsPath = bed.paths.d2Base.replace(/\/d2$/, '/drills');
    await bed.session.create(`${drillsPath}/monthly`, Buffer.from('[]'), { acl: OPEN_ACL, parents: true });
    // And one the CLI's session may not read at all.
    await bed.session.create(`${drillsPath}/yearly`, drillNode('yearly'), { acl: [digestAcl('someone-else', 'not-the-cli')] });
    const env = { ...bed.env, FAILOUT_DRILLS_PATH: drillsPath };

    // Act
    const out = await runCli(env, 'status');
    const json = await runCli(env, 'status', '--json');

    // Assess
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^greetings-lor1 {2}serving/m);
    expect(out.stderr).toMatch(/warning: drill monthly cannot be read: /);
    expect(out.stderr).toMatch(/warning: drill yearly cannot be read: the node cannot be read: no READ permission/);
    expect(JSON.parse(json.stdout)).toMatchObject({ unreadableDrills: [{ name: 'monthly', problem: expect.stringMatching(/malformed/) }, { name: 'yearly', problem: expect.stringMatching(/no READ permission/) }] });
  });

  it('is named by status when it is an evacuation (the worker treats it as open), text and JSON', async () => {
    // Prepare: an evacuation node of lor1 someone wrote past the worker
    const evacuationsPath = bed.paths.d2Base.replace(/\/d2$/, '/evacuations');
    await putService(bed.session, bed.paths.d2Base, serviceDoc('greetings', 'greetings-lor1'));
    await bed.session.create(`${evacuationsPath}/lor1`, Buffer.from('{"version":1,"fabric":"lor1"}'), { acl: OPEN_ACL, parents: true });
    const env = { ...bed.env, FAILOUT_EVACUATIONS_PATH: evacuationsPath, FAILOUT_FABRICS_PATH: bed.paths.d2Base.replace(/\/d2$/, '/fabrics') };

    // Act
    const text = await runCli(env, 'status');
    const one = await runCli(env, 'status', 'greetings-lor1');
    const json = await runCli(env, 'status', '--json');

    // Assess
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^fabric lor1: 1 cluster\n {2}evacuation of lor1 cannot be read: evacuation node is malformed: .*the worker treats it as open/m);
    expect(text.stdout).toMatch(/^greetings-lor1 {2}serving/m);
    expect(one.stdout).toMatch(/\n {2}fabric {3}evacuation of lor1 cannot be read: /);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ evacuations: [], unreadableEvacuations: [{ fabric: 'lor1', problem: expect.stringMatching(/malformed/) }] });
  });
});

describe('a cluster node the CLI may not read', () => {
  it('is shown as unreadable by status and fabric list (exit 0), not failing the listing of every other cluster', async () => {
    // Prepare: greetings-ltx1's node with an ACL that gives the CLI's session no READ
    await putService(bed.session, bed.paths.d2Base, serviceDoc('greetings', 'greetings-lor1'));
    await bed.session.create(`${bed.paths.d2Base}/clusters/greetings-ltx1`, Buffer.from('{"clusterName":"greetings-ltx1"}'), { acl: [digestAcl('someone-else', 'not-the-cli')] });
    const fabricsPath = bed.paths.d2Base.replace(/\/d2$/, '/fabrics');
    await bed.session.ensurePath(fabricsPath, OPEN_ACL);
    await bed.session.create(`${fabricsPath}/edge`, Buffer.from('{}'), { acl: [digestAcl('someone-else', 'not-the-cli')] });
    const env = { ...bed.env, FAILOUT_FABRICS_PATH: fabricsPath };

    // Act
    const all = await runCli(env, 'status');
    const one = await runCli(env, 'status', 'greetings-ltx1');
    const json = await runCli(env, 'status', '--json');
    const fabrics = await runCli(env, 'fabric', 'list', '--json');

    // Assess
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout).toMatch(/^greetings-lor1 {2}serving/m);
    expect(all.stdout).toMatch(/^greetings-lva1 {2}serving/m);
    expect(all.stdout).toMatch(/^greetings-ltx1 {2}MALFORMED.*\n {2}problem {2}the node cannot be read: no READ permission for this session/m);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/no READ permission/);
    expect((JSON.parse(json.stdout) as { clusters: { cluster: string; state: string }[] }).clusters.map((c) => [c.cluster, c.state])).toEqual([
      ['greetings-lor1', 'serving'],
      ['greetings-ltx1', 'malformed'],
      ['greetings-lva1', 'serving'],
    ]);
    expect(fabrics.code).toBe(0);
    expect(JSON.parse(fabrics.stdout)).toMatchObject({ fabrics: [{ name: 'lor1' }, { name: 'ltx1' }, { name: 'lva1' }], brokenMaps: [{ fabric: 'edge', problem: expect.stringMatching(/no READ permission/) }] });
  });
});

describe('fabric data the CLI may not read', () => {
  it('names an evacuation node it may not read as one that cannot be read, every cluster still shown', async () => {
    // Prepare
    const evacuationsPath = bed.paths.d2Base.replace(/\/d2$/, '/evacuations');
    await bed.session.ensurePath(evacuationsPath, OPEN_ACL);
    await bed.session.create(`${evacuationsPath}/lor1`, Buffer.from('{}'), { acl: [digestAcl('someone-else', 'not-the-cli')] });
    const env = { ...bed.env, FAILOUT_EVACUATIONS_PATH: evacuationsPath };

    // Act
    const out = await runCli(env, 'status');

    // Assess
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toMatch(/^evacuation of lor1 cannot be read: the node cannot be read: no READ permission for this session/m);
    expect(out.stdout).toMatch(/^greetings-lor1 {2}serving/m);
  });

  it('leaves status showing every cluster when the fabric maps cannot be listed, with a warning that says why', async () => {
    // Prepare: the maps' directory itself gives the CLI no READ
    const fabricsPath = bed.paths.d2Base.replace(/\/d2$/, '/fabrics');
    await bed.session.create(fabricsPath, Buffer.from(''), { acl: [digestAcl('someone-else', 'not-the-cli')], parents: true });
    const env = { ...bed.env, FAILOUT_FABRICS_PATH: fabricsPath };

    // Act
    const out = await runCli(env, 'status');

    // Assess
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^greetings-lor1 {2}serving/m);
    expect(out.stderr).toMatch(/^warning: clusters not grouped by fabric, evacuations not shown: no READ permission for this session on .*\/fabrics/m);
  });
});

describe('failout request after the retention', () => {
  it('says pruned for a request whose record the worker pruned, and absent for an unknown id', async () => {
    const worker = startWorker({ retention: { retentionMs: 1000, intervalMs: 1000 } });
    const sent = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--wait', '--json');
    expect(sent.code).toBe(0);
    const { requestId } = JSON.parse(sent.stdout) as { requestId: string };
    expect((await cli('request', requestId)).code).toBe(0);

    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(worker.writer.sweepIfDue()).resolves.toMatchObject({ deleted: 1, complete: true });

    const pruned = await cli('request', requestId);
    expect(pruned.code).toBe(1);
    expect(pruned.stdout).toMatch(new RegExp(`^request ${requestId}: pruned — it was made at \\S+, and records older than 1s are removed`));
    expect(JSON.parse((await cli('request', requestId, '--json')).stdout)).toMatchObject({ requestId, outcome: null, pruned: true, pruneMark: { retentionMs: 1000 } });
    const unknown = await cli('request', newRequestId(Date.now()));
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/no record of request .* yet.*records are kept 1s/) });
  });
});
