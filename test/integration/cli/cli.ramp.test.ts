/**
 * Issue 16, ramps through the CLI in-process (run(argv, io)) against fauxqs and the shared ZooKeeper,
 * with the real handler behind a poller: `out --ramp` is applied as one request, `status` shows the
 * current step and the next, a bad ramp is refused before sending (exit 2), `restore` ends the ramp.
 */
import { useCliQueueTestbed } from '../../helpers/cli';
import { queueDepth, realHandler, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed();
const cli = bed.cli;

it('applies `out --ramp` within the --share range, status shows the step and the next, restore ends it', async () => {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => realHandler(bed.session, bed.paths) });
  const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--share', '50', '--ramp', '20%:5m,100%', '--wait');
  expect(out).toMatchObject({ code: 0, stdout: expect.stringMatching(/request [0-9a-f-]+: applied \(failout greetings-lor1\)/) });

  const status = await cli('status', 'greetings-lor1');
  expect(status.code).toBe(0);
  expect(status.stdout).toContain('greetings-lor1  FAILED OUT');
  expect(status.stdout).toContain('10% of traffic (buckets 0-9)');
  expect(status.stdout).toContain('40% of traffic (buckets 10-49)');
  expect(status.stdout).toMatch(/ramp {5}step 1 of 2: 10% of traffic moved; next 50% at \S+Z \(in [45]m/);
  const json = JSON.parse((await cli('status', 'greetings-lor1', '--json')).stdout) as { clusters: { ramp?: unknown }[] };
  expect(json.clusters[0]?.ramp).toMatchObject({ step: 1, steps: 2, sharePct: 10, nextSharePct: 50 });

  expect((await cli('restore', 'greetings-lor1', '--wait')).code).toBe(0);
  expect((await cli('status', 'greetings-lor1')).stdout).toBe('greetings-lor1  serving\n');
});

it.each([
  ['that does not end at 100%', '10%:5m,50%', /badRamp.*the last step must be 100%/],
  ['longer than the window', '10%:90m,50%:90m,100%', /badRamp.*not before the window ends/],
  ['with a step that is no percentage', 'half:5m,100%', /--ramp .*is not <pct>%\[:<duration>\]/],
])('refuses a ramp %s with exit 2 and sends nothing', async (_name, ramp, message) => {
  const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--ramp', ramp);
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(message);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});
