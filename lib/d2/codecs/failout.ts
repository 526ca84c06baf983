/**
 * The one codec of a cluster's `failoutProperties` (ARCHITECTURE "Failout properties"). The cluster
 * codec reads and writes the key through it, the request worker builds the typed model and writes it
 * through it, and the failout runtime (`lib/failout`) and the CLI read what it returns.
 *
 * rest.li (`FailoutProperties`, `ClusterPropertiesJsonSerializer`) keeps two lists of opaque maps and
 * leaves their meaning to LinkedIn's internal provider. This codec gives the entries the meaning the
 * architecture defines and validates them with one rule table that the reader and the writer share,
 * so the writer never writes what a reader refuses. Where it differs from rest.li:
 * - A malformed entry makes the whole cluster document malformed (a `malformed` D2Error), as a
 *   ClassCastException in rest.li's `fromMap` becomes a `PropertySerializationException`: the property
 *   store keeps the last good cluster properties, the one "last good" rule of the format.
 * - rest.li's serializer tests write the redirect entry `{}`. It names no peer, so it is counted
 *   (`ignoredRedirectEntries`), ignored for routing and written back after the other entries.
 * - Entries are written back with the keys they were read with (an absent key stays absent, `fabric`
 *   stays `fabric`), as rest.li writes its maps back; unknown keys are kept at every level. A known
 *   number is written in its plain form (`"weight":2.0` is read as 2 and written as `2`).
 */

import { malformed } from '../errors';
import { znodeNameProblem } from '../names';
import type {
  FailoutBucketConfig,
  FailoutBucketRange,
  FailoutPeerKey,
  FailoutProperties,
  FailoutRampHold,
  FailoutRedirectConfig,
  UnknownKeys,
} from '../model';
import { decodeMember, fieldPath, isJsonObject, type ObjectReader } from './json';
import { appendExtra, writeJson } from './json-writer';

/** Number of request buckets: a bucket is an integer in `[0, BUCKETS)`. */
export const BUCKETS = 100;

/** `bucketOfflineRange` when a bucket entry has none: every bucket, so all traffic moves. */
export const ALL_BUCKETS: Readonly<Pick<FailoutBucketRange, 'from' | 'to'>> = Object.freeze({ from: 0, to: BUCKETS - 1 });

/** `partition` when a bucket entry has none. */
export const DEFAULT_PARTITION = 'main';

/** `weight` when a redirect entry has none. */
export const DEFAULT_WEIGHT = 1;

/** The key of the format inside a cluster document; every error path starts with it. */
const KEY = 'failoutProperties';
const FAILOUT_KEYS: ReadonlySet<string> = new Set(['failoutRedirectConfigs', 'failoutBucketConfigs', 'rampHold']);
/**
 * `rampHold` (issue 24): the steps of a held ramp, kept beside the routed entries so a resume can put
 * them back. A reader that does not know the key keeps and ignores it (unknown keys are kept), so a held
 * step never starts anywhere.
 */
const HOLD_KEY = 'rampHold';
const HOLD_KEYS: ReadonlySet<string> = new Set(['heldAt', 'failoutBucketConfigs', 'requestId', 'requestedBy', 'reason']);
const REDIRECT_KEYS: ReadonlySet<string> = new Set(['peer', 'fabric', 'weight']);
const RANGE_KEYS: ReadonlySet<string> = new Set(['from', 'to']);

/** A value rule: the problem with `value`, phrased to follow the field name, or undefined when it is fine. */
type Rule = (value: unknown) => string | undefined;

const isString: Rule = (v) => (typeof v === 'string' ? undefined : 'must be a string');
const isName: Rule = (v) => (typeof v === 'string' && v !== '' ? undefined : 'must be a non-empty string');
// A peer names a cluster node: a name that cannot be one (`..`, a slash, NUL) is no typo to route
// around but a document no writer of ours made (issue 14); refusing it keeps every reader's last good.
const isPeerName: Rule = (v) => {
  if (typeof v !== 'string' || v === '') return 'must be a non-empty string';
  const problem = znodeNameProblem(v);
  return problem === undefined ? undefined : `must be a cluster name, but ${JSON.stringify(v)} ${problem}`;
};
const isWeight: Rule = (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? undefined : 'must be a positive integer');
/** The latest epoch ms a JavaScript Date can hold: a later "time" cannot even be displayed. */
const MAX_TIME = 8.64e15;
const isTime: Rule = (v) =>
  typeof v === 'number' && v >= 0 && v <= MAX_TIME ? undefined : `must be epoch milliseconds (a number from 0 to ${MAX_TIME})`;
const isBucket: Rule = (v) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < BUCKETS ? undefined : `must be an integer from 0 to ${BUCKETS - 1}`;
const isStringList: Rule = (v) =>
  Array.isArray(v) && v.every((item) => typeof item === 'string') ? undefined : 'must be a list of strings';

/** The scalar keys of a bucket entry, in writing order, with their rules (`bucketOfflineRange` is nested). */
const BUCKET_RULES: ReadonlyArray<readonly [keyof FailoutBucketConfig & string, Rule]> = [
  ['partition', isName],
  ['offlineAt', isTime],
  ['onlineAt', isTime],
  ['requestId', isString],
  ['requestedBy', isString],
  ['reason', isString],
  ['stopAlarms', isStringList],
  ['drill', isString],
  ['forced', isStringList],
  ['evacuation', isString],
];
/** The keys of a bucket entry in writing order: ARCHITECTURE's, which puts the range before the window. */
const BUCKET_ORDER: ReadonlyArray<keyof FailoutBucketConfig & string> = [
  'partition',
  'bucketOfflineRange',
  ...BUCKET_RULES.map(([key]) => key).filter((key) => key !== 'partition'),
];
const BUCKET_KEYS: ReadonlySet<string> = new Set(BUCKET_ORDER);

/**
 * Parses the value of a cluster's `failoutProperties` on its own (the cluster codec reads it in place).
 * @param input - JSON text, UTF-8 bytes, or an already-parsed value; `undefined`, `null` and `{}` mean no
 * failout and give `null`.
 * @throws D2Error `malformed` (entity `cluster`) naming the field, e.g.
 * `failoutProperties.failoutRedirectConfigs[1].weight`.
 */
export function parseFailoutProperties(input: unknown): FailoutProperties | null {
  if (input === undefined || input === null) {
    return null;
  }
  if (typeof input === 'string') {
    const written = readAsWritten(input);
    if (written !== undefined) {
      return written;
    }
  }
  return decodeMember(input, 'cluster', KEY, readFailoutProperties);
}

/** Where {@link readAsWritten} checks an entry: its errors are never shown (the general reader says what is wrong). */
const UNSHOWN: Place = { path: KEY };

/**
 * The member as our writers write it, read from `JSON.parse`'s value without the general reader's
 * wrappers: every client reads every failout write, and nearly all are ours. Undefined for anything
 * else (invalid JSON, a key it does not know, a null, a `fabric` or `rampHold`, a broken rule): the
 * general reader reads those, so every value and error stays exactly its own. Equal to the general
 * reader here because what it takes holds no unknown keys, whose number literals that reader records,
 * and every number it takes passes a rule that leaves no integer beyond 2^53.
 */
function readAsWritten(text: string): FailoutProperties | undefined {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(root) || !onlyKnownKeys(root, FAILOUT_KEYS) || root[HOLD_KEY] !== undefined) {
    return undefined;
  }
  const redirectEntries = root.failoutRedirectConfigs;
  const bucketEntries = root.failoutBucketConfigs;
  if ((redirectEntries === undefined && bucketEntries === undefined) || !isListOrAbsent(redirectEntries) || !isListOrAbsent(bucketEntries)) {
    return undefined;
  }
  const props: FailoutProperties = { redirects: [], ignoredRedirectEntries: 0, buckets: [] };
  try {
    for (const entry of redirectEntries ?? []) {
      if (!isJsonObject(entry) || !onlyKnownKeys(entry, WRITTEN_REDIRECT_KEYS)) {
        return undefined;
      }
      const { peer, weight } = entry;
      if (peer === undefined && weight === undefined) {
        props.ignoredRedirectEntries++;
        continue;
      }
      if (typeof peer !== 'string' || weight === null) {
        return undefined;
      }
      const redirect = { peer } as FailoutRedirectConfig;
      if (weight !== undefined) {
        redirect.weight = weight as number;
      }
      checkRedirect(redirect, UNSHOWN, props.redirects, props.redirects.length);
      props.redirects.push(redirect);
    }
    for (const entry of bucketEntries ?? []) {
      const bucket = bucketAsWritten(entry);
      if (bucket === undefined) {
        return undefined;
      }
      checkBucket(bucket, UNSHOWN);
      props.buckets.push(bucket);
    }
  } catch {
    return undefined;
  }
  return props;
}

/** A bucket entry as {@link readBucket} reads it, or undefined when it holds a null or a key it does not know. */
function bucketAsWritten(entry: unknown): FailoutBucketConfig | undefined {
  if (!isJsonObject(entry) || !onlyKnownKeys(entry, BUCKET_KEYS)) {
    return undefined;
  }
  const bucket: Record<string, unknown> = {};
  const range = entry.bucketOfflineRange;
  if (range !== undefined) {
    if (!isJsonObject(range) || !onlyKnownKeys(range, RANGE_KEYS)) {
      return undefined;
    }
    bucket.bucketOfflineRange = { from: range.from, to: range.to };
  }
  // Indexed, not destructured: every client reads every failout write, and a tuple pattern is an iterator.
  for (let i = 0; i < BUCKET_RULES.length; i++) {
    const key = BUCKET_RULES[i]![0];
    const value = entry[key];
    if (value === null) {
      return undefined;
    }
    if (value !== undefined) {
      // A copy: the model must not share a list with the parsed document.
      bucket[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
    }
  }
  return bucket as FailoutBucketConfig;
}

/** The redirect keys {@link readAsWritten} takes: `fabric` (an alias some documents use) is left to the general reader. */
const WRITTEN_REDIRECT_KEYS: ReadonlySet<string> = new Set(['peer', 'weight']);

function isListOrAbsent(value: unknown): value is unknown[] | undefined {
  return value === undefined || Array.isArray(value);
}

/** Whether every own key of `object` is in `known` (an own `__proto__` is not). */
function onlyKnownKeys(object: Record<string, unknown>, known: ReadonlySet<string>): boolean {
  for (const key in object) {
    if (!known.has(key)) {
      return false;
    }
  }
  return true;
}

/**
 * Writes `failoutProperties` on its own, as compact JSON text (what the cluster codec writes under the key).
 * @throws D2Error `malformed` naming the field when the model breaks a rule the reader enforces.
 */
export function serializeFailoutProperties(props: FailoutProperties): string {
  return writeJson(failoutPropertiesToJson(props), 'cluster');
}

/**
 * Reads `failoutProperties` of a document (the cluster codec's hook). Absent, `null` and `{}` give
 * `null`; each list defaults to `[]`.
 */
export function readFailoutProperties(root: ObjectReader): FailoutProperties | null {
  const r = root.optionalObject(KEY);
  if (r === null || r.isEmpty()) {
    return null;
  }
  const props: FailoutProperties = { redirects: [], ignoredRedirectEntries: 0, buckets: [] };
  for (const entry of r.objectList('failoutRedirectConfigs')) {
    if (entry.isEmpty()) {
      props.ignoredRedirectEntries++;
      continue;
    }
    const redirect = readRedirect(entry);
    checkRedirect(redirect, entry, props.redirects, props.redirects.length);
    props.redirects.push(redirect);
  }
  for (const entry of r.objectList('failoutBucketConfigs')) {
    const bucket = readBucket(entry);
    checkBucket(bucket, entry);
    props.buckets.push(bucket);
  }
  const hold = r.optionalObject(HOLD_KEY);
  if (hold !== null) {
    props.rampHold = readRampHold(hold);
  }
  return withExtra(props, r.unknownKeys(FAILOUT_KEYS));
}

/** A `rampHold` object: `heldAt` (epoch ms, required), the held bucket entries (each by the bucket rules), who and why. */
function readRampHold(h: ObjectReader): FailoutRampHold {
  const hold = { heldAt: h.raw('heldAt'), buckets: [] } as unknown as FailoutRampHold;
  for (const key of ['requestId', 'requestedBy', 'reason'] as const) {
    if (h.has(key)) {
      (hold as unknown as Record<string, unknown>)[key] = h.raw(key);
    }
  }
  for (const entry of h.objectList('failoutBucketConfigs')) {
    const bucket = readBucket(entry);
    checkBucket(bucket, entry);
    hold.buckets.push(bucket);
  }
  checkRampHold(hold, `${KEY}.${HOLD_KEY}`, false);
  return withExtra(hold, h.unknownKeys(HOLD_KEYS));
}

/** The rules of `rampHold` besides its bucket entries' (checked as read, or here when `buckets` is set): a time, and strings. */
function checkRampHold(hold: FailoutRampHold, path: string, buckets: boolean): void {
  check({ path }, 'heldAt', isTime(hold.heldAt));
  for (const key of ['requestId', 'requestedBy', 'reason'] as const) {
    if (hold[key] !== undefined) {
      check({ path }, key, isString(hold[key]));
    }
  }
  if (buckets) {
    hold.buckets.forEach((b, i) => checkBucket(b, { path: `${path}.failoutBucketConfigs[${i}]` }));
  }
}

function rampHoldToJson(hold: FailoutRampHold): Map<string, unknown> {
  const out = new Map<string, unknown>([['heldAt', hold.heldAt]]);
  out.set('failoutBucketConfigs', hold.buckets.map(bucketToJson));
  for (const key of ['requestId', 'requestedBy', 'reason'] as const) {
    if (hold[key] !== undefined) {
      out.set(key, hold[key]);
    }
  }
  return appendExtra(out, hold.extra, HOLD_KEYS);
}

/**
 * The JSON tree of `failoutProperties` for the writer, after the same checks the reader makes.
 * @throws D2Error `malformed` naming the field when the model breaks a rule.
 */
export function failoutPropertiesToJson(props: FailoutProperties): Map<string, unknown> {
  const ignored = props.ignoredRedirectEntries;
  if (!Number.isSafeInteger(ignored) || ignored < 0) {
    throw malformed('cluster', `${KEY}.failoutRedirectConfigs`, `has ${String(ignored)} ignored entries, which is not a count`);
  }
  const redirects = props.redirects.map((r, i) => {
    checkRedirect(r, { path: `${KEY}.failoutRedirectConfigs[${i}]` }, props.redirects, i);
    return redirectToJson(r);
  });
  const buckets = props.buckets.map((b, i) => {
    checkBucket(b, { path: `${KEY}.failoutBucketConfigs[${i}]` });
    return bucketToJson(b);
  });
  const out = new Map<string, unknown>([
    ['failoutRedirectConfigs', [...redirects, ...Array.from({ length: ignored }, () => new Map())]],
    ['failoutBucketConfigs', buckets],
  ]);
  if (props.rampHold !== undefined) {
    checkRampHold(props.rampHold, `${KEY}.${HOLD_KEY}`, true);
    out.set(HOLD_KEY, rampHoldToJson(props.rampHold));
  }
  return appendExtra(out, props.extra, FAILOUT_KEYS);
}

/** A redirect entry's keys, typed but not yet checked (see {@link checkRedirect}). */
function readRedirect(e: ObjectReader): FailoutRedirectConfig {
  const peer = e.has('peer') ? e.raw('peer') : undefined;
  const fabric = e.has('fabric') ? e.raw('fabric') : undefined;
  if (peer === undefined && fabric === undefined) {
    throw e.fail('peer', 'is missing or null');
  }
  if (peer !== undefined && fabric !== undefined && peer !== fabric) {
    throw e.fail('fabric', 'disagrees with peer');
  }
  const peerKey: FailoutPeerKey = fabric === undefined ? 'peer' : peer === undefined ? 'fabric' : 'both';
  const redirect = { peer: peer ?? fabric } as FailoutRedirectConfig;
  if (peerKey !== 'peer') {
    redirect.peerKey = peerKey;
  }
  if (e.has('weight')) {
    redirect.weight = e.raw('weight') as number;
  }
  return withExtra(redirect, e.unknownKeys(REDIRECT_KEYS));
}

/** A bucket entry's keys, typed but not yet checked (see {@link checkBucket}); null means absent. */
function readBucket(e: ObjectReader): FailoutBucketConfig {
  const bucket: Record<string, unknown> = {};
  const range = e.optionalObject('bucketOfflineRange');
  if (range !== null) {
    bucket.bucketOfflineRange = withExtra({ from: range.raw('from'), to: range.raw('to') } as FailoutBucketRange, range.unknownKeys(RANGE_KEYS));
  }
  for (const [key] of BUCKET_RULES) {
    const value = e.raw(key);
    if (value !== undefined && value !== null) {
      // A copy: the model must not share a list with the parsed document.
      bucket[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
    }
  }
  return withExtra(bucket as FailoutBucketConfig, e.unknownKeys(BUCKET_KEYS));
}

/**
 * The rules of a redirect entry, shared by reader and writer: a peer that can be a znode name, named
 * once in the list (not among the first `count` of `earlier`), and a positive integer weight. A scan
 * rather than a set: a failout names a few peers, and every client reads every failout write.
 */
function checkRedirect(r: FailoutRedirectConfig, at: Place, earlier: readonly FailoutRedirectConfig[], count: number): void {
  const peerKey = r.peerKey === 'fabric' ? 'fabric' : 'peer';
  check(at, peerKey, isPeerName(r.peer));
  for (let i = 0; i < count; i++) {
    if (earlier[i]!.peer === r.peer) {
      throw malformed('cluster', fieldPath(at.path, peerKey), `repeats ${JSON.stringify(r.peer)}`);
    }
  }
  if (r.weight !== undefined) {
    check(at, 'weight', isWeight(r.weight));
  }
}

/**
 * The rules of a bucket entry, shared by reader and writer: each present key's rule, a range with
 * `0 <= from <= to <= 99`, and an `onlineAt` later than the effective `offlineAt` (a window that ends
 * before it starts is never active: almost certainly a writer bug, so it is refused).
 */
function checkBucket(b: FailoutBucketConfig, at: Place): void {
  const range = b.bucketOfflineRange;
  if (range !== undefined) {
    check(at, 'bucketOfflineRange.from', isBucket(range.from));
    check(at, 'bucketOfflineRange.to', isBucket(range.to));
    if (range.from > range.to) {
      throw malformed('cluster', fieldPath(at.path, 'bucketOfflineRange'), 'must have from <= to');
    }
  }
  for (let i = 0; i < BUCKET_RULES.length; i++) {
    const entry = BUCKET_RULES[i]!;
    const key = entry[0];
    if (b[key] !== undefined) {
      check(at, key, entry[1](b[key]));
    }
  }
  if (b.onlineAt !== undefined && b.onlineAt <= (b.offlineAt ?? 0)) {
    throw malformed('cluster', fieldPath(at.path, 'onlineAt'), 'must be later than offlineAt');
  }
}

/**
 * Where an entry sits, for errors: the reader's {@link ObjectReader}, whose path is built only when
 * read, or the writer's path.
 */
interface Place {
  readonly path: string;
}

/** Throws for `problem` at `path.key`; the path is built only then (every read checks every key). */
function check(at: Place, key: string, problem: string | undefined): void {
  if (problem !== undefined) {
    throw malformed('cluster', fieldPath(at.path, key), problem);
  }
}

function redirectToJson(r: FailoutRedirectConfig): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (r.peerKey !== 'fabric') {
    out.set('peer', r.peer);
  }
  if (r.peerKey === 'fabric' || r.peerKey === 'both') {
    out.set('fabric', r.peer);
  }
  if (r.weight !== undefined) {
    out.set('weight', r.weight);
  }
  return appendExtra(out, r.extra, REDIRECT_KEYS);
}

function bucketToJson(b: FailoutBucketConfig): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const key of BUCKET_ORDER) {
    if (key === 'bucketOfflineRange') {
      const range = b.bucketOfflineRange;
      if (range !== undefined) {
        out.set(key, appendExtra(new Map<string, unknown>([['from', range.from], ['to', range.to]]), range.extra, RANGE_KEYS));
      }
    } else if (b[key] !== undefined) {
      out.set(key, b[key]);
    }
  }
  return appendExtra(out, b.extra, BUCKET_KEYS);
}

/** Sets `extra` only when there are unknown keys, so a model built without it compares equal to a read one. */
function withExtra<T extends { extra?: UnknownKeys }>(target: T, extra: UnknownKeys | undefined): T {
  if (extra !== undefined) {
    target.extra = extra;
  }
  return target;
}

/** A bucket entry with the format's defaults applied: what it means for routing and display. */
export interface EffectiveFailoutBucket {
  /** The entry's `partition`, or `main`. */
  readonly partition: string;
  /** The entry's `bucketOfflineRange` (without its unknown keys), or 0–99. */
  readonly range: Readonly<Pick<FailoutBucketRange, 'from' | 'to'>>;
  /** The entry's `offlineAt`, or 0 (offline since always). */
  readonly offlineAt: number;
  /** The entry's `onlineAt`; undefined: offline until the entry is removed. */
  readonly onlineAt: number | undefined;
}

/** Applies the defaults of ARCHITECTURE "Failout properties" to one bucket entry. */
export function effectiveBucket(b: FailoutBucketConfig): EffectiveFailoutBucket {
  const range = b.bucketOfflineRange;
  return {
    partition: b.partition ?? DEFAULT_PARTITION,
    range: range === undefined ? ALL_BUCKETS : { from: range.from, to: range.to },
    offlineAt: b.offlineAt ?? 0,
    onlineAt: b.onlineAt,
  };
}

/** A redirect entry's weight: its `weight`, or 1. */
export function redirectWeight(r: FailoutRedirectConfig): number {
  return r.weight ?? DEFAULT_WEIGHT;
}

/**
 * Whether a bucket entry's window is open at `now`: `offlineAt <= now` and (no `onlineAt` or
 * `now < onlineAt`). The one statement of the rule: the runtime, the worker's peer check and the CLI
 * all ask it, so a scheduled start or end takes effect everywhere with no further write.
 */
export function isBucketConfigActiveAt(b: FailoutBucketConfig, now: number): boolean {
  return (b.offlineAt ?? 0) <= now && (b.onlineAt === undefined || now < b.onlineAt);
}

/** Whether the cluster is failed out at `now`: some bucket entry is active. `null`/`undefined`: no failout. */
export function isFailedOutAt(props: FailoutProperties | null | undefined, now: number): boolean {
  if (props === null || props === undefined) {
    return false;
  }
  for (const b of props.buckets) {
    if (isBucketConfigActiveAt(b, now)) {
      return true;
    }
  }
  return false;
}

/** Whether request bucket `bucket` (0–99) is redirected at `now`: some active entry's range covers it. */
export function isBucketFailedOutAt(props: FailoutProperties | null | undefined, bucket: number, now: number): boolean {
  if (props === null || props === undefined) {
    return false;
  }
  for (const b of props.buckets) {
    const range = b.bucketOfflineRange ?? ALL_BUCKETS;
    if (bucket >= range.from && bucket <= range.to && isBucketConfigActiveAt(b, now)) {
      return true;
    }
  }
  return false;
}
