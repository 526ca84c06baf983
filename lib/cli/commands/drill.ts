import { Command, Option } from 'commander';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { newRequestId, type ChangeRequest, type FabricDrillChangeRequest } from '../../requests';
import { checkPutDrill, decodeDrillNode, drillPath, runStatusAt, type DrillDefinition, type DrillNode, type DrillRun } from '../../requests/drills';
import { alarmStatesFromEnv, DrillRunner, type DrillTickResult } from '../../safety';
import { nextDueAfter, parseSchedule } from '../../schedule';
import { escapeControlChars, NO_READ_PERMISSION } from '../../text';
import { isZkError, type ZkSession } from '../../zk';
import { addOutputOptions, addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { addAlarmSourceOptions, checkAlarmsBeforeSend } from '../alarm-check';
import { addSendOptions, DEFAULT_WAIT, sendRequest, type SendOptions } from './send';
import { defaultRequester, buildDeleteDrillBody, buildPutDrillBody, drillsBase, evacuation, formatLocalRejection, formatRecord, inputError, OperatorError, parseDuration, resolveAlarmSource, validateLocally, waitForRequestRecord, type AlarmSourceFlags, type ConnectionFlags, type DrillPutOptions, type OperatorConnections, type OperatorSettings, type PutDrillBody } from '../../operator';
import { judgeBeforeSend } from '../judge-before-send';
import { answeredFromRecord } from '../recorded-already';

const EXAMPLES = `
Examples:
  failout drill put weekly-lor1 --cluster greetings-lor1 --peer greetings-lva1:2 --peer greetings-ltx1 \\
      --for 30m --every "cron(0 14 ? * TUE *)" --outcome-alarm greetings-lor1-errors \\
      --blocking-alarm deploys-in-progress --blocked-dates 2026-12-24,2026-12-31 --blocked-windows Fri:16:00-Mon:08:00 --wait
  failout drill put drain-lor1 --fabric lor1 --to lva1:2,ltx1:1 --for 1h --every "cron(0 14 ? * WED *)" \\
      --outcome-alarm lor1-drain-errors --blocking-alarm deploys-in-progress --stages frontend,storage --hold 5m --wait
  failout drill list
  failout drill run-now weekly-lor1 --wait
  failout drill history weekly-lor1 --json
  failout drill delete weekly-lor1 --wait

A drill is a scheduled practice failout (as ARC's practice runs): the runner (EventBridge every minute in
AWS, a timer in the local stack) sends the drill's failout when its time comes, unless a blocking alarm
or the outcome alarm is in ALARM, the time is on a blocked date or the run would overlap a blocked
window (UTC), or the cluster is failed out by an operator; then it records the run as skipped and why.
A run's failout names the outcome and blocking alarms as stop alarms: if one fires, the guard restores
the cluster and the run is failed; a run that ends its window is passed; an operator's failout or
restore replaces it. A drain test (--fabric) is a drill of a whole fabric: each run is an evacuation
of it (failout evacuate, with --to, --stages or --stage, --gate-alarm, --hold, --restore-gap, --ramp,
--exclude), skipped while any evacuation is open or an operator has failed out one of its clusters,
stopped by the guard's restore of the fabric, and replaced by an operator's evacuate or restore --fabric.
Outcomes, as ARC's practice runs: passed (its window ended with no alarm in
ALARM), failed (the outcome alarm was in ALARM during the run, seen by the guard or by the runner's
evaluation each tick, even if the verdict reaches the worker after the window), interrupted (a blocking
alarm was in ALARM during the run: no verdict on the peers), replaced, skipped. Schedules: EventBridge cron(min hour day-of-month month day-of-week year) in UTC,
one of the two day fields "?", or rate(N minutes|hours|days).
`;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Subcommands inherit neither exitOverride nor the output hooks: set them on each. */
function wired(rt: CommandRuntime, command: Command): Command {
  return command
    .exitOverride()
    .showHelpAfterError('(add --help for usage and examples)')
    .configureOutput({ writeOut: (text) => rt.io.stdout(text), writeErr: (text) => rt.io.stderr(text) });
}

/** `failout drill put|list|delete|run-now|history`. */
export function drillCommand(rt: CommandRuntime): Command {
  const drill = new Command('drill').description('scheduled practice failouts (drills): define, list, run now, see their history, delete').addHelpText('after', EXAMPLES);
  for (const sub of [putCommand(rt), listCommand(rt), deleteCommand(rt), runNowCommand(rt), historyCommand(rt)]) drill.addCommand(wired(rt, sub));
  return drill;
}

type PutFlags = DrillPutOptions & SendOptions & ConnectionFlags & AlarmSourceFlags & { requestId?: string };

function putCommand(rt: CommandRuntime): Command {
  const command = new Command('put')
    .description('define (or redefine) a drill; its runs so far are kept')
    .argument('<name>', 'the drill name')
    .option('--cluster <cluster>', 'the D2 cluster each run fails out')
    .option('--fabric <fabric>', 'a drain test: the fabric each run evacuates (instead of --cluster and --peer)')
    .option('--peer <cluster[:weight]>', 'a peer that takes the traffic, with a positive integer weight (default 1); repeat or comma-separate', collect)
    .option('--to <fabric[:weight]>', 'a drain test: target fabrics with weights 1-100; repeat or comma-separate (default: every other fabric, by capacity)', collect)
    .option('--stages <tiers>', 'a drain test: one stage per tier of the fabric map, in this order (frontend,storage)')
    .option('--stage <clusters>', "a drain test: one stage of these clusters; repeat for the next stages", collect)
    .option('--gate-alarm <stage=alarm>', 'a drain test: an alarm that must stay OK while a stage (its tier, or its number from 1) moves and holds; repeat', collect)
    .option('--hold <duration>', 'a drain test: time between a stage being fully out and the next stage starting (default 5m)')
    .option('--restore-gap <duration>', 'a drain test: spacing of the return between stages, last stage first (default 30s)')
    .option('--ramp <steps>', "a drain test: each cluster's ramp from its stage's start (20%:5m,60%:5m,100%)")
    .option('--exclude <service>', 'a drain test: a service to leave in place; repeat or comma-separate', collect)
    .option('--for <duration>', 'how long each run moves the traffic (30m, 1h, PT30M)')
    .option('--every <schedule>', 'when runs are due, UTC: "cron(0 14 ? * TUE *)" or "rate(7 days)"')
    .option('--outcome-alarm <alarm>', 'the CloudWatch alarm that judges a run: it ends the run when it fires')
    .option('--blocking-alarm <alarm>', 'an alarm that keeps runs from starting while in ALARM (repeat; at most 4)', collect)
    .option('--blocked-dates <dates>', 'UTC dates YYYY-MM-DD with no run (comma-separated or repeated)', collect)
    .option('--blocked-windows <windows>', 'weekly UTC windows no run may overlap, Mon:09:00-Mon:10:00 (comma-separated or repeated)', collect)
    .addOption(new Option('--share <pct>', 'percentage of traffic each run moves, 1-100 (default 100)').conflicts('buckets'))
    .addOption(new Option('--buckets <a-b>', 'bucket range each run moves, within 0-99').conflicts('share'))
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)');
  addConnectionOptions(addAlarmSourceOptions(addSendOptions(command)));
  return command.action(async (name: string, flags: PutFlags) => {
    const now = rt.io.now();
    const body = buildPutDrillBody(name, flags, { requestId: flags.requestId ?? newRequestId(now), requestedBy: defaultRequester(rt.io.env) });
    const request = 'fabric' in body ? validateLocally(body, now, rt.io.env) : validateLocally(body, now, rt.io.env);
    const alarms = resolveAlarmSource(flags, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      // The alarms first, as the worker checks them before judging: the outcome and blocking alarms must exist.
      const alarmsChecked = await checkAlarmsBeforeSend(rt, alarms, { body, request, json: flags.json });
      if (alarmsChecked === false) return;
      // A drain test names no cluster to judge: its fabric and targets are the drill checks' (each run's plan is judged then).
      if (!('fabric' in body) && !(await judgeBeforeSend(rt, connections, settings, { body, request: request as ChangeRequest, json: flags.json }, now))) return alarmsChecked.refused();
      if (!(await drillChecksBeforeSend(rt, connections, settings, { body, request, json: flags.json }))) return alarmsChecked.refused();
      alarmsChecked.sending();
      return sendRequest(rt, connections, settings, body, flags);
    });
  });
}

/**
 * The worker's own drill checks (lib/requests `checkPutDrill`: a peer without a cluster node, a name
 * another cluster's drill uses) before sending, as {@link judgeBeforeSend} runs the judge: refused,
 * nothing is sent and the exit code is 1. ZooKeeper not configured or out of reach: sent (the worker
 * checks again).
 */
async function drillChecksBeforeSend(rt: CommandRuntime, connections: OperatorConnections, settings: OperatorSettings, sent: { readonly body: PutDrillBody; readonly request: ChangeRequest | FabricDrillChangeRequest; readonly json?: boolean | undefined }): Promise<boolean> {
  if (!settings.zkConnect || sent.request.action !== 'putDrill') return true;
  let rejection;
  try {
    const { maxWindowMs } = evacuation.limitsFromEnv(rt.io.env);
    rejection = await checkPutDrill(await connections.zk(), { d2BasePath: settings.d2Base, drillsPath: drillsBase(rt.io.env), fabricsPath: settings.fabricsBase, ...(maxWindowMs === undefined ? {} : { maxWindowMs }) }, sent.request);
  } catch (err) {
    if (!(err instanceof OperatorError && err.kind === 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    rt.io.stderr(`could not check the drill against ZooKeeper (${err instanceof Error ? err.message : String(err)}); sending it, the worker checks it again\n`);
    return true;
  }
  if (rejection === undefined) return true;
  if (sent.json) printJson(rt.io, { requestId: sent.body.requestId, sent: false, request: sent.body, rejection });
  else rt.io.stdout(`${'fabric' in sent.body ? evacuation.formatFabricRejection(sent.body, rejection) : formatLocalRejection(sent.body, rejection)}\n  nothing was sent; fix the drill and put it again\n`);
  rt.setExit(EXIT.failed);
  return false;
}

type DeleteFlags = SendOptions & ConnectionFlags & { cluster?: string; fabric?: string; requestId?: string; reason?: string; by?: string };

function deleteCommand(rt: CommandRuntime): Command {
  const command = new Command('delete')
    .description('delete a drill and its history (refused while a run moves traffic)')
    .argument('<name>', 'the drill name')
    .addOption(new Option('--cluster <cluster>', "the drill's cluster (default: read from ZooKeeper)").conflicts('fabric'))
    .addOption(new Option('--fabric <fabric>', "a drain test's fabric (default: read from ZooKeeper)").conflicts('cluster'))
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)');
  addConnectionOptions(addSendOptions(command));
  return command.action(async (name: string, flags: DeleteFlags) => {
    const now = rt.io.now();
    await withConnections(flags, rt.io, async (connections, settings) => {
      const given = flags.cluster ?? (flags.fabric === undefined ? undefined : { fabric: flags.fabric });
      const target = given ?? targetOf((await requireDrill(await connections.zk(), drillsBase(rt.io.env), name)).definition);
      const body = buildDeleteDrillBody(name, target, flags, { requestId: flags.requestId ?? newRequestId(now), requestedBy: defaultRequester(rt.io.env) });
      if ('fabric' in body) validateLocally(body, now, rt.io.env);
      else validateLocally(body, now, rt.io.env);
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      return sendRequest(rt, connections, settings, body, flags);
    });
  });
}

type ReadFlags = ConnectionFlags & { json?: boolean };

function listCommand(rt: CommandRuntime): Command {
  const command = new Command('list').description('every drill: cluster (or fabric), schedule, next time due, last run');
  addOutputOptions(addConnectionOptions(command));
  return command.action(async (flags: ReadFlags) => {
    await withConnections(flags, rt.io, async (connections) => {
      const now = rt.io.now();
      const { drills, unreadable } = await readDrills(await connections.zk(), drillsBase(rt.io.env));
      const rows = drills.map((d) => summary(d, now));
      if (flags.json) printJson(rt.io, { at: new Date(now).toISOString(), drills: rows, unreadable });
      else if (rows.length === 0 && unreadable.length === 0) rt.io.stdout('no drills (define one with: failout drill put <name> …)\n');
      else rt.io.stdout(`${[...rows.map(formatSummary), ...unreadable.map((u) => `${safe(u.name)}: cannot be read: ${safe(u.problem)}`)].join('\n')}\n`);
      rt.setExit(EXIT.ok);
    });
  });
}

function historyCommand(rt: CommandRuntime): Command {
  const command = new Command('history').description("a drill's runs, newest first: started or skipped (why), traffic moved, outcome").argument('<name>', 'the drill name');
  addOutputOptions(addConnectionOptions(command));
  return command.action(async (name: string, flags: ReadFlags) => {
    await withConnections(flags, rt.io, async (connections) => {
      const now = rt.io.now();
      const node = await requireDrill(await connections.zk(), drillsBase(rt.io.env), name);
      const runs = node.runs.map((r) => runView(r, now));
      if (flags.json) printJson(rt.io, { at: new Date(now).toISOString(), drill: summary(node, now), runs });
      else rt.io.stdout(`${formatSummary(summary(node, now))}\n${runs.length === 0 ? '  no runs yet\n' : runs.map((r) => `  ${formatRun(r)}\n`).join('')}`);
      rt.setExit(EXIT.ok);
    });
  });
}

type RunNowFlags = ConnectionFlags & { json?: boolean; wait?: boolean; timeout?: string };

function runNowCommand(rt: CommandRuntime): Command {
  const command = new Command('run-now')
    .description("run a drill now, with the runner's checks (alarms from $FAILOUT_ALARMS_URL when set, else CloudWatch)")
    .argument('<name>', 'the drill name')
    .option('--wait', "wait for the worker's record of the run and print it")
    .option('--timeout <duration>', `how long --wait waits (default ${DEFAULT_WAIT})`);
  addOutputOptions(addConnectionOptions(command));
  return command.action(async (name: string, flags: RunNowFlags) => {
    const waitMs = flags.wait ? parseDuration(flags.timeout ?? DEFAULT_WAIT, '--timeout') : 0;
    await withConnections(flags, rt.io, async (connections, settings) => {
      const zk = await connections.zk();
      const queueUrl = connections.queueUrl();
      const sqs = connections.sqs(rt.io.env);
      const runner = new DrillRunner({
        zk,
        d2BasePath: settings.d2Base,
        requestsPath: settings.requestsBase,
        drillsPath: drillsBase(rt.io.env),
        fabricsPath: settings.fabricsBase,
        evacuationsPath: settings.evacuationsBase,
        queueUrl,
        send: async (message) => {
          const out = await sqs.send(new SendMessageCommand(message));
          return out.MessageId === undefined ? {} : { messageId: out.MessageId };
        },
        alarms: alarmStatesFromEnv(rt.io.env),
        logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
        clock: () => rt.io.now(),
      });
      let result: DrillTickResult;
      try {
        result = await runner.runNow(name);
      } catch (err) {
        if (isZkError(err)) throw err;
        throw new OperatorError('rejected', err instanceof Error ? err.message : String(err));
      }
      if (result.outcome === 'error') throw new OperatorError('unavailable', `drill ${name} was not run: ${result.error}`);
      const runId = 'runId' in result ? result.runId : undefined;
      const record = flags.wait && runId !== undefined ? await waitForRequestRecord(zk, settings.requestsBase, [runId], { timeoutMs: waitMs }) : undefined;
      const node = record === undefined ? undefined : await readDrill(zk, drillsBase(rt.io.env), name);
      const run = node?.runs.find((r) => r.runId === runId);
      if (flags.json) printJson(rt.io, { result, ...(flags.wait ? { outcome: record ?? null, run: run === undefined ? null : runView(run, rt.io.now()) } : {}) });
      else {
        const definition = (node ?? (await readDrill(zk, drillsBase(rt.io.env), name).catch(() => undefined)))?.definition;
        const what = definition?.fabric !== undefined ? `evacuation of fabric ${safe(definition.fabric)}` : 'failout of its cluster';
        rt.io.stdout(result.outcome === 'started' ? `drill ${name}: run ${result.runId} sent (${what})\n` : result.outcome === 'skipped' ? `drill ${name}: run ${result.runId} skipped: ${result.skipReason} — ${safe(result.detail)}\n` : `drill ${name}: ${result.outcome}\n`);
        if (record !== undefined) rt.io.stdout(`${formatRecord(record)}\n`);
        if (run !== undefined) rt.io.stdout(`  ${formatRun(runView(run, rt.io.now()))}\n`);
      }
      if (flags.wait && record === undefined) {
        rt.io.stderr(`no outcome for run ${runId ?? '?'} after ${flags.timeout ?? DEFAULT_WAIT}: the worker may be behind; check with: failout drill history ${name}\n`);
        rt.setExit(EXIT.failed);
        return;
      }
      rt.setExit(record?.status === 'rejected' ? EXIT.failed : EXIT.ok);
    });
  });
}

/** One drill as `list` shows it: a cluster's (cluster, peers, share) or a drain test (fabric, evacuation). */
interface DrillSummary {
  readonly name: string;
  readonly cluster?: string;
  readonly fabric?: string;
  readonly every: string;
  readonly forMs: number;
  readonly peers?: DrillNode['definition']['peers'];
  readonly sharePct?: number;
  readonly evacuation?: DrillNode['definition']['evacuation'];
  readonly outcomeAlarm: string;
  readonly blockingAlarms: readonly string[];
  readonly blockedDates: readonly string[];
  readonly blockedWindows: readonly string[];
  readonly nextDueAt: string | null;
  readonly lastRun: RunView | null;
}

/** One run as `history` shows it: the stored run with its status at the time of reading. */
type RunView = DrillRun & { readonly atIso: string };

function runView(run: DrillRun, now: number): RunView {
  return { ...run, status: runStatusAt(run, now), atIso: new Date(run.at).toISOString() };
}

function summary(node: DrillNode, now: number): DrillSummary {
  const d = node.definition;
  const schedule = parseSchedule(d.every);
  const next = schedule.ok ? nextDueAfter(schedule.schedule, now, d.definedAt) : undefined;
  const last = node.runs[0];
  return {
    name: d.name,
    ...(d.fabric === undefined ? { cluster: d.cluster, peers: d.peers, sharePct: d.buckets.to - d.buckets.from + 1 } : { fabric: d.fabric, evacuation: d.evacuation }),
    every: d.every,
    forMs: d.durationMs,
    outcomeAlarm: d.outcomeAlarm,
    blockingAlarms: d.blockingAlarms,
    blockedDates: d.blockedDates,
    blockedWindows: d.blockedWindows,
    nextDueAt: next === undefined ? null : new Date(next).toISOString(),
    lastRun: last === undefined ? null : runView(last, now),
  };
}

/** A value from data as the terminal may show it (issue 14): control characters, newlines included, as escapes. */
const safe = (text: string): string => escapeControlChars(text);

function formatSummary(s: DrillSummary): string {
  const last = s.lastRun === null ? 'no runs yet' : `last run ${s.lastRun.status} (${s.lastRun.atIso})`;
  const blocking = s.blockingAlarms.length === 0 ? '' : `, blocking ${s.blockingAlarms.map(safe).join(', ')}`;
  return `${safe(s.name)}: ${moves(s)} for ${Math.round(s.forMs / 1000)} s, ${safe(s.every)}; outcome alarm ${safe(s.outcomeAlarm)}${blocking}; next ${s.nextDueAt ?? 'never'}; ${last}`;
}

/** `greetings-lor1 → greetings-lva1×2, 100%`, or `fabric lor1 → lva1×2, ltx1×1 (stages frontend, storage)`. */
function moves(s: DrillSummary): string {
  if (s.evacuation === undefined) return `${safe(s.cluster ?? '?')} → ${(s.peers ?? []).map((p) => `${safe(p.cluster)}×${p.weight}`).join(', ')}, ${s.sharePct ?? 100}%`;
  const e = s.evacuation;
  const targets = e.targets === undefined ? 'every other fabric by capacity' : e.targets.map((t) => `${safe(t.fabric)}×${t.weight}`).join(', ');
  const stages = e.stages === undefined ? '' : ` (stages ${e.stages.map((st, i) => ('tier' in st ? safe(st.tier) : `${i + 1}: ${st.clusters.map(safe).join(',')}`)).join('; ')})`;
  const exclude = e.exclude.length === 0 ? '' : `, excluding ${e.exclude.map(safe).join(', ')}`;
  return `fabric ${safe(s.fabric ?? '?')} → ${targets}${stages}${exclude}`;
}

/** The target a drill's requests name: its cluster, or its fabric. */
function targetOf(definition: DrillDefinition): string | { fabric: string } {
  return definition.fabric === undefined ? definition.cluster : { fabric: definition.fabric };
}

function formatRun(r: RunView): string {
  const parts = [`${safe(r.runId)}  ${r.status.toUpperCase()}  at ${r.atIso}`];
  if (r.buckets !== undefined) parts.push(`moved ${r.buckets.to - r.buckets.from + 1}% to ${(r.peers ?? []).map((p) => `${safe(p.cluster)}×${p.weight}`).join(', ')}`);
  if (r.clusters !== undefined) parts.push(`evacuated ${r.clusters} cluster${r.clusters === 1 ? '' : 's'}`);
  if (r.endsAt !== undefined && (r.status === 'running' || r.status === 'passed')) parts.push(`until ${new Date(r.endsAt).toISOString()}`);
  if (r.skipReason !== undefined) parts.push(`${r.skipReason}${r.detail === undefined ? '' : `: ${safe(r.detail)}`}`);
  if (r.stoppedByAlarm !== undefined) {
    const seen = r.alarmAt === undefined ? '' : ` (in ALARM at ${new Date(r.alarmAt).toISOString()})`;
    const alarm = safe(r.stoppedByAlarm);
    parts.push(r.status === 'interrupted' ? `interrupted by alarm ${alarm}${seen}: no verdict on the peers` : `stopped by alarm ${alarm}${seen}`);
  }
  if (r.endedBy !== undefined) parts.push(`ended ${new Date(r.endedAt ?? r.at).toISOString()} by request ${safe(r.endedBy)}`);
  return parts.join('; ');
}

async function readDrill(session: ZkSession, base: string, name: string): Promise<DrillNode | undefined> {
  let path: string;
  try {
    path = drillPath(base, name);
  } catch {
    throw inputError(`${JSON.stringify(name)} is not a valid drill name`);
  }
  const node = await session.read(path);
  if (!node.exists) return undefined;
  try {
    return decodeDrillNode(node.data);
  } catch (err) {
    throw new OperatorError('unavailable', `drill ${name} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function requireDrill(session: ZkSession, base: string, name: string): Promise<DrillNode> {
  const node = await readDrill(session, base, name);
  if (node === undefined) throw new OperatorError('rejected', `no drill named ${name} under ${base} (failout drill list shows them)`);
  return node;
}

/** A drill node that does not decode (or whose name is no drill name), with what is wrong. */
export interface UnreadableDrill {
  readonly name: string;
  readonly problem: string;
}

/** Every drill node under a base: those that decode, and those that do not with their problem, each by name. */
export interface DrillListing {
  readonly drills: DrillNode[];
  readonly unreadable: UnreadableDrill[];
}

/**
 * Every drill node, by name: the ones that decode, and the ones that do not with their problem (so a
 * listing names them instead of leaving them out unsaid). ZooKeeper errors are thrown: a listing that
 * could not be read is no listing.
 */
export async function readDrills(session: ZkSession, base: string): Promise<DrillListing> {
  let names: readonly string[];
  try {
    names = (await session.children(base)).children;
  } catch (err) {
    if (isZkError(err, 'noNode')) return { drills: [], unreadable: [] };
    throw err;
  }
  const listing: DrillListing = { drills: [], unreadable: [] };
  const entries = await Promise.all([...names].sort().map((name) => readListedDrill(session, base, name)));
  for (const entry of entries) {
    if (entry === undefined) continue;
    if ('problem' in entry) listing.unreadable.push(entry);
    else listing.drills.push(entry.node);
  }
  return listing;
}

/** A listed drill node: decoded, or why not; undefined when it went away since the listing. */
async function readListedDrill(session: ZkSession, base: string, name: string): Promise<{ readonly node: DrillNode } | UnreadableDrill | undefined> {
  let path: string;
  try {
    path = drillPath(base, name);
  } catch (err) {
    return { name, problem: err instanceof Error ? err.message : String(err) };
  }
  let node: Awaited<ReturnType<ZkSession['read']>>;
  try {
    node = await session.read(path);
  } catch (err) {
    // A node this session may not read is named as one that does not decode; other errors fail the listing.
    if (!isZkError(err, 'noAuth')) throw err;
    return { name, problem: NO_READ_PERMISSION };
  }
  if (!node.exists) return undefined;
  try {
    return { node: decodeDrillNode(node.data) };
  } catch (err) {
    return { name, problem: err instanceof Error ? err.message : String(err) };
  }
}
