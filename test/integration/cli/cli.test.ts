import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { FifoQueuePair } from '../../../lib/local/sqs';
import { sharedConnectString } from '../../helpers/zk';
import { runCli, type CliResult } from '../../helpers/cli';
import { newRequestId, requestRecordPath } from '../../../lib/requests';
import { OPEN_ACL } from '../../../lib/zk';
import { announceHosts, cliEnvFor, failoutBody, queueDepth, realHandler, seedClusters, send, startPollers, useQueueFixture } from '../../helpers/requests-queue';

// The CLI in-process through run(argv, io), against fauxqs and the shared ZooKeeper, with the real
// handler behind a poller, so --wait sees real outcomes. One test spawns the real bin.

let queue: FifoQueuePair;
let env: Record<string, string>;

function cli(...argv: string[]): Promise<CliResult> {
  return runCli(env, ...argv);
}

const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']);
  await seedClusters(session, paths, ['greetings-empty'], { hosts: false });
});
beforeEach(async () => {
  queue = await fx.sqs.createFifoQueuePair();
  env = cliEnvFor(fx, queue.queueUrl);
});

function startWorker(): void {
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
}

describe('failout out / restore', () => {
  it('sends a failout, waits for it to be applied, and status shows it; restore --wait ends it', async () => {
    startWorker();
    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1:2', '--peer', 'greetings-ltx1', '--for', '2h', '--share', '50', '--reason', 'INC-4711', '--wait');
    expect(out).toMatchObject({ code: 0, stdout: expect.stringMatching(/request [0-9a-f-]+: applied \(failout greetings-lor1\)/) });

    const status = await cli('status', 'greetings-lor1');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('greetings-lor1  FAILED OUT');
    expect(status.stdout).toContain('greetings-lva1 (weight 2, 67%), greetings-ltx1 (weight 1, 33%)');
    expect(status.stdout).toContain('50% of traffic (buckets 0-49)');
    expect(status.stdout).toContain('oncall@example.com — INC-4711');

    const restore = await cli('restore', 'greetings-lor1', '--wait', '--json');
    expect(restore.code).toBe(0);
    expect(JSON.parse(restore.stdout)).toMatchObject({ sent: true, outcome: { status: 'applied', action: 'restore', cluster: 'greetings-lor1' } });
    expect((await cli('status', 'greetings-lor1')).stdout).toBe('greetings-lor1  serving\n');
  });

  it('prints the request id without --wait, and `request <id>` shows the outcome once applied', async () => {
    const sent = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--until', '+1h', '--json');
    expect(sent.code).toBe(0);
    const { requestId, request } = JSON.parse(sent.stdout) as { requestId: string; request: Record<string, unknown> };
    expect(request).toMatchObject({ version: 1, action: 'failout', cluster: 'greetings-lor1', requestedBy: 'oncall@example.com' });

    const before = await cli('request', requestId);
    expect(before).toMatchObject({ code: 1, stderr: expect.stringContaining(`no record of request ${requestId} yet`) });
    startWorker();
    for (let i = 0; i < 50 && (await cli('request', requestId)).code !== 0; i++) await new Promise((r) => setTimeout(r, 100));
    const record = await cli('request', requestId, '--json');
    expect(record.code).toBe(0);
    expect(JSON.parse(record.stdout)).toMatchObject({ requestId, status: 'applied', cluster: 'greetings-lor1', action: 'failout' });
  });

  it('exits 1 with the reason and what to do when the request would be rejected (judged before it is sent, issue 14)', async () => {
    startWorker();
    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-nowhere', '--for', '1h', '--wait');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/REJECTED \(failout greetings-lor1\): unknownPeer/);
    expect(out.stdout).toMatch(/fix the request and send it again/);
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
  });

  it('validates with --dry-run against the live state and sends nothing', async () => {
    const ok = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--dry-run');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/would be applied; nothing was sent/);
    expect(ok.stdout).toContain('greetings-lor1  FAILED OUT');

    const rejected = await cli('out', 'greetings-lor1', '--peer', 'greetings-empty', '--for', '2h', '--dry-run', '--json');
    expect(rejected.code).toBe(1);
    expect(JSON.parse(rejected.stdout)).toMatchObject({ dryRun: true, ok: false, rejection: { reason: 'noPeerWithHosts' } });
    const forced = await cli('out', 'greetings-lor1', '--peer', 'greetings-empty', '--for', '2h', '--dry-run', '--force');
    expect(forced.code).toBe(0);
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
  });

  it('prints the peer load projection with --dry-run, rejects a failout that would triple a peer, and --force or a higher limit passes it', async () => {
    // Prepare: greetings-lor1 gets 2 hosts; greetings-lva1 has 1 (all of lor1 would triple it).
    await announceHosts(fx.session, fx.paths, 'greetings-lor1', 2);

    // Act
    const fits = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--share', '50', '--dry-run');
    const over = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--dry-run', '--json');
    const forced = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--dry-run', '--force');
    env = { ...env, MAX_PEER_LOAD_FACTOR: '3' };
    const raised = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--dry-run');

    // Assess
    expect(fits.code).toBe(0);
    expect(fits.stdout).toContain("peer load projection (from host counts; 1 hosts' load moves, limit ×2):\n  greetings-lva1: 1 hosts, +1 hosts' load → ×2\n");
    expect(over.code).toBe(1);
    expect(JSON.parse(over.stdout)).toMatchObject({
      dryRun: true,
      ok: false,
      rejection: { reason: 'insufficientPeerCapacity', message: expect.stringContaining('"greetings-lva1" would carry 3× its load per host') },
    });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("greetings-lva1: 1 hosts, +2 hosts' load → ×3 OVER THE LIMIT (forced)");
    expect(raised.code).toBe(0);
    expect(raised.stdout).toContain("limit ×3):\n  greetings-lva1: 1 hosts, +2 hosts' load → ×3\n");
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
  });

  it("stops --wait at once when the request's record cannot be read (a hand edit), saying so, exit 1", async () => {
    // Prepare: the record of the request id is there but is not JSON; the worker acknowledges the delivery as a duplicate
    startWorker();
    const requestId = newRequestId(Date.now());
    await fx.session.create(requestRecordPath(fx.paths.requestsPath, requestId), Buffer.from('{not json'), { parents: true, acl: OPEN_ACL });
    const started = Date.now();

    // Act
    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--request-id', requestId, '--wait', '--timeout', '30s');

    // Assess: no wait to the timeout; the message names the record and why, and the worker's handling
    expect(out.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out.stderr).toMatch(new RegExp(`record of request ${requestId} under .* cannot be read \\(request record is not JSON\\)`));
    expect(out.stderr).toContain('acknowledged as a duplicate');
    expect(out.stderr).not.toMatch(/no outcome for request/);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it('answers a --request-id that has a record already from that record, as a duplicate: no judgement of the new body, nothing sent (dry run too)', async () => {
    // Prepare: rr-1 failed out greetings-lor1 and was applied; then lor1 was restored
    startWorker();
    expect((await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '30m', '--request-id', 'rr-1', '--wait')).code).toBe(0);
    expect((await cli('restore', 'greetings-lor1', '--wait')).code).toBe(0);

    // Act: the id again, on another cluster's failout (and as a dry run), then the same request again
    const other = await cli('out', 'greetings-ltx1', '--peer', 'greetings-lva1', '--for', '2h', '--share', '20', '--request-id', 'rr-1', '--wait');
    const dry = await cli('out', 'greetings-ltx1', '--peer', 'greetings-lva1', '--for', '2h', '--request-id', 'rr-1', '--dry-run', '--json');
    const same = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '30m', '--request-id', 'rr-1', '--wait');

    // Assess: never "sent", never "would be applied"; the record's outcome, named as a duplicate
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/request rr-1 has a record already: sending it again would be a duplicate, which changes nothing; nothing was sent/);
    expect(other.stdout).toMatch(/its record is of failout greetings-lor1, not of this failout greetings-ltx1/);
    expect(other.stdout).toMatch(/request rr-1: applied \(failout greetings-lor1\)/);
    expect(`${other.stdout}${other.stderr}`).not.toMatch(/sent request|waiting for the outcome/);
    expect(dry.code).toBe(1);
    expect(JSON.parse(dry.stdout)).toMatchObject({ requestId: 'rr-1', sent: false, duplicate: true, request: { cluster: 'greetings-ltx1' }, outcome: { status: 'applied', cluster: 'greetings-lor1' } });
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/request rr-1 has a record already: .*nothing was sent\nrequest rr-1: applied \(failout greetings-lor1\)/);
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
    expect((await cli('status', 'greetings-ltx1')).stdout).toBe('greetings-ltx1  serving\n');
    expect((await cli('status', 'greetings-lor1')).stdout).toBe('greetings-lor1  serving\n');
  });

  it('ends --wait at once with exit 1 when the record it finds cannot be read, text and --json', async () => {
    for (const [id, format] of [['ur-text', []], ['ur-json', ['--json']]] as const) {
      const started = Date.now();
      const waiting = cli('restore', 'greetings-lor1', '--request-id', id, '--wait', '--timeout', '20s', ...format);
      await new Promise((r) => setTimeout(r, 500));
      await fx.session.create(requestRecordPath(fx.paths.requestsPath, id), Buffer.from('not json'), { parents: true, acl: OPEN_ACL });
      const out = await waiting;
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(new RegExp(`the record of request ${id} under .* cannot be read`));
      expect(Date.now() - started).toBeLessThan(10_000);
      // The request was sent: a script still gets its one document (as at a timeout: no outcome), with why.
      if (format.length === 0) expect(out.stderr).toContain(`sent request ${id} (restore greetings-lor1); waiting for the outcome`);
      else expect(JSON.parse(out.stdout)).toMatchObject({ requestId: id, sent: true, request: { action: 'restore', cluster: 'greetings-lor1' }, outcome: null, error: expect.stringContaining('cannot be read') });
    }
  });

  it('refuses a --request-id whose record was pruned: the worker would apply it a second time, so nothing is sent', async () => {
    // Prepare: a sweep 30 days back left its mark; the id was made 40 days ago (a UUIDv7 carries its time)
    startWorker();
    const day = 86_400_000;
    const now = Date.now();
    await fx.session.create(`${fx.paths.requestsPath}/.prune-mark`, Buffer.from(JSON.stringify({ prunedBefore: now - 30 * day, retentionMs: 30 * day, sweptAt: now })), { parents: true, acl: OPEN_ACL });
    const old = newRequestId(now - 40 * day);

    // Act
    const text = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '30m', '--request-id', old, '--wait', '--timeout', '5s');
    const json = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '30m', '--request-id', old, '--json');

    // Assess: exit 1, says pruned and that nothing was sent; nothing queued, nothing applied
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`request ${old}: pruned`);
    expect(text.stdout).toMatch(/sending it again could apply it a second time; nothing was sent/);
    expect(`${text.stdout}${text.stderr}`).not.toMatch(/sent request/);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ requestId: old, sent: false, pruned: true, request: { cluster: 'greetings-lor1' }, outcome: null });
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
    expect((await cli('status', 'greetings-lor1')).stdout).toBe('greetings-lor1  serving\n');
  });

  it('times out --wait with exit 1 and tells how to follow up when no worker runs', async () => {
    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--wait', '--timeout', '1s');
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/no outcome for request .* after 1s.*failout request/s);
  });
});

describe('failout status', () => {
  it('lists every cluster, and --json gives the machine view', async () => {
    startWorker();
    const body = failoutBody('greetings-lor1', ['greetings-lva1'], { requestedBy: 'alice', reason: 'drill' });
    await send(fx.sqs.client, queue.queueUrl, body);
    for (let i = 0; i < 50 && (await cli('request', String(body.requestId))).code !== 0; i++) await new Promise((r) => setTimeout(r, 100));

    const all = await cli('status');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/greetings-empty {2}serving\n[\s\S]*greetings-lor1 {2}FAILED OUT[\s\S]*greetings-lva1 {2}serving/);
    const json = JSON.parse((await cli('status', '--json')).stdout) as { clusters: { cluster: string; state: string; windows: { requestedBy: string }[] }[] };
    expect(json.clusters.map((c) => [c.cluster, c.state])).toEqual([
      ['greetings-empty', 'serving'],
      ['greetings-lor1', 'failed-out'],
      ['greetings-ltx1', 'serving'],
      ['greetings-lva1', 'serving'],
    ]);
    expect(json.clusters[1]?.windows[0]?.requestedBy).toBe('alice');
  });

  it('lists no D2 symlink ($ node) as a cluster of its own: it holds a path, not a failout', async () => {
    for (const dir of ['clusters', 'uris']) await fx.session.create(`${fx.paths.d2Base}/${dir}/$greetingsMaster`, Buffer.from(`${fx.paths.d2Base}/${dir}/greetings-lva1`), { acl: OPEN_ACL });

    const all = await cli('status');
    const json = JSON.parse((await cli('status', '--json')).stdout) as { clusters: { cluster: string; state: string }[] };

    expect(all).toMatchObject({ code: 0 });
    expect(all.stdout).not.toContain('MALFORMED');
    expect(json.clusters.map((c) => c.cluster)).toEqual(['greetings-empty', 'greetings-lor1', 'greetings-ltx1', 'greetings-lva1']);
  });

  it('exits 1 for an unknown cluster and says how to find the names', async () => {
    const out = await cli('status', 'greetings-nope');
    expect(out).toMatchObject({ code: 1, stderr: expect.stringMatching(/no cluster greetings-nope .*\(failout status lists them all\)/) });
  });
});

describe('usage errors exit 2 and say what to do', () => {
  it.each([
    [['out', 'greetings-lor1', '--for', '1h'], /at least one --peer/],
    [['out', 'greetings-lor1', '--peer', 'x'], /--for <duration>/],
    [['out', 'greetings-lor1', '--peer', 'x:0', '--for', '1h'], /weight must be a positive integer/],
    [['out', 'greetings-lor1', '--peer', 'x', '--until', '2026-11-30T18:00:00'], /with a zone/],
    [['out'], /missing required argument 'cluster'/],
    [['frobnicate'], /unknown command/],
    [['request', '../etc'], /not a request id/],
  ])('%j', async (argv, message) => {
    const out = await cli(...argv);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it('exits 2 naming the variable when the queue or ZooKeeper is not configured', async () => {
    env = { FAILOUT_USER: 'x' };
    expect(await cli('restore', 'greetings-lor1')).toMatchObject({ code: 2, stderr: expect.stringContaining('set FAILOUT_QUEUE_URL or pass --queue-url') });
    expect(await cli('status')).toMatchObject({ code: 2, stderr: expect.stringContaining('set ZK_CONNECT or pass --zk') });
  });

  it('lets flags override the environment', async () => {
    const zk = sharedConnectString();
    env = { FAILOUT_USER: 'x', ZK_CONNECT: '127.0.0.1:1', D2_BASE_PATH: fx.paths.d2Base };
    expect((await cli('status', 'greetings-lor1', '--zk', zk)).code).toBe(0);
  });

  it('prints help with examples and exits 0', async () => {
    const help = await cli('out', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Examples:\n {2}failout out greetings-lor1 --peer/);
  });
});

it('never echoes the credentials of a queue URL when the send fails', async () => {
  env = { FAILOUT_USER: 'x', FAILOUT_QUEUE_URL: 'http://queue-user:s3cret-pw@127.0.0.1:1/000000000000/requests.fifo', SQS_ENDPOINT: 'http://127.0.0.1:1', AWS_REGION: 'us-east-1' };
  const out = await cli('restore', 'greetings-lor1');
  expect(out.code).toBe(1);
  expect(out.stderr).toContain('could not send the request to http://***@127.0.0.1:1/000000000000/requests.fifo');
  expect(out.stderr).not.toContain('s3cret-pw');
  expect(out.stdout).not.toContain('s3cret-pw');
});

it('takes --output json|table on every command with an answer, --json short for --output json', async () => {
  // Act
  const byFlag = await cli('status', 'greetings-lor1', '--json');
  const byOutput = await cli('status', 'greetings-lor1', '--output', 'json');
  const table = await cli('status', 'greetings-lor1', '--output', 'table');
  const unknown = await cli('status', 'greetings-lor1', '--output', 'yaml');
  const both = await cli('status', 'greetings-lor1', '--json', '--output', 'table');

  // Assess
  expect(byOutput.code).toBe(0);
  expect((JSON.parse(byOutput.stdout) as { clusters: unknown }).clusters).toEqual((JSON.parse(byFlag.stdout) as { clusters: unknown }).clusters);
  expect(table.code).toBe(0);
  expect(() => JSON.parse(table.stdout)).toThrow();
  expect(table.stdout).toContain('greetings-lor1');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('Allowed choices are table, json');
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('pass one');
});

// The bundle of this entry point is what `npm install -g` installs (test/e2e/cli-install.test.ts).
it('runs as a process through its composition root (functions/failout-cli/main.ts)', async () => {
  const main = join(__dirname, '../../../functions/failout-cli/main.ts');
  const result = await new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', main, 'status', 'greetings-lor1', '--json'], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ clusters: [{ cluster: 'greetings-lor1', state: 'serving' }] });
});

it('finishes quietly with its own exit code when its reader closes stdout early (failout status --json | head -c 1)', async () => {
  const main = join(__dirname, '../../../functions/failout-cli/main.ts');
  const result = await new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', main, 'status', '--json'], { env: { ...process.env, ...env } });
    // The reader is gone before the command prints: every write to stdout fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout: '', stderr }));
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
});
