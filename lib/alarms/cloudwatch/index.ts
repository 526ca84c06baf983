/**
 * lib/alarms/cloudwatch: the CloudWatch half of lib/alarms, apart from the face so that what only
 * needs the port (lib/requests, the CLI's checks) never loads `@aws-sdk/client-cloudwatch`.
 */
import type { AlarmSource } from '../alarm-states';
import { HttpAlarmStates } from '../http-alarm-states';
import { CloudWatchAlarmStates } from './cloudwatch-alarm-states';

export { CloudWatchAlarmStates } from './cloudwatch-alarm-states';

/**
 * The drill runner's choice: `FAILOUT_ALARMS_URL` when set (the local stack), else CloudWatch with the
 * SDK's default configuration.
 */
export function alarmStatesFromEnv(env: Readonly<Record<string, string | undefined>>): AlarmSource {
  const url = env.FAILOUT_ALARMS_URL?.trim();
  return url ? new HttpAlarmStates(url) : new CloudWatchAlarmStates();
}
