import type { Command } from 'commander';
import { checkNamedAlarms, evacuation, formatLocalRejection, type OperatorAlarmSource, type SendableBody } from '../operator';
import type { ChangeRequest, EvacuateChangeRequest, FabricDrillChangeRequest, Rejection } from '../requests';
import { printJson, type CommandRuntime } from './command-context';
import { EXIT } from './errors';
import type { CliIo } from './io';

/** Adds `--alarms-url` and `--cloudwatch-alarms` to a command that sends a request naming alarms. */
export function addAlarmSourceOptions(command: Command): Command {
  return command
    .option('--alarms-url <url>', 'check the alarms it names before sending, over HTTP: {"alarms":[{"name","state"}]} (default $FAILOUT_ALARMS_URL)')
    .option('--cloudwatch-alarms', 'check them with CloudWatch DescribeAlarms and your AWS credentials (default: $FAILOUT_ALARMS_CLOUDWATCH=1)');
}

/**
 * The alarms' rejection, or undefined. When they could not be checked says so on stderr, ending with
 * `then` (what happens next). Silent for a request that names no alarm.
 */
async function alarmRejection(io: CliIo, source: OperatorAlarmSource | undefined, request: ChangeRequest | EvacuateChangeRequest | FabricDrillChangeRequest, then: string): Promise<Rejection | undefined> {
  const check = await checkNamedAlarms(source, request);
  if (check.kind === 'unchecked') io.stderr(`${check.message}; ${then}\n`);
  return check.kind === 'rejected' ? check.rejection : undefined;
}

/**
 * The alarm check before sending. True: send it. False: refused (printed as the worker would record
 * it, exit code 1, nothing sent).
 */
export async function checkAlarmsBeforeSend(
  rt: CommandRuntime,
  source: OperatorAlarmSource | undefined,
  sent: { readonly body: SendableBody | { readonly requestId: string; readonly action: string; readonly fabric: string }; readonly request: ChangeRequest | EvacuateChangeRequest | FabricDrillChangeRequest; readonly json?: boolean | undefined },
): Promise<boolean> {
  const rejection = await alarmRejection(rt.io, source, sent.request, 'sending it; the worker checks them if it has an alarm source');
  if (rejection === undefined) return true;
  if (sent.json) printJson(rt.io, { requestId: sent.body.requestId, sent: false, request: sent.body, rejection });
  else rt.io.stdout(`${'fabric' in sent.body ? evacuation.formatFabricRejection(sent.body, rejection) : formatLocalRejection(sent.body, rejection)}\n  nothing was sent; wait until the alarm is OK or fix its name (--force does not override alarm checks)\n`);
  rt.setExit(EXIT.failed);
  return false;
}

/** For `--dry-run`: the alarms' rejection, or undefined (saying on stderr when they could not be checked). */
export function alarmRejectionForDryRun(io: CliIo, source: OperatorAlarmSource | undefined, request: ChangeRequest | EvacuateChangeRequest): Promise<Rejection | undefined> {
  return alarmRejection(io, source, request, 'the dry run did not check them');
}
