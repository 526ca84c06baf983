/**
 * Issue 16, stop conditions through the CLI in-process (run(argv, io)) against fauxqs and the shared
 * ZooKeeper, with the real worker handler behind a poller: `out --stop-alarm` is applied with the
 * names in every bucket config, `status` shows them, a bad name is refused before sending (exit 2),
 * and the guard's restore shows in `failout request`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { alarmStateChangeEvent, StopGuard } from '../../../lib/safety';
import { useCliQueueTestbed } from '../../helpers/cli';
import { queueDepth, readCluster, realHandler, startPollers } from '../../helpers/requests-queue';
import { eventually } from '../../helpers/zk';

const bed = useCliQueueTestbed();
const cli = bed.cli;

it('applies `out --stop-alarm` (repeated), status shows the alarms, and the guard’s restore reads back in `failout request`', async () => {
  // Prepare
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => realHandler(bed.session, bed.paths) });

  // Act
  const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--stop-alarm', 'lva1-errors', '--stop-alarm', 'lva1-latency', '--wait');
  const status = await cli('status', 'greetings-lor1');
  const json = JSON.parse((await cli('status', 'greetings-lor1', '--json')).stdout) as { clusters: { stopAlarms?: string[] }[] };
  const configs = ((await readCluster(bed.session, bed.paths, 'greetings-lor1')).json.failoutProperties as { failoutBucketConfigs: { stopAlarms?: string[] }[] }).failoutBucketConfigs;

  // Assess
  expect(out.code).toBe(0);
  expect(status.stdout).toContain('  stops    when an alarm fires: lva1-errors, lva1-latency');
  expect(json.clusters[0]?.stopAlarms).toEqual(['lva1-errors', 'lva1-latency']);
  expect(configs.map((c) => c.stopAlarms)).toEqual([['lva1-errors', 'lva1-latency']]);

  // Act: the guard stops it.
  const guard = new StopGuard({
    zk: bed.session,
    d2BasePath: bed.paths.d2Base,
    queueUrl: bed.queue.queueUrl,
    send: async (m) => ({ messageId: (await bed.sqs.client.send(new SendMessageCommand(m))).MessageId }),
    logger: new Logger({ serviceName: 'failout-guard-test', logLevel: 'SILENT' }),
  });
  const result = await guard.handle(alarmStateChangeEvent({ id: 'evt-cli', alarmName: 'lva1-latency', state: 'ALARM', previousState: 'OK', at: Date.now(), reason: 'test' }));
  if (result.outcome !== 'handled') throw new Error(result.outcome);
  const requestId = result.restores[0]!.requestId;
  await eventually(async () => (await cli('request', requestId)).code === 0, 10_000, 'the restore record');
  const record = await cli('request', requestId);

  // Assess
  expect(record.stdout).toMatch(new RegExp(`request ${requestId}: applied \\(restore greetings-lor1\\) at \\S+, cluster node version \\d+ — stopped by alarm lva1-latency`));
  expect((await cli('status', 'greetings-lor1')).stdout).toBe('greetings-lor1  serving\n');
});

it.each([
  ['given twice', ['x', 'x'], /badStopAlarm.*listed twice/],
  ['with a control character', ['bad\u001bname'], /badStopAlarm.*control characters/],
  ['of 256 characters', ['a'.repeat(256)], /badStopAlarm.*at most 255/],
])('refuses a stop alarm %s with exit 2 and sends nothing', async (_name, names, message) => {
  // Act
  const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', ...names.flatMap((n) => ['--stop-alarm', n]));

  // Assess
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(message);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});
