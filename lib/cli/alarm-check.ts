import type { Command } from 'commander';
import { HttpAlarmStates, type AlarmReader } from '../alarms';
import { CloudWatchAlarmStates } from '../alarms/cloudwatch';
import { alarmsNamedBy, readRequestAlarms, type ChangeRequest, type Rejection } from '../requests';
import { printJson, type CommandRuntime } from './command-context';
import { EXIT, usageError } from './errors';
import type { CliIo } from './io';
import { formatLocalRejection } from './local-check';
import type { SendableBody } from './request-body';

/**
 * The CLI's alarm check before sending (issue 21, "Alarms that can act"): the worker's own rule
 * (lib/requests `checkRequestAlarms`) on the alarms a request names, read from the alarm source the
 * operator configured, so a firing stop alarm (`stopAlarmFiring`) or an alarm that does not exist
 * (`unknownAlarm`) is refused before it is queued (exit 1, nothing sent). Without a source, or with
 * one that cannot be read, the CLI says it could not check the alarms, and sends: the worker checks
 * them again with its own source, and an incident is no time to refuse a failout on a lookup.
 *
 * Sources, flags over environment:
 * - `--alarms-url <url>` / `FAILOUT_ALARMS_URL`: HTTP, `{"alarms":[{"name","state"}]}` (the local
 *   stack's evaluator: `npm start` prints it);
 * - `--cloudwatch-alarms` / `FAILOUT_ALARMS_CLOUDWATCH=1`: CloudWatch `DescribeAlarms` with the
 *   operator's AWS credentials (the operator policy grants it), only when asked: a CLI must not call
 *   AWS because credentials happen to be around.
 *
 * Used by `failout out` and `failout drill put` ({@link addAlarmSourceOptions},
 * {@link resolveAlarmSource}, {@link checkAlarmsBeforeSend}, and {@link alarmRejectionForDryRun}).
 */

/** The alarm-source flags, as commander hands them over. */
export interface AlarmSourceFlags {
  alarmsUrl?: string;
  cloudwatchAlarms?: boolean;
}

/** Where the CLI reads alarm states: a label for messages (no credentials) and the reader. */
export interface CliAlarmSource {
  readonly label: string;
  readonly reader: AlarmReader;
}

/** Adds `--alarms-url` and `--cloudwatch-alarms` to a command that sends a request naming alarms. */
export function addAlarmSourceOptions(command: Command): Command {
  return command
    .option('--alarms-url <url>', 'check the alarms it names before sending, over HTTP: {"alarms":[{"name","state"}]} (default $FAILOUT_ALARMS_URL)')
    .option('--cloudwatch-alarms', 'check them with CloudWatch DescribeAlarms and your AWS credentials (default: $FAILOUT_ALARMS_CLOUDWATCH=1)');
}

/**
 * The alarm source of this run, or undefined for none. `--cloudwatch-alarms` wins over a
 * `FAILOUT_ALARMS_URL` left in the environment, which wins over `FAILOUT_ALARMS_CLOUDWATCH` (as the
 * console's sources rank); both flags at once are a usage error.
 * @throws CliError `usage` for a bad URL or variable.
 */
export function resolveAlarmSource(flags: AlarmSourceFlags, env: CliIo['env']): CliAlarmSource | undefined {
  if (flags.alarmsUrl !== undefined && flags.cloudwatchAlarms === true) throw usageError('--alarms-url and --cloudwatch-alarms name two sources of alarm states: pass one');
  if (flags.cloudwatchAlarms === true) return cloudWatch(env);
  const urlText = flags.alarmsUrl ?? (env.FAILOUT_ALARMS_URL?.trim() || undefined);
  if (urlText !== undefined) {
    const url = alarmsUrl(urlText.trim(), flags.alarmsUrl !== undefined ? '--alarms-url' : 'FAILOUT_ALARMS_URL');
    return { label: url, reader: new HttpAlarmStates(url) };
  }
  const asked = (env.FAILOUT_ALARMS_CLOUDWATCH ?? '').trim().toLowerCase();
  if (asked === '1' || asked === 'true') return cloudWatch(env);
  if (asked !== '' && asked !== '0' && asked !== 'false') throw usageError(`FAILOUT_ALARMS_CLOUDWATCH: ${JSON.stringify(env.FAILOUT_ALARMS_CLOUDWATCH)} is not 1 or 0`);
  return undefined;
}

function cloudWatch(env: CliIo['env']): CliAlarmSource {
  const region = env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim();
  return { label: `CloudWatch DescribeAlarms${region ? ` in ${region}` : ''}`, reader: new CloudWatchAlarmStates() };
}

function alarmsUrl(text: string, from: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${from}: ${JSON.stringify(text)} is not a URL (example: http://127.0.0.1:4566/alarms)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${from}: ${JSON.stringify(text)} is not an http(s) URL`);
  // Messages name the source: a credential in it would be printed.
  if (url.username !== '' || url.password !== '') throw usageError(`${from}: put no credentials in the URL (messages name it)`);
  return text;
}

/**
 * Reads and checks the alarms `request` names: the rejection the worker would record, or undefined.
 * When they could not be checked (no source, or it cannot be read) says so on stderr, ending with
 * `then` (what happens next), and resolves undefined. Silent for a request that names no alarm.
 */
export async function alarmRejection(io: CliIo, source: CliAlarmSource | undefined, request: ChangeRequest, then: string): Promise<Rejection | undefined> {
  const names = [...new Set(alarmsNamedBy(request).map((a) => a.name))];
  if (names.length === 0) return undefined;
  const list = names.join(', ');
  if (source === undefined) {
    io.stderr(`could not check the alarms (${list}): no alarm source; set FAILOUT_ALARMS_URL, or pass --cloudwatch-alarms (or set FAILOUT_ALARMS_CLOUDWATCH=1) to read them from CloudWatch; ${then}\n`);
    return undefined;
  }
  const check = await readRequestAlarms(source.reader, request);
  if (check.status === 'unreadable') {
    io.stderr(`could not check the alarms (${list}) with ${source.label}: ${check.error.message}; ${then}\n`);
    return undefined;
  }
  return check.status === 'checked' ? check.rejection : undefined;
}

/**
 * The alarm check before sending. True: send it. False: refused (printed as the worker would record
 * it, exit code 1, nothing sent).
 */
export async function checkAlarmsBeforeSend(
  rt: CommandRuntime,
  source: CliAlarmSource | undefined,
  sent: { readonly body: SendableBody; readonly request: ChangeRequest; readonly json?: boolean | undefined },
): Promise<boolean> {
  const rejection = await alarmRejection(rt.io, source, sent.request, 'sending it; the worker checks them if it has an alarm source');
  if (rejection === undefined) return true;
  if (sent.json) printJson(rt.io, { requestId: sent.body.requestId, sent: false, request: sent.body, rejection });
  else rt.io.stdout(`${formatLocalRejection(sent.body, rejection)}\n  nothing was sent; wait until the alarm is OK or fix its name (--force does not override alarm checks)\n`);
  rt.setExit(EXIT.failed);
  return false;
}

/** For `--dry-run`: the alarms' rejection, or undefined (saying on stderr when they could not be checked). */
export function alarmRejectionForDryRun(io: CliIo, source: CliAlarmSource | undefined, request: ChangeRequest): Promise<Rejection | undefined> {
  return alarmRejection(io, source, request, 'the dry run did not check them');
}
