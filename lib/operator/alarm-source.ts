import { HttpAlarmStates, type AlarmSource } from '../alarms';
import { CloudWatchAlarmStates } from '../alarms/cloudwatch';
import { hideUrlCredentials } from '../text';
import { alarmsNamedBy, readRequestAlarms, type ChangeRequest, type EvacuateChangeRequest, type FabricDrillChangeRequest, type Rejection } from '../requests';
import { inputError, type OperatorEnv } from './errors';

/**
 * The alarm check before sending (issue 21, "Alarms that can act"): the worker's own rule
 * (lib/requests `checkRequestAlarms`) on the alarms a request names, read from the alarm source the
 * operator configured, so a firing stop alarm (`stopAlarmFiring`) or an alarm that does not exist
 * (`unknownAlarm`) is refused before it is queued. Without a source, or with one that cannot be read,
 * the alarms are not checked and the request is sent: the worker checks them again with its own
 * source, and an incident is no time to refuse a failout on a lookup.
 *
 * Sources, flags over environment:
 * - `--alarms-url <url>` / `FAILOUT_ALARMS_URL`: HTTP, `{"alarms":[{"name","state"}]}` (the local
 *   stack's evaluator: `npm start` prints it);
 * - `--cloudwatch-alarms` / `FAILOUT_ALARMS_CLOUDWATCH=1` (the console: `FAILOUT_CONSOLE_CLOUDWATCH=1`):
 *   CloudWatch `DescribeAlarms` with the operator's AWS credentials (the operator policy grants it),
 *   only when asked: a client must not call AWS because credentials happen to be around.
 */

/** The alarm-source flags, as commander hands them over. */
export interface AlarmSourceFlags {
  alarmsUrl?: string;
  cloudwatchAlarms?: boolean;
}

/** Where alarm states are read: a label for messages (no credentials) and the reader. */
export interface OperatorAlarmSource {
  readonly label: string;
  readonly reader: AlarmSource;
}

/**
 * The alarm source of this run, or undefined for none. `--cloudwatch-alarms` wins over a
 * `FAILOUT_ALARMS_URL` left in the environment, which wins over `FAILOUT_ALARMS_CLOUDWATCH` (as the
 * console's sources rank); both flags at once are a usage error.
 * @throws OperatorError `usage` for a bad URL or variable.
 */
export function resolveAlarmSource(flags: AlarmSourceFlags, env: OperatorEnv, cloudwatchVariable = 'FAILOUT_ALARMS_CLOUDWATCH'): OperatorAlarmSource | undefined {
  if (flags.alarmsUrl !== undefined && flags.cloudwatchAlarms === true) throw inputError('--alarms-url and --cloudwatch-alarms name two sources of alarm states: pass one');
  if (flags.cloudwatchAlarms === true) return cloudWatch(env);
  const urlText = flags.alarmsUrl ?? (env.FAILOUT_ALARMS_URL?.trim() || undefined);
  if (urlText !== undefined) {
    const url = alarmsUrl(urlText.trim(), flags.alarmsUrl !== undefined ? '--alarms-url' : 'FAILOUT_ALARMS_URL');
    return { label: url, reader: new HttpAlarmStates(url) };
  }
  const asked = (env[cloudwatchVariable] ?? '').trim().toLowerCase();
  if (asked === '1' || asked === 'true') return cloudWatch(env);
  if (asked !== '' && asked !== '0' && asked !== 'false') throw inputError(`${cloudwatchVariable}: ${JSON.stringify(env[cloudwatchVariable])} is not 1 or 0`);
  return undefined;
}

function cloudWatch(env: OperatorEnv): OperatorAlarmSource {
  const region = env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim();
  return { label: `CloudWatch DescribeAlarms${region ? ` in ${region}` : ''}`, reader: new CloudWatchAlarmStates() };
}

function alarmsUrl(text: string, from: string): string {
  // Echoed without a password: a URL that does not parse (or is not http) may still hold one.
  const shown = JSON.stringify(hideUrlCredentials(text));
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw inputError(`${from}: ${shown} is not a URL (example: http://127.0.0.1:4566/alarms)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw inputError(`${from}: ${shown} is not an http(s) URL`);
  // Messages name the source: a credential in it would be printed.
  if (url.username !== '' || url.password !== '') throw inputError(`${from}: put no credentials in a URL (messages and pages show it)`);
  return text;
}

/**
 * What checking the alarms a request names found:
 * - `none`: the request names no alarm;
 * - `unchecked`: they could not be checked (no source, or it cannot be read); `message` says why;
 * - `ok`: every alarm exists and none that must be OK is firing;
 * - `rejected`: the rejection the worker would record.
 */
export type NamedAlarmsCheck =
  | { readonly kind: 'none' }
  | { readonly kind: 'unchecked'; readonly message: string }
  | { readonly kind: 'ok' }
  | { readonly kind: 'rejected'; readonly rejection: Rejection };

/** Reads and checks the alarms `request` names with the worker's own rule (`checkRequestAlarms`). */
export async function checkNamedAlarms(source: OperatorAlarmSource | undefined, request: ChangeRequest | EvacuateChangeRequest | FabricDrillChangeRequest): Promise<NamedAlarmsCheck> {
  const names = [...new Set(alarmsNamedBy(request).map((a) => a.name))];
  if (names.length === 0) return { kind: 'none' };
  const list = names.join(', ');
  if (source === undefined) {
    return { kind: 'unchecked', message: `could not check the alarms (${list}): no alarm source; set FAILOUT_ALARMS_URL, or pass --cloudwatch-alarms (or set FAILOUT_ALARMS_CLOUDWATCH=1) to read them from CloudWatch` };
  }
  const check = await readRequestAlarms(source.reader, request);
  if (check.status === 'unreadable') return { kind: 'unchecked', message: `could not check the alarms (${list}) with ${source.label}: ${check.error.message}` };
  return check.status === 'checked' && check.rejection !== undefined ? { kind: 'rejected', rejection: check.rejection } : { kind: 'ok' };
}
