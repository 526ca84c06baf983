import type { FailoutPropertiesJson } from '../d2';
import { FailoutError } from './errors';
import type { BucketRange, FailoutConfig, FailoutPeer, FailoutWindow } from './types';

/** Number of request buckets: a bucket is an integer in `[0, BUCKETS)`. */
export const BUCKETS = 100;

/** `bucketOfflineRange` when a bucket entry has none: every bucket, so all traffic moves. */
export const ALL_BUCKETS: BucketRange = Object.freeze({ from: 0, to: BUCKETS - 1 });

/** `partition` when a bucket entry has none. */
export const DEFAULT_PARTITION = 'main';

/**
 * Parses a cluster's raw `failoutProperties` (as `LoadBalancerState.getFailoutProperties` gives them).
 *
 * - `undefined` / `null` (the codec's "absent, `null` or `{}`") → `undefined`: no failout.
 * - Present with both lists empty → a config that is never failed out (rest.li's test provider:
 *   "config present, not failed out"), so `FailoutConfigProvider.getFailoutConfig` stays non-null.
 * - Redirect entries: `{peer, weight?}`; `weight` is a positive integer, default 1. rest.li's serializer
 *   tests spell the peer `fabric`, which is accepted as an alias (both present must agree). A peer listed
 *   twice is malformed: the weights would be ambiguous.
 * - Bucket entries: `{partition?, bucketOfflineRange?, offlineAt?, onlineAt?, requestId?, requestedBy?,
 *   reason?}`. The range defaults to 0–99 and must satisfy `0 <= from <= to <= 99`. A missing
 *   `offlineAt` means "offline since always" (epoch 0): rest.li treats any bucket entry as failed out,
 *   and its serializer tests write `{partition: "main"}` alone. `onlineAt`, when present, must be later
 *   than `offlineAt`. The partition is kept but does not narrow the decision: requests carry no partition.
 * - Unknown keys in entries are ignored (the writer may add metadata).
 *
 * @throws FailoutError `malformedConfig` naming the first offending field.
 */
export function parseFailoutConfig(cluster: string, raw: FailoutPropertiesJson | null | undefined): FailoutConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  const fail = (field: string, problem: string): never => {
    throw new FailoutError('malformedConfig', `malformed failoutProperties of ${cluster}: ${field} ${problem}`, { cluster, field });
  };
  if (typeof raw !== 'object' || Array.isArray(raw)) fail('failoutProperties', 'must be an object');
  const redirects = listAt(raw.failoutRedirectConfigs, 'failoutRedirectConfigs', fail);
  const buckets = listAt(raw.failoutBucketConfigs, 'failoutBucketConfigs', fail);
  const peers: FailoutPeer[] = [];
  const seen = new Set<string>();
  redirects.forEach((item, i) => {
    const peer = readPeer(entryAt(item, `failoutRedirectConfigs[${i}]`, fail), `failoutRedirectConfigs[${i}]`, fail);
    if (seen.has(peer.cluster)) fail(`failoutRedirectConfigs[${i}].peer`, `repeats ${JSON.stringify(peer.cluster)}`);
    seen.add(peer.cluster);
    peers.push(peer);
  });
  const windows = buckets.map((item, i) => readWindow(entryAt(item, `failoutBucketConfigs[${i}]`, fail), `failoutBucketConfigs[${i}]`, fail));
  return new ParsedFailoutConfig(cluster, peers, windows);
}

type Fail = (field: string, problem: string) => never;
type Entry = Record<string, unknown>;

function listAt(value: unknown, field: string, fail: Fail): readonly unknown[] {
  // The codec defaults both lists to []; a hand-built object may leave them out.
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(field, 'must be a list');
  return value;
}

function entryAt(value: unknown, field: string, fail: Fail): Entry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(field, 'must be an object');
  return value as Entry;
}

function readPeer(entry: Entry, field: string, fail: Fail): FailoutPeer {
  const peer = entry.peer;
  const fabric = entry.fabric;
  if (peer !== undefined && fabric !== undefined && peer !== fabric) fail(`${field}.fabric`, 'disagrees with peer');
  const name = peer ?? fabric;
  if (name === undefined) return fail(`${field}.peer`, 'is missing');
  if (typeof name !== 'string' || name === '') return fail(`${field}.${peer === undefined ? 'fabric' : 'peer'}`, 'must be a non-empty string');
  const weight = entry.weight ?? 1;
  if (typeof weight !== 'number' || !Number.isSafeInteger(weight) || weight < 1) fail(`${field}.weight`, 'must be a positive integer');
  return Object.freeze({ cluster: name, weight: weight as number });
}

function readWindow(entry: Entry, field: string, fail: Fail): FailoutWindow {
  const partition = entry.partition ?? DEFAULT_PARTITION;
  if (typeof partition !== 'string' || partition === '') fail(`${field}.partition`, 'must be a non-empty string');
  const buckets = readRange(entry.bucketOfflineRange, `${field}.bucketOfflineRange`, fail);
  const offlineAt = entry.offlineAt ?? 0;
  if (!isTime(offlineAt)) return fail(`${field}.offlineAt`, 'must be epoch milliseconds (a non-negative number)');
  const onlineAt = entry.onlineAt ?? undefined;
  if (onlineAt !== undefined) {
    if (!isTime(onlineAt)) return fail(`${field}.onlineAt`, 'must be epoch milliseconds (a non-negative number)');
    // A window that ends before it starts is never active: almost certainly a writer bug, so say so.
    if (onlineAt <= offlineAt) fail(`${field}.onlineAt`, 'must be later than offlineAt');
  }
  return Object.freeze({
    partition: partition as string,
    buckets,
    offlineAt,
    onlineAt,
    requestId: optionalString(entry.requestId, `${field}.requestId`, fail),
    requestedBy: optionalString(entry.requestedBy, `${field}.requestedBy`, fail),
    reason: optionalString(entry.reason, `${field}.reason`, fail),
  });
}

function readRange(value: unknown, field: string, fail: Fail): BucketRange {
  if (value === undefined || value === null) return ALL_BUCKETS;
  const range = entryAt(value, field, fail);
  const from = range.from;
  const to = range.to;
  if (!isBucket(from)) return fail(`${field}.from`, `must be an integer from 0 to ${BUCKETS - 1}`);
  if (!isBucket(to)) return fail(`${field}.to`, `must be an integer from 0 to ${BUCKETS - 1}`);
  if (from > to) fail(field, 'must have from <= to');
  return Object.freeze({ from, to });
}

function isBucket(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < BUCKETS;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function optionalString(value: unknown, field: string, fail: Fail): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return fail(field, 'must be a string');
  return value;
}

/**
 * The parsed, immutable config. Fixed after construction; the time-dependent answers are computed on
 * every call (a few windows at most), so scheduled starts and ends need no further write.
 */
class ParsedFailoutConfig implements FailoutConfig {
  private readonly peerClusters: ReadonlySet<string>;

  constructor(
    readonly cluster: string,
    readonly peers: readonly FailoutPeer[],
    readonly windows: readonly FailoutWindow[],
  ) {
    Object.freeze(peers);
    Object.freeze(windows);
    this.peerClusters = new Set(peers.map((p) => p.cluster));
  }

  isFailedOut(now: number = Date.now()): boolean {
    for (const window of this.windows) if (isActive(window, now)) return true;
    return false;
  }

  isBucketFailedOut(bucket: number, now: number = Date.now()): boolean {
    for (const window of this.windows) {
      if (isActive(window, now) && bucket >= window.buckets.from && bucket <= window.buckets.to) return true;
    }
    return false;
  }

  getPeerClusters(): ReadonlySet<string> {
    return this.peerClusters;
  }
}

function isActive(window: FailoutWindow, now: number): boolean {
  return window.offlineAt <= now && (window.onlineAt === undefined || now < window.onlineAt);
}
