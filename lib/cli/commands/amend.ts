import { Command } from 'commander';
import { newRequestId } from '../../requests';
import { addAlarmSourceOptions, checkAlarmsBeforeSend } from '../alarm-check';
import { addConnectionOptions, withConnections, type CommandRuntime } from '../command-context';
import { addSendOptions, sendRequest, type SendOptions } from './send';
import { adjust, defaultRequester, resolveAlarmSource, validateLocally, type AlarmSourceFlags, type ConnectionFlags } from '../../operator';
import { judgeBeforeSend } from '../judge-before-send';
import { answeredFromRecord } from '../recorded-already';

const EXAMPLES = `
Examples:
  failout amend greetings-lor1 --stop-alarm greetings-lva1-errors --wait
  failout amend greetings-lor1 --remove-stop-alarm greetings-lor1-latency --reason "alarm retuned"
`;

type Flags = SendOptions & ConnectionFlags & AlarmSourceFlags & { stopAlarm?: string[]; removeStopAlarm?: string[]; reason?: string; by?: string; force?: boolean; requestId?: string };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * `failout amend <cluster> --stop-alarm <name>… --remove-stop-alarm <name>…` (issue 24): change the
 * stop alarms of a running or scheduled failout (every window that has not ended, held ramp steps too).
 * Added names get a failout's checks: the worker's name rules, then (with an alarm source) they must
 * exist and not be in ALARM; then the worker's judgement.
 */
export function amendCommand(rt: CommandRuntime): Command {
  const command = new Command('amend')
    .description("add or remove stop alarms of a cluster's running or scheduled failout")
    .argument('<cluster>', 'the failed-out D2 cluster')
    .option('--stop-alarm <name>', 'a CloudWatch alarm to add: the failout ends when it goes to ALARM; it must exist and not be in ALARM already; repeat for several (at most 5 in all)', collect)
    .option('--remove-stop-alarm <name>', 'a stop alarm to remove; repeat for several', collect)
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)')
    .option('--force', 'override the peer-state checks, the capacity guard and the stranding check (recorded with the request)');
  addConnectionOptions(addAlarmSourceOptions(addSendOptions(command))).addHelpText('after', EXAMPLES);
  return command.action(async (cluster: string, flags: Flags) => {
    const now = rt.io.now();
    const body = adjust.buildAmendBody(cluster, flags, { requestId: flags.requestId ?? newRequestId(now), requestedBy: defaultRequester(rt.io.env) });
    const request = validateLocally(body, now, rt.io.env);
    const alarms = resolveAlarmSource(flags, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      // The alarms first, as the worker checks them before judging the rest.
      const alarmsChecked = await checkAlarmsBeforeSend(rt, alarms, { body, request, json: flags.json });
      if (alarmsChecked === false) return;
      if (!(await judgeBeforeSend(rt, connections, settings, { body, request, json: flags.json }, now))) return alarmsChecked.refused();
      alarmsChecked.sending();
      return sendRequest(rt, connections, settings, body, flags);
    });
  });
}
