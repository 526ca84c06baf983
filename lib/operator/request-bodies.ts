import { formatIsoDuration, parseBuckets, parseDuration, parsePeers, parseRamp, parseShare, parseTime, parseWindow, type BucketsArg, type PeerArg, type RampStepArg } from './inputs';
import { inputError } from './errors';

/** The options of `failout out`, as commander hands them over (strings, unparsed). */
export interface OutOptions {
  peer?: string[];
  for?: string;
  until?: string;
  at?: string;
  share?: string;
  buckets?: string;
  ramp?: string;
  /** `--stop-alarm`, repeated: CloudWatch alarm names that stop the failout. */
  stopAlarm?: string[];
  reason?: string;
  by?: string;
  force?: boolean;
}

/**
 * What the send path (`validateLocally`, `judgeBeforeSend`, `sendRequest`) needs of any request body:
 * JSON with its id, its action and its cluster (the FIFO group). Failout bodies and drill bodies
 * (`drill-body.ts`) are both this.
 */
export interface SendableBody {
  readonly version: 1;
  readonly requestId: string;
  readonly action: string;
  readonly cluster: string;
}

/** A change request body (version 1 of "Change request" in the architecture), as the CLI sends it. */
export interface RequestBody {
  version: 1;
  requestId: string;
  action: 'failout' | 'restore' | 'extend';
  cluster: string;
  peers?: PeerArg[];
  offlineAt?: string;
  onlineAt?: string;
  duration?: string;
  buckets?: BucketsArg;
  ramp?: RampStepArg[];
  stopAlarms?: string[];
  requestedBy: string;
  reason?: string;
  force?: boolean;
}

/**
 * The body of `failout out <cluster> …`. `--for` without `--at` is sent as an ISO-8601 `duration`, so
 * the window starts when the worker applies the request, not when the operator typed it; with `--at`
 * the CLI sends both ends. `--until` is sent as `onlineAt`.
 *
 * @throws OperatorError `usage` naming the flag when a value is bad or a required one is missing.
 */
export function buildFailoutBody(cluster: string, options: OutOptions, context: { requestId: string; now: number; requestedBy: string }): RequestBody {
  const peers = parsePeers(options.peer ?? []);
  if (peers.length === 0) throw inputError('give at least one --peer <cluster>[:weight] to take the traffic (example: --peer greetings-lva1:2)', 'peers');
  const window = parseWindow(options, context.now);
  if (options.share !== undefined && options.buckets !== undefined) throw inputError('give either --share <pct> or --buckets <a-b>, not both', 'share');
  const body: RequestBody = { version: 1, requestId: context.requestId, action: 'failout', cluster, peers, requestedBy: options.by ?? context.requestedBy, ...window };
  body.buckets = options.buckets !== undefined ? parseBuckets(options.buckets) : options.share !== undefined ? parseShare(options.share) : { from: 0, to: 99 };
  if (options.ramp !== undefined) body.ramp = parseRamp(options.ramp);
  // Sent as given: the worker's own rules (validateLocally) name a bad alarm before anything is sent.
  if (options.stopAlarm !== undefined && options.stopAlarm.length > 0) body.stopAlarms = [...options.stopAlarm];
  if (options.reason !== undefined) body.reason = options.reason;
  body.force = options.force === true;
  return body;
}

/**
 * The body of `failout extend <cluster> (--for <dur> | --until <time>)`. `--for` is sent as a
 * `duration`, counted from when the worker applies it; `--until` as `onlineAt`.
 *
 * @throws OperatorError `usage` naming the flag when a value is bad or the end is missing.
 */
export function buildExtendBody(
  cluster: string,
  options: { for?: string; until?: string; reason?: string; by?: string; force?: boolean },
  context: { requestId: string; now: number; requestedBy: string },
): RequestBody {
  if (options.for !== undefined && options.until !== undefined) throw inputError('give either --for <duration> or --until <time>, not both', 'for');
  if (options.for === undefined && options.until === undefined) throw inputError('say the new end: --for <duration> from now (e.g. --for 1h) or --until <time> (e.g. --until 2026-11-30T18:00:00Z)', 'for');
  const body: RequestBody = { version: 1, requestId: context.requestId, action: 'extend', cluster, requestedBy: options.by ?? context.requestedBy };
  if (options.until !== undefined) body.onlineAt = new Date(parseTime(options.until, context.now, '--until')).toISOString();
  else if (options.for !== undefined) body.duration = formatIsoDuration(parseDuration(options.for, '--for'));
  if (options.reason !== undefined) body.reason = options.reason;
  if (options.force === true) body.force = true;
  return body;
}

/** The body of `failout restore <cluster>`. */
export function buildRestoreBody(cluster: string, options: { reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): RequestBody {
  const body: RequestBody = { version: 1, requestId: context.requestId, action: 'restore', cluster, requestedBy: options.by ?? context.requestedBy };
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}
