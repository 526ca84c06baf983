/**
 * Issue 21: where the request worker reads the alarms requests name, from its environment —
 * CloudWatch when the CDK app sets `FAILOUT_ALARMS_CLOUDWATCH=1`, the local evaluator at
 * `FAILOUT_ALARMS_URL`, else nowhere — and the writer source refusing a CloudWatch configuration in a
 * process that has no CloudWatch client.
 */
import { HttpAlarmStates, type AlarmReader } from '../../../lib/alarms';
import { loadRequestsConfig } from '../../../lib/requests/config';
import { RequestError } from '../../../lib/requests/errors';
import { alarmReaderOf } from '../../../lib/requests/writer-source';

const BASE = { ZK_CONNECT: '127.0.0.1:2181' };

describe('loadRequestsConfig alarm source', () => {
  it.each([
    [{}, { source: 'none' }],
    [{ FAILOUT_ALARMS_CLOUDWATCH: '1' }, { source: 'cloudwatch' }],
    [{ FAILOUT_ALARMS_CLOUDWATCH: 'true' }, { source: 'cloudwatch' }],
    [{ FAILOUT_ALARMS_CLOUDWATCH: '0' }, { source: 'none' }],
    [{ FAILOUT_ALARMS_URL: ' http://127.0.0.1:4566/alarms ' }, { source: 'http', url: 'http://127.0.0.1:4566/alarms' }],
  ])('reads %j as %j', (env, expected) => {
    // Act
    const config = loadRequestsConfig({ ...BASE, ...env });

    // Assess
    expect(config.alarms).toEqual(expected);
  });

  it('refuses a FAILOUT_ALARMS_URL with user:password (never fetched, so its alarms would go unchecked for ever) without quoting it', () => {
    // Act
    let error: unknown;
    try {
      loadRequestsConfig({ ...BASE, FAILOUT_ALARMS_URL: 'http://alarms:s3cret-pw@127.0.0.1:4566/alarms' });
    } catch (e) {
      error = e;
    }

    // Assess
    expect(error).toMatchObject({ kind: 'invalidConfig', variable: 'FAILOUT_ALARMS_URL' });
    expect((error as Error).message).toMatch(/FAILOUT_ALARMS_URL must have no credentials/);
    expect((error as Error).message).not.toContain('s3cret-pw');
  });

  it.each([
    [{ FAILOUT_ALARMS_CLOUDWATCH: 'yes' }, 'FAILOUT_ALARMS_CLOUDWATCH', /FAILOUT_ALARMS_CLOUDWATCH must be 1 or 0/],
    [{ FAILOUT_ALARMS_URL: 'file:///etc/passwd' }, 'FAILOUT_ALARMS_URL', /FAILOUT_ALARMS_URL must be an http\(s\) URL/],
    [{ FAILOUT_ALARMS_URL: 'http://127.0.0.1:1/alarms', FAILOUT_ALARMS_CLOUDWATCH: '1' }, 'FAILOUT_ALARMS_URL', /two alarm sources/],
  ])('refuses %j naming %s', (env, variable, message) => {
    // Act
    const load = (): unknown => loadRequestsConfig({ ...BASE, ...env });

    // Assess
    expect(load).toThrow(RequestError);
    expect(load).toThrow(message);
    try {
      load();
    } catch (e) {
      expect(e).toMatchObject({ kind: 'invalidConfig', variable });
    }
  });
});

describe('alarmReaderOf', () => {
  const cloudWatch: AlarmReader = { read: async (names) => new Map(names.map((n) => [n, 'OK' as const])) };

  it('makes the HTTP reader, the given CloudWatch reader, or none', () => {
    // Act
    const http = alarmReaderOf({ source: 'http', url: 'http://127.0.0.1:1/alarms' }, undefined);
    const cw = alarmReaderOf({ source: 'cloudwatch' }, () => cloudWatch);
    const none = alarmReaderOf({ source: 'none' }, () => cloudWatch);

    // Assess
    expect(http).toBeInstanceOf(HttpAlarmStates);
    expect(cw).toBe(cloudWatch);
    expect(none).toBeUndefined();
  });

  it('refuses CloudWatch in a process without a CloudWatch client (invalidConfig, so the record is retried, never applied unchecked)', () => {
    // Act
    const make = (): unknown => alarmReaderOf({ source: 'cloudwatch' }, undefined);

    // Assess
    expect(make).toThrow(expect.objectContaining({ kind: 'invalidConfig', variable: 'FAILOUT_ALARMS_CLOUDWATCH' }));
  });
});
