/**
 * Issue 21: the alarm-state port tells an alarm the source does not know (`unknown`) from one without
 * data (`INSUFFICIENT_DATA`), through both implementations: the HTTP evaluator's list and CloudWatch
 * DescribeAlarms (the real SDK client against a loopback endpoint speaking its protocol). `states()`
 * keeps the old answer (`unknown` as `INSUFFICIENT_DATA`) for the "is it firing?" callers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { AlarmStatesError, HttpAlarmStates, statesOf } from '../../../lib/alarms';
import { CloudWatchAlarmStates } from '../../../lib/alarms/cloudwatch';
import { startFakeCloudWatch, type FakeCloudWatch } from '../../helpers/alarm-sources';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

describe('HttpAlarmStates', () => {
  let server: Server;
  let body = '';
  let url = '';

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alarms`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads a name the server does not list as unknown, and one it lists without data as INSUFFICIENT_DATA', async () => {
    // Prepare
    body = JSON.stringify({ alarms: [{ name: 'x-errors', state: 'ALARM' }, { name: 'y-errors', state: 'INSUFFICIENT_DATA' }] });
    const source = new HttpAlarmStates(url);

    // Act
    const readings = await source.read(['x-errors', 'y-errors', 'z-errors']);
    const states = await source.states(['x-errors', 'y-errors', 'z-errors']);

    // Assess
    expect(Object.fromEntries(readings)).toEqual({ 'x-errors': 'ALARM', 'y-errors': 'INSUFFICIENT_DATA', 'z-errors': 'unknown' });
    expect(Object.fromEntries(states)).toEqual({ 'x-errors': 'ALARM', 'y-errors': 'INSUFFICIENT_DATA', 'z-errors': 'INSUFFICIENT_DATA' });
  });

  it.each([
    ['an answer in another shape', () => JSON.stringify({ alarms: [{ name: 'x', state: 'RED' }] }), 'alarmStatesMalformed'],
    ['an unreachable server', undefined, 'alarmStatesUnavailable'],
  ] as const)('reports %s as AlarmStatesError of kind %s', async (_what, makeBody, kind) => {
    // Prepare
    if (makeBody) body = makeBody();
    const source = new HttpAlarmStates(makeBody ? url : 'http://127.0.0.1:1/alarms', 500);

    // Act
    const read = source.read(['x']);

    // Assess
    await expect(read).rejects.toBeInstanceOf(AlarmStatesError);
    await expect(read).rejects.toMatchObject({ kind });
  });
});

describe('CloudWatchAlarmStates', () => {
  let cloudwatch: FakeCloudWatch;
  let client: CloudWatchClient;

  beforeAll(async () => {
    cloudwatch = await startFakeCloudWatch();
    client = new CloudWatchClient({ endpoint: cloudwatch.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  });
  afterAll(async () => {
    client.destroy();
    await cloudwatch.close();
  });

  it('reads an alarm DescribeAlarms does not return as unknown (the real SDK client, its protocol on loopback)', async () => {
    // Prepare
    cloudwatch.fail(undefined);
    cloudwatch.set('lva1-errors', 'ALARM');
    cloudwatch.set('lva1-latency', 'INSUFFICIENT_DATA');

    // Act
    const readings = await new CloudWatchAlarmStates(client).read(['lva1-errors', 'lva1-latency', 'lva1-errros']);

    // Assess
    expect(Object.fromEntries(readings)).toEqual({ 'lva1-errors': 'ALARM', 'lva1-latency': 'INSUFFICIENT_DATA', 'lva1-errros': 'unknown' });
    expect(cloudwatch.calls.at(-1)).toEqual(['lva1-errors', 'lva1-latency', 'lva1-errros']);
  });

  it('reports a refused call as AlarmStatesError without the access key id the error quotes', async () => {
    // Prepare
    cloudwatch.fail({ type: 'AccessDeniedException', message: 'User with key AKIAIOSFODNN7EXAMPLE is not authorized to perform cloudwatch:DescribeAlarms' });

    // Act
    const read = new CloudWatchAlarmStates(client).read(['a']);

    // Assess
    await expect(read).rejects.toMatchObject({ name: 'AlarmStatesError', kind: 'alarmStatesUnavailable', message: expect.stringMatching(/^CloudWatch DescribeAlarms failed: .*not authorized/) });
    await expect(read).rejects.not.toMatchObject({ message: expect.stringContaining('AKIA') });
    cloudwatch.fail(undefined);
  });
});

it('statesOf reads unknown as INSUFFICIENT_DATA and keeps every other state', () => {
  // Act
  const states = statesOf(new Map([['a', 'unknown'], ['b', 'ALARM'], ['c', 'OK']] as const));

  // Assess
  expect(Object.fromEntries(states)).toEqual({ a: 'INSUFFICIENT_DATA', b: 'ALARM', c: 'OK' });
});
