import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { isAlarmState, readingsOf, statesOf, type AlarmReading, type AlarmSource, type AlarmState } from '../alarm-states';
import { AlarmStatesError, messageOf } from '../errors';

/** DescribeAlarms takes at most 100 names per call. */
const DESCRIBE_BATCH = 100;

/** Longest wait for one DescribeAlarms call, retries included: a request worker must not hang on it. */
const DEFAULT_TIMEOUT_MS = 5000;

/**
 * CloudWatch `DescribeAlarms` by name (metric and composite alarms); needs `cloudwatch:DescribeAlarms`.
 * A name DescribeAlarms does not return is an alarm this account and region do not have: `unknown`.
 */
export class CloudWatchAlarmStates implements AlarmSource {
  constructor(
    private readonly client: Pick<CloudWatchClient, 'send'> = new CloudWatchClient({}),
    private readonly timeoutMs: number = DEFAULT_TIMEOUT_MS,
  ) {}

  async read(names: readonly string[]): Promise<ReadonlyMap<string, AlarmReading>> {
    const known = new Map<string, AlarmState>();
    const unique = [...new Set(names)];
    for (let i = 0; i < unique.length; i += DESCRIBE_BATCH) {
      const batch = unique.slice(i, i + DESCRIBE_BATCH);
      let out;
      try {
        const command = new DescribeAlarmsCommand({ AlarmNames: batch, AlarmTypes: ['MetricAlarm', 'CompositeAlarm'], MaxRecords: DESCRIBE_BATCH });
        out = await this.client.send(command, { abortSignal: AbortSignal.timeout(this.timeoutMs) });
      } catch (err) {
        throw new AlarmStatesError(`CloudWatch DescribeAlarms failed: ${messageOf(err)}`, { cause: err });
      }
      for (const alarm of [...(out.MetricAlarms ?? []), ...(out.CompositeAlarms ?? [])]) {
        if (alarm.AlarmName !== undefined && isAlarmState(alarm.StateValue)) known.set(alarm.AlarmName, alarm.StateValue);
      }
    }
    return readingsOf(names, known);
  }

  async states(names: readonly string[]): Promise<ReadonlyMap<string, AlarmState>> {
    return statesOf(await this.read(names));
  }
}
