import { Command, Option } from 'commander';
import { newRequestId } from '../../requests';
import { addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { addAlarmSourceOptions, alarmRejectionForDryRun, checkAlarmsBeforeSend } from '../alarm-check';
import { addSendOptions, sendRequest, type SendOptions } from './send';
import { defaultRequester, buildFailoutBody, dryRun, formatClusterStatus, formatForced, formatProjections, measureRequestRates, projectionJson, resolveAlarmSource, validateLocally, type AlarmSourceFlags, type ConnectionFlags, type OutOptions, type RateFlags } from '../../operator';
import { judgeBeforeSend } from '../judge-before-send';
import { answeredFromRecord } from '../recorded-already';

const EXAMPLES = `
Examples:
  failout out greetings-lor1 --peer greetings-lva1:2 --peer greetings-ltx1 --for 2h --reason INC-4711
  failout out greetings-lor1 --peer greetings-lva1 --until 2026-11-30T18:00:00Z --share 50 --wait
  failout out greetings-lor1 --peer greetings-lva1 --at +15m --for 90m --buckets 0-9 --dry-run
  failout out greetings-lor1 --peer greetings-lva1 --for 2h --ramp 10%:5m,50%:10m,100%
  failout out greetings-lor1 --peer greetings-lva1 --for 2h --stop-alarm greetings-lva1-errors
  failout out greetings-lor1 --peer greetings-lva1 --for 2h --dry-run \
    --metrics greetings=http://10.0.0.7:9464/metrics --traffic-metric greetings_requests_total

With --metrics (or FAILOUT_METRICS_URLS), the capacity projection is also made from request rates (two
scrapes a second apart of a counter of every request by cluster, --traffic-metric or
FAILOUT_TRAFFIC_METRIC); the worker judges by host counts (it cannot see rates), and both are shown.
`;

type Flags = OutOptions & SendOptions & ConnectionFlags & RateFlags & AlarmSourceFlags & { dryRun?: boolean; requestId?: string };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `failout out <cluster> …`: fail a cluster out to its peers for a window. */
export function outCommand(rt: CommandRuntime): Command {
  const command = new Command('out')
    .description("fail a cluster out: send (a share of) its traffic to peers for a time window")
    .argument('<cluster>', 'the D2 cluster to fail out')
    .option('--peer <cluster[:weight]>', 'a peer that takes the traffic, with a positive integer weight (default 1); repeat or comma-separate', collect)
    .addOption(new Option('--for <duration>', 'how long, from when the worker applies it (90m, 2h, 1h30m, PT2H)').conflicts('until'))
    .addOption(new Option('--until <time>', 'when it ends (2026-11-30T18:00:00Z, +2h)').conflicts('for'))
    .option('--at <time>', 'when it starts (default: when applied; 2026-11-30T16:00:00Z, +15m)')
    .addOption(new Option('--share <pct>', 'percentage of traffic to move, 1-100 (default 100)').conflicts('buckets'))
    .addOption(new Option('--buckets <a-b>', 'bucket range to move, within 0-99').conflicts('share'))
    .option('--ramp <steps>', 'move in steps: cumulative % of the moved range (--share/--buckets, default all), each but the last with how long it holds (10%:5m,50%:10m,100%)')
    .option('--stop-alarm <name>', 'a CloudWatch alarm that ends the failout when it goes to ALARM (the guard restores the cluster); it must exist and not be in ALARM already (checked before sending with --alarms-url / --cloudwatch-alarms, and by the worker); repeat for several, at most 5', collect)
    .option('--reason <text>', 'why (an incident id), recorded with the failout')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)')
    .option('--force', 'override the peer-state checks (peer failed out, peer without hosts), the capacity guard, and stranding another failout (never unknown peers or clusters); recorded on the request and the failout')
    .option('--dry-run', 'validate against the current ZooKeeper state; send nothing')
    .option('--metrics <service=url>', "a service instance's Prometheus text URL, for the projection from request rates (repeat; default $FAILOUT_METRICS_URLS)", collect)
    .option('--traffic-metric <name>', 'a counter of every request by target cluster (label cluster) that services export (default $FAILOUT_TRAFFIC_METRIC)');
  addConnectionOptions(addAlarmSourceOptions(addSendOptions(command))).addHelpText('after', EXAMPLES);
  return command.action(async (cluster: string, flags: Flags) => {
    const now = rt.io.now();
    const body = buildFailoutBody(cluster, flags, { requestId: flags.requestId ?? newRequestId(now), now, requestedBy: defaultRequester(rt.io.env) });
    // The worker's schema and rules first: a request it can only reject is never sent (exit 2).
    const request = validateLocally(body, now, rt.io.env);
    const alarms = resolveAlarmSource(flags, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      // A resend whose id has a record is a duplicate whatever it says: answered from the record, nothing judged or sent.
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json, dryRun: flags.dryRun })) return;
      // Measured before judging, so both projections are of the same moment (without ZooKeeper nothing is judged).
      const measured = flags.dryRun || settings.zkConnect ? await measureRequestRates(flags, rt.io.env) : undefined;
      for (const warning of measured?.json.warnings ?? []) rt.io.stderr(`warning: request rates not measured: ${warning}; the projection is from host counts\n`);
      if (!flags.dryRun) {
        // The alarms first, as the worker checks them before judging the rest.
        const alarmsChecked = await checkAlarmsBeforeSend(rt, alarms, { body, request, json: flags.json });
        if (alarmsChecked === false) return;
        if (!(await judgeBeforeSend(rt, connections, settings, { body, request, json: flags.json, rates: measured?.rates }, now))) return alarmsChecked.refused();
        alarmsChecked.sending();
        return sendRequest(rt, connections, settings, body, flags);
      }
      const alarmRejection = await alarmRejectionForDryRun(rt.io, alarms, request);
      if (alarmRejection !== undefined) {
        if (flags.json) printJson(rt.io, { dryRun: true, request: body, ok: false, rejection: alarmRejection });
        else rt.io.stdout(`dry run: request would be REJECTED: ${alarmRejection.reason} — ${alarmRejection.message}\nnothing was sent\n`);
        rt.setExit(EXIT.failed);
        return;
      }
      const result = await dryRun(await connections.zk(), settings, request, now, measured?.rates);
      if (flags.json) {
        const projections = { capacity: projectionJson(result.capacity), capacityByRates: projectionJson(result.capacityByRates), judgedBy: result.capacity === undefined ? undefined : 'hostCounts' };
        printJson(rt.io, { dryRun: true, request: body, ...result, ...projections, ...(measured === undefined ? {} : { rates: measured.json }) });
      } else if (result.ok) {
        const text = formatProjections(result);
        const projection = text === '' ? '' : `${text}\n`;
        const forced = result.forced === undefined ? '' : `${formatForced(result.forced)}\n`;
        rt.io.stdout(`dry run: request would be applied; nothing was sent. ${cluster} would then be:\n${formatClusterStatus(result.after, now)}\n${projection}${forced}`);
      }
      else {
        const text = formatProjections(result);
        rt.io.stdout(`dry run: request would be REJECTED: ${result.rejection.reason} — ${result.rejection.message}\n${text === '' ? '' : `${text}\n`}nothing was sent\n`);
      }
      rt.setExit(result.ok ? EXIT.ok : EXIT.failed);
    });
  });
}
