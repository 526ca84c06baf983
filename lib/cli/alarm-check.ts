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

/** What checking the alarms a request names found: their rejection, or none; and why they could not be checked, when they could not. */
interface AlarmFinding {
  readonly rejection: Rejection | undefined;
  readonly unchecked: string | undefined;
}

/** The alarms' rejection, or undefined, and why they could not be checked (undefined for a request that names no alarm). */
async function alarmFinding(source: OperatorAlarmSource | undefined, request: ChangeRequest | EvacuateChangeRequest | FabricDrillChangeRequest): Promise<AlarmFinding> {
  const check = await checkNamedAlarms(source, request);
  return { rejection: check.kind === 'rejected' ? check.rejection : undefined, unchecked: check.kind === 'unchecked' ? check.message : undefined };
}

/**
 * What the alarm check before sending leaves to say once the request's fate is known: that its alarms
 * could not be checked, said with what then happened (it is sent, or the judgement refused it). Silent
 * when they were checked or none is named.
 */
export interface AlarmsChecked {
  /** Before sending: the alarms were not checked here; the worker checks them. */
  sending(): void;
  /** After a later check refused the request (nothing sent): the alarms were not checked either. */
  refused(): void;
}

/**
 * The alarm check before sending. An {@link AlarmsChecked}: go on (call `sending` or `refused` once
 * the request's fate is known). False: refused (printed as the worker would record it, exit code 1,
 * nothing sent).
 */
export async function checkAlarmsBeforeSend(
  rt: CommandRuntime,
  source: OperatorAlarmSource | undefined,
  sent: { readonly body: SendableBody | { readonly requestId: string; readonly action: string; readonly fabric: string }; readonly request: ChangeRequest | EvacuateChangeRequest | FabricDrillChangeRequest; readonly json?: boolean | undefined },
): Promise<AlarmsChecked | false> {
  const { rejection, unchecked } = await alarmFinding(source, sent.request);
  if (rejection === undefined) {
    const say = (then: string) => (): void => {
      if (unchecked !== undefined) rt.io.stderr(`${unchecked}; ${then}\n`);
    };
    return { sending: say('sending it; the worker checks them if it has an alarm source'), refused: say('not checked before the request was refused') };
  }
  if (sent.json) printJson(rt.io, { requestId: sent.body.requestId, sent: false, request: sent.body, rejection });
  else rt.io.stdout(`${'fabric' in sent.body ? evacuation.formatFabricRejection(sent.body, rejection) : formatLocalRejection(sent.body, rejection)}\n  nothing was sent; wait until the alarm is OK or fix its name (--force does not override alarm checks)\n`);
  rt.setExit(EXIT.failed);
  return false;
}

/** For `--dry-run`: the alarms' rejection, or undefined (saying on stderr when they could not be checked). */
export async function alarmRejectionForDryRun(io: CliIo, source: OperatorAlarmSource | undefined, request: ChangeRequest | EvacuateChangeRequest): Promise<Rejection | undefined> {
  const { rejection, unchecked } = await alarmFinding(source, request);
  if (unchecked !== undefined) io.stderr(`${unchecked}; the dry run did not check them\n`);
  return rejection;
}
