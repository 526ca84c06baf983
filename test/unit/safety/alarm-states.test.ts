import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { AlarmStatesError, CloudWatchAlarmStates, HttpAlarmStates, alarmStatesFromEnv } from '../../../lib/safety';

describe('CloudWatchAlarmStates', () => {
  it('maps metric and composite alarms by name, unknown names to INSUFFICIENT_DATA, in batches of 100', async () => {
    const calls: string[][] = [];
    const client = {
      send: async (command: { input: { AlarmNames: string[] } }) => {
        calls.push(command.input.AlarmNames);
        return { MetricAlarms: [{ AlarmName: 'a', StateValue: 'ALARM' }], CompositeAlarms: [{ AlarmName: 'c', StateValue: 'OK' }] };
      },
    } as unknown as Pick<CloudWatchClient, 'send'>;
    const names = ['a', 'c', 'missing', ...Array.from({ length: 100 }, (_, i) => `n${i}`)];

    const states = await new CloudWatchAlarmStates(client).states(names);

    expect([states.get('a'), states.get('c'), states.get('missing'), states.size]).toEqual(['ALARM', 'OK', 'INSUFFICIENT_DATA', 103]);
    expect(calls.map((c) => c.length)).toEqual([100, 3]);
  });

  it('reports a failed DescribeAlarms as AlarmStatesError', async () => {
    const client = { send: async () => Promise.reject(new Error('AccessDenied')) } as unknown as Pick<CloudWatchClient, 'send'>;
    await expect(new CloudWatchAlarmStates(client).states(['a'])).rejects.toThrow(AlarmStatesError);
  });
});

describe('HttpAlarmStates', () => {
  let server: Server;
  let body = '';
  let url = '';
  let requests = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alarms`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads the contract shape, unknown names INSUFFICIENT_DATA', async () => {
    body = JSON.stringify({ alarms: [{ name: 'x-errors', state: 'ALARM', since: 1 }] });
    const states = await new HttpAlarmStates(url).states(['x-errors', 'y-errors']);
    expect(Object.fromEntries(states)).toEqual({ 'x-errors': 'ALARM', 'y-errors': 'INSUFFICIENT_DATA' });
  });

  it.each([
    ['not JSON', 'nope'],
    ['a bad state', JSON.stringify({ alarms: [{ name: 'x', state: 'RED' }] })],
    ['no list', JSON.stringify({})],
  ])('refuses %s with AlarmStatesError', async (_what, text) => {
    body = text;
    await expect(new HttpAlarmStates(url).states(['x'])).rejects.toThrow(AlarmStatesError);
  });

  it('never sends nor quotes the credentials of a URL with user:password (fetch quotes them in its refusal): the error shows *** and has no cause', async () => {
    // Prepare
    body = JSON.stringify({ alarms: [{ name: 'x', state: 'OK' }] });
    const withCredentials = url.replace('http://', 'http://alice:s3cret-pw@');
    const before = requests;

    // Act
    const error = await new HttpAlarmStates(withCredentials).states(['x']).then(
      () => undefined,
      (err: unknown) => err,
    );

    // Assess
    expect(error).toBeInstanceOf(AlarmStatesError);
    expect(error).toMatchObject({ kind: 'alarmStatesUnavailable' });
    expect((error as Error).cause).toBeUndefined();
    expect((error as Error).message).toContain('http://***@127.0.0.1:');
    expect(`${(error as Error).message} ${(error as Error).stack ?? ''}`).not.toMatch(/s3cret-pw|alice/);
    expect(requests).toBe(before);
  });

  it('reports an unreachable server, and picks HTTP only when FAILOUT_ALARMS_URL is set', async () => {
    await expect(new HttpAlarmStates('http://127.0.0.1:1/alarms', 500).states(['x'])).rejects.toThrow(/could not read alarm states/);
    expect(alarmStatesFromEnv({ FAILOUT_ALARMS_URL: url })).toBeInstanceOf(HttpAlarmStates);
    expect(alarmStatesFromEnv({ AWS_REGION: 'eu-west-1' })).toBeInstanceOf(CloudWatchAlarmStates);
  });
});
