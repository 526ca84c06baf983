import { Command, Option } from 'commander';
import { newRequestId, type RequestRecord } from '../../requests';
import { isZkError } from '../../zk';
import { addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { addAlarmSourceOptions, alarmRejectionForDryRun, checkAlarmsBeforeSend } from '../alarm-check';
import { addSendOptions, sendRequest, type OutcomeFollowUp, type SendOptions } from './send';
import { answeredFromRecord } from '../recorded-already';
import { defaultRequester, evacuation, isOperatorError, resolveAlarmSource, type AlarmSourceFlags, type ConnectionFlags, type OperatorConnections, type OperatorSettings } from '../../operator';

const EXAMPLES = `
Examples:
  failout evacuate lor1 --for 2h --dry-run
  failout evacuate lor1 --to lva1:2,ltx1:1 --for 2h --reason INC-4711 --wait
  failout evacuate lor1 --to lva1,ltx1 --until 2026-11-30T18:00:00Z --stages frontend,midtier,storage \\
    --gate-alarm frontend=fe-5xx --hold 5m --ramp 20%:5m,60%:5m,100% --stop-alarm lor1-evac-errors
  failout evacuate lor1 --for 1h --stage greetings-lor1 --stage hello-lor1,legacy-a --gate-alarm 1=greetings-5xx
  failout evacuate lor1 --for 2h --exclude legacy-batch
  failout restore --fabric lor1 --wait

Every cluster of the fabric fails out to the same service's clusters in the target fabrics (--to, with
weights 1-100; default every other fabric, each peer weighted by its hosts), judged as one plan against
every open failout and the capacity guard. The plan is shown before anything is sent; a plan the worker
would refuse is not sent (exit 1). Stages move in order: a stage's windows start after the one before
it is fully out (its ramp done) and held for --hold (default 5m); a gate or stop alarm in ALARM ends the
whole evacuation. At the end (or on restore) the stages return in reverse order, --restore-gap apart
(default 30s). A service with no cluster outside the fabric must be excluded (--exclude) or the plan is
refused.
`;

type Flags = evacuation.EvacuateOptions & SendOptions & ConnectionFlags & AlarmSourceFlags & { dryRun?: boolean; requestId?: string };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `failout evacuate <fabric> …`: every cluster of a fabric out to the other fabrics, as one judged plan (issue 23). */
export function evacuateCommand(rt: CommandRuntime): Command {
  const command = new Command('evacuate')
    .description('fail out every cluster of a fabric (data center) to the same services in other fabrics, as one judged plan, in stages')
    .argument('<fabric>', 'the fabric to evacuate (failout fabric list names them)')
    .option('--to <fabric[:weight]>', 'target fabrics with weights 1-100 (default 1); repeat or comma-separate (default: every other fabric, by capacity)', collect)
    .addOption(new Option('--for <duration>', 'how long, from when the worker applies it (90m, 2h, PT2H)').conflicts('until'))
    .addOption(new Option('--until <time>', 'when it ends: the last stage returns first (2026-11-30T18:00:00Z, +2h)').conflicts('for'))
    .option('--at <time>', 'when the first stage starts (default: when applied; 2026-11-30T16:00:00Z, +15m)')
    .addOption(new Option('--stages <tiers>', 'one stage per tier of the fabric map, in this order (frontend,midtier,storage); clusters of no listed tier go last').conflicts('stage'))
    .addOption(new Option('--stage <clusters>', 'one stage of these clusters; repeat for the next stages, in order; clusters of no stage go last').argParser(collect).conflicts('stages'))
    .option('--gate-alarm <stage=alarm>', 'an alarm that must stay OK while a stage (its tier, or its number from 1) moves and holds; in ALARM it ends the evacuation; repeat', collect)
    .option('--hold <duration>', 'time between a stage being fully out and the next stage starting (default 5m)')
    .option('--restore-gap <duration>', 'spacing of the return between stages, last stage first (default 30s)')
    .option('--ramp <steps>', "each cluster's ramp from its stage's start: cumulative % of traffic, each but the last with how long it holds (20%:5m,60%:5m,100%)")
    .option('--stop-alarm <name>', 'an alarm that ends the whole evacuation when it goes to ALARM; repeat, at most 5', collect)
    .option('--exclude <service>', 'a service to leave in place (needed for a service with no cluster outside the fabric); repeat or comma-separate', collect)
    .option('--reason <text>', 'why (an incident id), recorded with the evacuation')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)')
    .option('--force', 'override the capacity guard, the peer-state checks and stranding another failout, for the whole plan (recorded); never an unknown fabric, a service with no target, or another open evacuation')
    .option('--dry-run', 'judge the plan against the current ZooKeeper state and print it; send nothing');
  addConnectionOptions(addAlarmSourceOptions(addSendOptions(command))).addHelpText('after', EXAMPLES);
  return command.action(async (fabric: string, flags: Flags) => {
    const now = rt.io.now();
    const body = evacuation.buildEvacuateBody(fabric, flags, { requestId: flags.requestId ?? newRequestId(now), now, requestedBy: defaultRequester(rt.io.env) });
    // The worker's schema and rules first: a request it can only reject is never sent (exit 2).
    const request = evacuation.validateEvacuation(body, now, rt.io.env);
    const alarms = resolveAlarmSource(flags, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      // A resend whose id has a record is a duplicate whatever it says: answered from the record, no plan judged or sent.
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json, dryRun: flags.dryRun })) return;
      if (flags.dryRun) {
        // The stop and gate alarms first, as the worker checks them before judging the plan.
        const alarmRejection = await alarmRejectionForDryRun(rt.io, alarms, request);
        if (alarmRejection !== undefined) {
          if (flags.json) printJson(rt.io, { dryRun: true, request: body, ok: false, rejection: alarmRejection });
          else rt.io.stdout(`dry run: request would be REJECTED: ${alarmRejection.reason} — ${alarmRejection.message}\nnothing was sent\n`);
          rt.setExit(EXIT.failed);
          return;
        }
        const result = await evacuation.dryRunEvacuation(await connections.zk(), settings, request, now);
        if (flags.json) printJson(rt.io, { dryRun: true, request: body, ...result });
        else if (result.ok) rt.io.stdout(`dry run: the evacuation would be applied; nothing was sent.\n${evacuation.formatEvacuationPlan(result.plan, { now, forced: result.forced })}`);
        else rt.io.stdout(`dry run: request would be REJECTED: ${result.rejection.reason} — ${result.rejection.message}\n${planText(result.plan, now)}nothing was sent\n`);
        rt.setExit(result.ok ? EXIT.ok : EXIT.failed);
        return;
      }
      const alarmsChecked = await checkAlarmsBeforeSend(rt, alarms, { body, request, json: flags.json });
      if (alarmsChecked === false) return;
      const judged = await judgeBeforeSending(rt, connections, settings, { body, request, json: flags.json }, now);
      if (judged === false) return alarmsChecked.refused();
      alarmsChecked.sending();
      if (judged !== undefined && !flags.json) rt.io.stdout(`plan (judged against ZooKeeper now; the worker judges it again):\n${evacuation.formatEvacuationPlan(judged.plan, { now, forced: judged.forced })}`);
      if (judged === undefined) return sendRequest(rt, connections, settings, body, flags);
      return sendRequest(rt, connections, settings, body, flags, { plan: judged.plan }, (record) => planAgainIfChanged(rt, connections, settings, body, judged.plan, record));
    });
  });
}

type Applicable = Extract<evacuation.EvacuationDryRun, { ok: true }>;

/**
 * After `--wait` found the evacuation applied: the worker judged it again when it arrived, so when the
 * plan it wrote differs from the one shown before sending (hosts came or went, so weights by capacity
 * or a receiver's load moved), that plan is shown again (`--json`: `appliedPlan`, `planChanged: true`).
 */
async function planAgainIfChanged(rt: CommandRuntime, connections: OperatorConnections, settings: OperatorSettings, body: evacuation.EvacuateBody, shown: Applicable['plan'], record: RequestRecord): Promise<OutcomeFollowUp | undefined> {
  if (record.status !== 'applied' || record.unchanged) return undefined;
  let applied;
  try {
    applied = await evacuation.appliedPlanIfChanged(await connections.zk(), settings, body, shown);
  } catch (err) {
    if (!isOperatorError(err, 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    return { json: {}, text: `could not read the plan the worker applied (${err instanceof Error ? err.message : String(err)}); see it with: failout status\n` };
  }
  if (applied === undefined) return undefined;
  const text = evacuation.formatEvacuationPlan(applied.plan, { now: rt.io.now(), forced: applied.forced });
  return { json: { appliedPlan: applied.plan, planChanged: true }, text: `the worker judged the evacuation again when it arrived, and its plan differs from the one shown above; it applied this one:\n${text}` };
}
type Plan = Applicable['plan'];

function planText(plan: Plan | undefined, now: number): string {
  return plan === undefined ? '' : evacuation.formatEvacuationPlan(plan, { now });
}

/**
 * Judges the evacuation against ZooKeeper before sending, when ZooKeeper is configured: the plan and
 * what force overrode (send it), false (refused: printed, exit code 1, nothing sent), or undefined when it could not be
 * judged (no ZooKeeper configured, or out of reach: a warning; the worker judges it anyway).
 */
async function judgeBeforeSending(
  rt: CommandRuntime,
  connections: OperatorConnections,
  settings: OperatorSettings,
  sent: { readonly body: evacuation.EvacuateBody; readonly request: Parameters<typeof evacuation.dryRunEvacuation>[2]; readonly json?: boolean | undefined },
  now: number,
): Promise<Applicable | false | undefined> {
  if (!settings.zkConnect) return undefined;
  let result: evacuation.EvacuationDryRun;
  try {
    result = await evacuation.dryRunEvacuation(await connections.zk(), settings, sent.request, now);
  } catch (err) {
    if (!isOperatorError(err, 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    rt.io.stderr(`could not judge the evacuation against ZooKeeper (${err instanceof Error ? err.message : String(err)}); sending it, the worker judges it again\n`);
    return undefined;
  }
  if (result.ok) return result;
  if (sent.json) printJson(rt.io, { requestId: sent.body.requestId, sent: false, request: sent.body, rejection: result.rejection, ...(result.plan === undefined ? {} : { plan: result.plan }) });
  else {
    rt.io.stdout(`${evacuation.formatFabricRejection(sent.body, result.rejection)}\n${planText(result.plan, now)}  nothing was sent; fix the request and send it again\n`);
  }
  rt.setExit(EXIT.failed);
  return false;
}
