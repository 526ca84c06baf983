/**
 * Issue 16, `failout extend` and the no-op restore through the CLI in-process (run(argv, io)) against
 * fauxqs and the shared ZooKeeper, with the real handler behind a poller.
 */
import { useCliQueueTestbed } from '../../helpers/cli';
import { queueDepth, realHandler, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed();
const cli = bed.cli;

it('extends the active failout with --for, and status shows the new end', async () => {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => realHandler(bed.session, bed.paths) });
  expect((await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--wait')).code).toBe(0);
  const extend = await cli('extend', 'greetings-lor1', '--for', '3h', '--wait');
  expect(extend).toMatchObject({ code: 0, stdout: expect.stringMatching(/request [0-9a-f-]+: applied \(extend greetings-lor1\)/) });
  const status = JSON.parse((await cli('status', 'greetings-lor1', '--json')).stdout) as { clusters: { windows: { onlineAt: string }[] }[] };
  const end = Date.parse(status.clusters[0]!.windows[0]!.onlineAt);
  expect(end - Date.now()).toBeGreaterThan(2.9 * 3_600_000);
});

it('refuses an extend of a cluster that is not failed out before sending (exit 1, notFailedOut)', async () => {
  const out = await cli('extend', 'greetings-lor1', '--for', '1h');
  expect(out.code).toBe(1);
  expect(out.stdout + out.stderr).toMatch(/notFailedOut/);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});

it.each([
  ['no end', ['extend', 'greetings-lor1'], /say the new end/],
  ['an end past the maximum window', ['extend', 'greetings-lor1', '--for', '100h'], /windowTooLong/],
  ['a bad duration', ['extend', 'greetings-lor1', '--for', 'soon'], /--for "soon" is not a duration/],
])('refuses an extend with %s as a usage error (exit 2)', async (_name, argv, message) => {
  const out = await cli(...argv);
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(message);
});

it('says a restored cluster was already serving when nothing was failed out', async () => {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => realHandler(bed.session, bed.paths) });
  const restore = await cli('restore', 'greetings-lor1', '--wait');
  expect(restore).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(restore greetings-lor1\).* — greetings-lor1 was already serving; nothing was written/) });
});
