/**
 * Issue 21 through the CLI in-process (run(argv, io)) against fauxqs and the shared ZooKeeper, with the
 * real handler behind a poller: the dry run judges against every open failout as the worker does,
 * `--force` is recorded and shown, and `failout zk check|reindex` keep the view honest.
 */
import { viewPathFor } from '../../../lib/requests';
import { useCliQueueTestbed } from '../../helpers/cli';
import { queueDepth, realHandler, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed(['x', 'a', 'b']);
const cli = bed.cli;

function pollers(): void {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => realHandler(bed.session, bed.paths) });
}

it("refuses, before sending, a failout of another failout's only peer, naming it; with --force applies it and shows what force overrode", async () => {
  pollers();
  expect((await cli('out', 'x', '--peer', 'a', '--for', '1h', '--wait')).code).toBe(0);

  const dry = await cli('out', 'a', '--peer', 'b', '--for', '1h', '--dry-run');
  expect(dry.code).toBe(1);
  expect(dry.stdout).toMatch(/REJECTED: strandsFailout — strands the failout of "x"/);
  const refused = await cli('out', 'a', '--peer', 'b', '--for', '1h');
  expect(refused.code).toBe(1);
  expect(refused.stdout + refused.stderr).toMatch(/strandsFailout/);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);

  const forcedDry = await cli('out', 'a', '--peer', 'b', '--for', '1h', '--force', '--dry-run');
  expect(forcedDry).toMatchObject({ code: 0, stdout: expect.stringContaining('force overrode stranding another failout') });
  const forced = await cli('out', 'a', '--peer', 'b', '--for', '1h', '--force', '--wait');
  expect(forced).toMatchObject({ code: 0, stdout: expect.stringContaining('forced: force overrode stranding another failout') });
  const id = /request ([0-9a-f-]+): applied/.exec(forced.stdout)?.[1];

  const status = await cli('status', 'a');
  expect(status.stdout).toMatch(/forced +force overrode stranding another failout/);
  const json = JSON.parse((await cli('status', 'a', '--json')).stdout) as { clusters: { forced?: string[]; windows: { forced?: string[] }[] }[] };
  expect(json.clusters[0]).toMatchObject({ forced: ['stranding'], windows: [{ forced: ['stranding'] }] });
  const record = JSON.parse((await cli('request', String(id), '--json')).stdout) as { forced?: string[] };
  expect(record.forced).toEqual(['stranding']);
});

it('says what --force overrides in its help', async () => {
  const help = await cli('out', '--help');
  const text = help.stdout.replace(/\s+/g, ' ');
  expect(text).toContain('--force override the peer-state checks (peer failed out, peer without hosts), the capacity guard, and stranding another failout');
});

it('zk check reports a view that disagrees with the cluster nodes, and zk reindex rebuilds it', async () => {
  pollers();
  expect((await cli('out', 'x', '--peer', 'a', '--for', '1h', '--wait')).code).toBe(0);
  await bed.session.set(viewPathFor(bed.paths.requestsPath), Buffer.from('{"version":1,"clusters":{}}'));

  const check = JSON.parse((await cli('zk', 'check', '--json')).stdout) as { view: { drift: { cluster: string; kind: string }[] }; passed: boolean };
  expect(check.view.drift).toEqual([{ cluster: 'x', kind: 'missing' }]);
  expect(check.passed).toBe(false);
  expect((await cli('zk', 'check')).stdout).toMatch(/view +x: has an open failout the view lacks/);

  const reindex = await cli('zk', 'reindex');
  expect(reindex).toMatchObject({ code: 0, stdout: expect.stringMatching(/rewrote .*view: 1 open failout\(s\) \(x\)/) });
  const after = JSON.parse((await cli('zk', 'check', '--json')).stdout) as { view: { drift: unknown[] } };
  expect(after.view.drift).toEqual([]);
});
