import { formatIsoDuration, parseBuckets, parseDuration, parsePeers, parseShare, type BucketsArg, type PeerArg } from './inputs';
import { inputError } from './errors';

/** The options of `failout drill put`, as commander hands them over (strings, unparsed). */
export interface DrillPutOptions {
  cluster?: string;
  peer?: string[];
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

/** A `putDrill` body as the CLI sends it. */
export interface PutDrillBody {
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

/** Values of a list flag: repeatable, and each value split on commas and spaces. */
function listOf(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(/[\s,]+/)).filter((v) => v !== '');
}

/**
 * The body of `failout drill put <name> …`. Only the shape of the flags is checked here; the worker's
 * own rules (schedule, dates, windows, alarms, run length) run in `validateLocally` before sending, so
 * the CLI and the worker give the same reasons.
 *
 * @throws OperatorError `usage` naming the flag when a required one is missing or a value is bad.
 */
export function buildPutDrillBody(name: string, options: DrillPutOptions, context: { requestId: string; requestedBy: string }): PutDrillBody {
  if (!options.cluster) throw inputError('say which cluster the drill fails out: --cluster <cluster>', 'cluster');
  const peers = parsePeers(options.peer ?? []);
  if (peers.length === 0) throw inputError('give at least one --peer <cluster>[:weight] to take the traffic (example: --peer greetings-lva1:2)', 'peers');
  if (options.for === undefined) throw inputError('say how long each run moves the traffic: --for <duration> (e.g. --for 30m)', 'for');
  if (options.every === undefined) throw inputError('say when the drill runs: --every "cron(0 14 ? * TUE *)" (EventBridge cron, UTC) or --every "rate(7 days)"', 'every');
  if (options.outcomeAlarm === undefined) throw inputError('name the alarm that judges a run: --outcome-alarm <CloudWatch alarm name>', 'outcomeAlarm');
  if (options.share !== undefined && options.buckets !== undefined) throw inputError('give either --share <pct> or --buckets <a-b>, not both', 'share');
  const body: PutDrillBody = {
    version: 1,
    requestId: context.requestId,
    action: 'putDrill',
    cluster: options.cluster,
    drill: name,
    peers,
    duration: formatIsoDuration(parseDuration(options.for, '--for')),
    buckets: options.buckets !== undefined ? parseBuckets(options.buckets) : options.share !== undefined ? parseShare(options.share) : { from: 0, to: 99 },
    every: options.every,
    outcomeAlarm: options.outcomeAlarm,
    requestedBy: options.by ?? context.requestedBy,
  };
  const blocking = options.blockingAlarm ?? [];
  if (blocking.length > 0) body.blockingAlarms = [...blocking];
  const dates = listOf(options.blockedDates);
  if (dates.length > 0) body.blockedDates = dates;
  const windows = listOf(options.blockedWindows);
  if (windows.length > 0) body.blockedWindows = windows;
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}

/** The body of `failout drill delete <name>`: the drill's cluster is its FIFO group. */
export function buildDeleteDrillBody(name: string, cluster: string, options: { reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): DeleteDrillBody {
  const body: DeleteDrillBody = { version: 1, requestId: context.requestId, action: 'deleteDrill', cluster, drill: name, requestedBy: options.by ?? context.requestedBy };
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}
