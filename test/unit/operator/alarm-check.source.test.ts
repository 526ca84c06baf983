/**
 * Issue 21: where `failout out` (and `drill put`) read the alarms a request names before sending:
 * `--alarms-url` / `FAILOUT_ALARMS_URL` over HTTP, `--cloudwatch-alarms` / `FAILOUT_ALARMS_CLOUDWATCH=1`
 * from CloudWatch, else nowhere (the CLI then says it could not check them).
 */
import { HttpAlarmStates } from '../../../lib/alarms';
import { CloudWatchAlarmStates } from '../../../lib/alarms/cloudwatch';
import { resolveAlarmSource, type AlarmSourceFlags, OperatorError } from '../../../lib/operator';

describe('resolveAlarmSource', () => {
  it.each([
    [{}, { FAILOUT_ALARMS_URL: 'http://127.0.0.1:8/alarms' }, HttpAlarmStates, 'http://127.0.0.1:8/alarms'],
    [{ alarmsUrl: 'http://127.0.0.1:9/alarms' }, { FAILOUT_ALARMS_URL: 'http://127.0.0.1:8/alarms' }, HttpAlarmStates, 'http://127.0.0.1:9/alarms'],
    [{ cloudwatchAlarms: true }, { FAILOUT_ALARMS_URL: 'http://127.0.0.1:8/alarms', AWS_REGION: 'eu-west-1' }, CloudWatchAlarmStates, 'CloudWatch DescribeAlarms in eu-west-1'],
    [{}, { FAILOUT_ALARMS_CLOUDWATCH: '1' }, CloudWatchAlarmStates, 'CloudWatch DescribeAlarms'],
    [{}, { FAILOUT_ALARMS_URL: 'http://127.0.0.1:8/alarms', FAILOUT_ALARMS_CLOUDWATCH: '1' }, HttpAlarmStates, 'http://127.0.0.1:8/alarms'],
  ] as const)('flags %j over environment %j: %p, %s', (flags, env, type, label) => {
    // Act
    const source = resolveAlarmSource(flags as AlarmSourceFlags, env);

    // Assess
    expect(source?.reader).toBeInstanceOf(type);
    expect(source?.label).toBe(label);
  });

  it.each([[{}], [{ FAILOUT_ALARMS_CLOUDWATCH: '0' }], [{ FAILOUT_ALARMS_URL: ' ', FAILOUT_ALARMS_CLOUDWATCH: '' }]])('has no source with %j', (env) => {
    // Act
    const source = resolveAlarmSource({}, env);

    // Assess
    expect(source).toBeUndefined();
  });

  it.each([
    [{ alarmsUrl: 'http://127.0.0.1:9/alarms', cloudwatchAlarms: true }, {}, /two sources/],
    [{}, { FAILOUT_ALARMS_URL: 'nope' }, /FAILOUT_ALARMS_URL: "nope" is not a URL/],
    [{ alarmsUrl: 'ftp://127.0.0.1/alarms' }, {}, /--alarms-url: .* is not an http\(s\) URL/],
    [{ alarmsUrl: 'http://user:secret@127.0.0.1/alarms' }, {}, /--alarms-url: put no credentials in a URL/],
    [{}, { FAILOUT_ALARMS_CLOUDWATCH: 'yes' }, /FAILOUT_ALARMS_CLOUDWATCH: "yes" is not 1 or 0/],
  ])('refuses flags %j with environment %j as a usage error', (flags, env, message) => {
    // Act
    const resolve = (): unknown => resolveAlarmSource(flags, env);

    // Assess
    expect(resolve).toThrow(OperatorError);
    expect(resolve).toThrow(message);
  });

  it.each([
    [{ alarmsUrl: 'ftp://alarms:s3cret-pw@127.0.0.1/alarms' }, {}],
    [{}, { FAILOUT_ALARMS_URL: 'http://alarms:s3cret-pw@bad host/alarms' }],
  ])('refuses flags %j with environment %j without quoting the password of a URL that is also malformed', (flags, env) => {
    // Act
    let message = '';
    try {
      resolveAlarmSource(flags, env);
    } catch (err) {
      message = (err as Error).message;
    }

    // Assess
    expect(message).toMatch(/is not (a|an http\(s\)) URL/);
    expect(message).toContain('***@');
    expect(message).not.toContain('s3cret-pw');
  });
});
