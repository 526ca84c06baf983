/**
 * Issue 24, item 6: `failout ramp hold|resume|advance` and `failout amend` through the CLI in-process
 * (run(argv, io)) against fauxqs and the shared ZooKeeper, with the real handler behind a poller:
 * each sends one request on the cluster's path, `--wait` prints its outcome, `failout status` shows a
 * held ramp, and what the worker would refuse is refused before anything is sent.
 */
import { useCliQueueTestbed } from '../../helpers/cli';
import { queueDepth, realHandler, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed(['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']);
const cli = bed.cli;

const poll = (): void => void startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => realHandler(bed.session, bed.paths) });

it('holds a ramp, shows it held in status, advances and resumes it', async () => {
  poll();
  expect((await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--ramp', '20%:10m,60%:10m,100%', '--wait')).code).toBe(0);
  const hold = await cli('ramp', 'hold', 'greetings-lor1', '--reason', 'INC-4711 errors at 20%', '--wait');
  expect(hold).toMatchObject({ code: 0, stdout: expect.stringMatching(/request [0-9a-f-]+: applied \(rampHold greetings-lor1\)/) });
  const status = await cli('status', 'greetings-lor1');
  expect(status.stdout).toMatch(/ramp {5}held at 20% since \d{4}-\d\d-\d\dT[^ ]+Z \(.* ago by .*\); 60%, 100% held/);
  const json = JSON.parse((await cli('status', 'greetings-lor1', '--json')).stdout) as { clusters: { ramp: { held: { heldSharePcts: number[] } } }[] };
  expect(json.clusters[0]!.ramp.held.heldSharePcts).toEqual([60, 100]);
  expect((await cli('ramp', 'advance', 'greetings-lor1', '--wait')).stdout).toMatch(/applied \(rampAdvance greetings-lor1\)/);
  expect((await cli('status', 'greetings-lor1')).stdout).toMatch(/held at 60% since .*; 100% held/);
  expect((await cli('ramp', 'resume', 'greetings-lor1', '--wait')).stdout).toMatch(/applied \(rampResume greetings-lor1\)/);
  expect((await cli('status', 'greetings-lor1')).stdout).toMatch(/ramp {5}step 2 of 3: 60% of traffic moved; next 100% at/);
});

it('amends the stop alarms of a running failout', async () => {
  poll();
  expect((await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '1h', '--stop-alarm', 'old-alarm', '--wait')).code).toBe(0);
  const amend = await cli('amend', 'greetings-lor1', '--stop-alarm', 'lva1-errors', '--remove-stop-alarm', 'old-alarm', '--wait');
  expect(amend).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(amend greetings-lor1\)/) });
  expect((await cli('status', 'greetings-lor1')).stdout).toMatch(/stops {4}when an alarm fires: lva1-errors\n/);
});

it.each([
  ['a hold of a cluster that is not failed out', ['ramp', 'hold', 'greetings-lor1'], /notFailedOut/],
  ['a resume of a ramp that is not held', ['ramp', 'resume', 'greetings-lor1'], /notFailedOut/],
  ['an amend of a cluster that is not failed out', ['amend', 'greetings-lor1', '--stop-alarm', 'a'], /notFailedOut/],
])('refuses %s before sending (exit 1)', async (_name, argv, message) => {
  const out = await cli(...argv);
  expect(out.code).toBe(1);
  expect(out.stdout + out.stderr).toMatch(message);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});

it.each([
  ['an amend with nothing to change', ['amend', 'greetings-lor1'], /say what to change/],
  ['an amend with an escape sequence in an alarm name', ['amend', 'greetings-lor1', '--stop-alarm', 'a\u001b[2J'], /badStopAlarm/],
  ['a hold of a path', ['ramp', 'hold', '../etc'], /badName/],
  ['an unknown ramp word', ['ramp', 'pause', 'greetings-lor1'], /unknown command 'pause'/],
])('refuses %s as a usage error (exit 2)', async (_name, argv, message) => {
  const out = await cli(...argv);
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(message);
});

it('refuses to advance a ramp onto a peer another forced failout has filled, and advances it with --force (recorded)', async () => {
  poll();
  expect((await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--ramp', '20%:10m,60%:10m,100%', '--wait')).code).toBe(0);
  expect((await cli('ramp', 'hold', 'greetings-lor1', '--wait')).code).toBe(0);
  expect((await cli('out', 'greetings-ltx1', '--peer', 'greetings-lva1', '--for', '1h', '--force', '--wait')).code).toBe(0);

  const refused = await cli('ramp', 'advance', 'greetings-lor1');
  const depthAfterRefusal = await queueDepth(bed.sqs.client, bed.queue.queueUrl);
  const forced = await cli('ramp', 'advance', 'greetings-lor1', '--force', '--reason', 'lva1 has room, checked by hand', '--wait');

  expect(refused.code).toBe(1);
  expect(refused.stdout).toMatch(/insufficientPeerCapacity — peer "greetings-lva1" would carry .* \(force overrides\)/);
  expect(depthAfterRefusal).toBe(0);
  expect(forced).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(rampAdvance greetings-lor1\)/) });
  expect((await cli('status', 'greetings-lor1')).stdout).toMatch(/held at 60% since .*; 100% held/);
  // An amend of the other failout moves no traffic: it is not refused for the load already there.
  const amend = await cli('amend', 'greetings-ltx1', '--stop-alarm', 'ltx1-errors', '--wait');
  expect(amend.stdout + amend.stderr).toMatch(/applied \(amend greetings-ltx1\)/);
});

it('amends the stop alarms of a forced failout whose peer also carries a held ramp (no traffic moves: not refused)', async () => {
  poll();
  expect((await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--ramp', '20%:10m,60%:10m,100%', '--wait')).code).toBe(0);
  expect((await cli('out', 'greetings-ltx1', '--peer', 'greetings-lva1', '--for', '1h', '--force', '--wait')).code).toBe(0);
  expect((await cli('ramp', 'hold', 'greetings-lor1', '--wait')).code).toBe(0);
  expect((await cli('ramp', 'advance', 'greetings-lor1', '--force', '--wait')).code).toBe(0);

  const amend = await cli('amend', 'greetings-ltx1', '--stop-alarm', 'ltx1-errors', '--wait');

  expect(amend.stdout + amend.stderr).toMatch(/applied \(amend greetings-ltx1\)/);
});
