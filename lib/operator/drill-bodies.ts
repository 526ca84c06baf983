import { formatIsoDuration, parseBuckets, parseDuration, parsePeers, parseRamp, parseShare, type BucketsArg, type PeerArg, type RampStepArg } from './inputs';
import { inputError } from './errors';
import { parseStages, parseTargets, type EvacuateStageArg } from './fabric-bodies';

/** The options of `failout drill put`, as commander hands them over (strings, unparsed). */
export interface DrillPutOptions {
  cluster?: string;
  /** A drain test (issue 23): the fabric each run evacuates, in place of `--cluster` and `--peer`. */
  fabric?: string;
  peer?: string[];
  /** A drain test's target fabrics, `lva1:2,ltx1:1` (as `failout evacuate --to`). */
  to?: string[];
  /** A drain test's stages: `--stages <tier,…>`, or `--stage <cluster,…>` repeated, with `--gate-alarm`. */
  stages?: string;
  stage?: string[];
  gateAlarm?: string[];
  hold?: string;
  restoreGap?: string;
  ramp?: string;
  exclude?: string[];
  for?: string;
  every?: string;
  outcomeAlarm?: string;
  blockingAlarm?: string[];
  blockedDates?: string[];
  blockedWindows?: string[];
  share?: string;
  buckets?: string;
  reason?: string;
  by?: string;
}

/** A `putDrill` body of a cluster's drill as the CLI sends it. */
export interface PutClusterDrillBody {
  version: 1;
  requestId: string;
  action: 'putDrill';
  cluster: string;
  drill: string;
  peers: PeerArg[];
  duration: string;
  buckets: BucketsArg;
  every: string;
  outcomeAlarm: string;
  blockingAlarms?: string[];
  blockedDates?: string[];
  blockedWindows?: string[];
  requestedBy: string;
  reason?: string;
}

/** A `putDrill` body of a drain test (a drill of a fabric, issue 23): an evacuation's options in place of peers and buckets. */
export interface PutFabricDrillBody {
  version: 1;
  requestId: string;
  action: 'putDrill';
  fabric: string;
  drill: string;
  duration: string;
  every: string;
  outcomeAlarm: string;
  blockingAlarms?: string[];
  blockedDates?: string[];
  blockedWindows?: string[];
  targets?: { fabric: string; weight: number }[];
  stages?: EvacuateStageArg[];
  hold?: string;
  restoreGap?: string;
  ramp?: RampStepArg[];
  exclude?: string[];
  requestedBy: string;
  reason?: string;
}

/** A `putDrill` body: a cluster's drill, or a drain test. */
export type PutDrillBody = PutClusterDrillBody | PutFabricDrillBody;

/** A `deleteDrill` body. */
export interface DeleteDrillBody {
  version: 1;
  requestId: string;
  action: 'deleteDrill';
  cluster: string;
  drill: string;
  requestedBy: string;
  reason?: string;
}

/** A drain test's `deleteDrill` body: it names the fabric (its FIFO group is the fabrics'). */
export interface DeleteFabricDrillBody {
  version: 1;
  requestId: string;
  action: 'deleteDrill';
  fabric: string;
  drill: string;
  requestedBy: string;
  reason?: string;
}

/** A drain test's request body: it names a fabric, no cluster. */
export type FabricDrillBody = PutFabricDrillBody | DeleteFabricDrillBody;

/** Values of a list flag: repeatable, and each value split on commas and spaces. */
function listOf(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(/[\s,]+/)).filter((v) => v !== '');
}

/** The drain test flags, for the message that refuses them on a cluster's drill. */
const FABRIC_ONLY: readonly [keyof DrillPutOptions, string][] = [
  ['to', '--to'],
  ['stages', '--stages'],
  ['stage', '--stage'],
  ['gateAlarm', '--gate-alarm'],
  ['hold', '--hold'],
  ['restoreGap', '--restore-gap'],
  ['ramp', '--ramp'],
  ['exclude', '--exclude'],
];

/**
 * The body of `failout drill put <name> …`: a cluster's drill (`--cluster`, `--peer`), or a drain test
 * (`--fabric` with the options of `failout evacuate`: `--to`, `--stages`/`--stage`, `--gate-alarm`,
 * `--hold`, `--restore-gap`, `--ramp`, `--exclude`). Only the shape of the flags is checked here; the
 * worker's own rules (schedule, dates, windows, alarms, run length, targets, stages) run in
 * `validateLocally` before sending, so the CLI and the worker give the same reasons.
 *
 * @throws OperatorError `usage` naming the flag when a required one is missing or a value is bad.
 */
export function buildPutDrillBody(name: string, options: DrillPutOptions, context: { requestId: string; requestedBy: string }): PutDrillBody {
  if (options.cluster !== undefined && options.fabric !== undefined) throw inputError('a drill fails out a cluster (--cluster) or evacuates a fabric (--fabric), not both', 'cluster');
  if (options.fabric !== undefined) return buildPutFabricDrillBody(name, options.fabric, options, context);
  if (!options.cluster) throw inputError("say which cluster the drill fails out: --cluster <cluster> (or which fabric a drain test evacuates: --fabric <fabric>)", 'cluster');
  const fabricOnly = FABRIC_ONLY.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (fabricOnly.length > 0) throw inputError(`${fabricOnly.join(', ')}: only for a drain test (--fabric), not a cluster's drill`, 'cluster');
  const peers = parsePeers(options.peer ?? []);
  if (peers.length === 0) throw inputError('give at least one --peer <cluster>[:weight] to take the traffic (example: --peer greetings-lva1:2)', 'peers');
  const schedule = scheduleOf(options);
  if (options.share !== undefined && options.buckets !== undefined) throw inputError('give either --share <pct> or --buckets <a-b>, not both', 'share');
  const body: PutClusterDrillBody = {
    version: 1,
    requestId: context.requestId,
    action: 'putDrill',
    cluster: options.cluster,
    drill: name,
    peers,
    duration: schedule.duration,
    buckets: options.buckets !== undefined ? parseBuckets(options.buckets) : options.share !== undefined ? parseShare(options.share) : { from: 0, to: 99 },
    every: schedule.every,
    outcomeAlarm: schedule.outcomeAlarm,
    requestedBy: options.by ?? context.requestedBy,
  };
  withScheduleLists(body, options);
  return body;
}

/** The drain test's `putDrill` (see {@link buildPutDrillBody}). */
function buildPutFabricDrillBody(name: string, fabric: string, options: DrillPutOptions, context: { requestId: string; requestedBy: string }): PutFabricDrillBody {
  if (options.peer !== undefined || options.share !== undefined || options.buckets !== undefined) {
    throw inputError('a drain test moves every cluster of its fabric to the same services in the target fabrics: give --to <fabric[:weight]> (or nothing: every other fabric, by capacity), not --peer, --share or --buckets', 'peers');
  }
  const schedule = scheduleOf(options);
  const body: PutFabricDrillBody = { version: 1, requestId: context.requestId, action: 'putDrill', fabric, drill: name, ...schedule, requestedBy: options.by ?? context.requestedBy };
  if (options.to !== undefined) body.targets = parseTargets(options.to, fabric);
  const stages = parseStages(options);
  if (stages !== undefined) body.stages = stages;
  if (options.hold !== undefined) body.hold = formatIsoDuration(parseSpacing(options.hold, '--hold'));
  if (options.restoreGap !== undefined) body.restoreGap = formatIsoDuration(parseSpacing(options.restoreGap, '--restore-gap'));
  if (options.ramp !== undefined) body.ramp = parseRamp(options.ramp);
  const exclude = listOf(options.exclude);
  if (exclude.length > 0) body.exclude = exclude;
  withScheduleLists(body, options);
  return body;
}

/** The run length, schedule and outcome alarm every drill needs. */
function scheduleOf(options: DrillPutOptions): { duration: string; every: string; outcomeAlarm: string } {
  if (options.for === undefined) throw inputError('say how long each run moves the traffic: --for <duration> (e.g. --for 30m)', 'for');
  if (options.every === undefined) throw inputError('say when the drill runs: --every "cron(0 14 ? * TUE *)" (EventBridge cron, UTC) or --every "rate(7 days)"', 'every');
  if (options.outcomeAlarm === undefined) throw inputError('name the alarm that judges a run: --outcome-alarm <CloudWatch alarm name>', 'outcomeAlarm');
  return { duration: formatIsoDuration(parseDuration(options.for, '--for')), every: options.every, outcomeAlarm: options.outcomeAlarm };
}

/** A spacing between stages (`--hold`, `--restore-gap`): a duration, where zero (`0s`, `0`) is allowed. */
function parseSpacing(text: string, flag: string): number {
  if (/^\s*(0+[dhms]?|PT0+S)\s*$/i.test(text)) return 0;
  return parseDuration(text, flag);
}

/** Adds the blocking alarms, blocked dates and blocked windows the flags give. */
function withScheduleLists(body: PutDrillBody, options: DrillPutOptions): void {
  const blocking = options.blockingAlarm ?? [];
  if (blocking.length > 0) body.blockingAlarms = [...blocking];
  const dates = listOf(options.blockedDates);
  if (dates.length > 0) body.blockedDates = dates;
  const windows = listOf(options.blockedWindows);
  if (windows.length > 0) body.blockedWindows = windows;
  if (options.reason !== undefined) body.reason = options.reason;
}

/** The body of `failout drill delete <name>`: the drill's cluster (a drain test's fabric) is its FIFO group. */
export function buildDeleteDrillBody(name: string, target: string | { readonly fabric: string }, options: { reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): DeleteDrillBody | DeleteFabricDrillBody {
  const base = { version: 1 as const, requestId: context.requestId, action: 'deleteDrill' as const, drill: name, requestedBy: options.by ?? context.requestedBy, ...(options.reason === undefined ? {} : { reason: options.reason }) };
  return typeof target === 'string' ? { ...base, cluster: target } : { ...base, fabric: target.fabric };
}
