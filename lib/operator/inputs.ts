import { inputError } from './errors';

/**
 * Pure parsers for the operator's text inputs (the CLI's flag values, the console's form fields). Each
 * throws an input error ({@link inputError}) whose message names the flag, shows what it got and gives
 * an example of what works, and whose `field` names the input.
 */

/** A peer as the operator wrote it: `greetings-lva1` or `greetings-lva1:2`. */
export interface PeerArg {
  readonly cluster: string;
  readonly weight: number;
}

/** An inclusive bucket range, 0–99. */
export interface BucketsArg {
  readonly from: number;
  readonly to: number;
}

/** The input field a flag sets: `--for` → `for`. */
export function fieldOf(flag: string): string {
  return flag.replace(/^--/, '');
}

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;

/**
 * `--peer` values: `name[:weight]`, repeatable and comma-separated (`a:2,b`). Weights are positive
 * integers, default 1. A peer given twice is an error (its weight would be ambiguous).
 */
export function parsePeers(values: readonly string[]): PeerArg[] {
  const peers: PeerArg[] = [];
  for (const item of values.flatMap((v) => v.split(',')).map((v) => v.trim())) {
    if (item === '') continue;
    const colon = item.lastIndexOf(':');
    const cluster = colon < 0 ? item : item.slice(0, colon);
    const weightText = colon < 0 ? '1' : item.slice(colon + 1);
    const weight = Number(weightText);
    if (cluster === '') throw inputError(`--peer ${JSON.stringify(item)}: the cluster name is missing (example: --peer greetings-lva1:2)`, 'peers');
    if (!/^\d+$/.test(weightText) || !Number.isSafeInteger(weight) || weight < 1) {
      throw inputError(`--peer ${JSON.stringify(item)}: the weight must be a positive integer (example: --peer greetings-lva1:2)`, 'peers');
    }
    if (peers.some((p) => p.cluster === cluster)) throw inputError(`--peer ${cluster} is given twice; give each peer once with its weight`, 'peers');
    peers.push({ cluster, weight });
  }
  return peers;
}

/**
 * A duration in milliseconds: `90m`, `2h`, `1h30m`, `45s`, `1d`, or ISO-8601 (`PT2H`, `PT1H30M`, `P1D`).
 * Zero is refused: a failout must last some time.
 */
export function parseDuration(text: string, flag = '--for'): number {
  const value = text.trim();
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i.exec(value);
  let ms: number | undefined;
  if (iso && value.length > 1 && !/T$/i.test(value)) {
    const [, d, h, m, s] = iso;
    ms = Number(d ?? 0) * UNIT_MS.d + Number(h ?? 0) * UNIT_MS.h + Number(m ?? 0) * UNIT_MS.m + Number(s ?? 0) * UNIT_MS.s;
  } else if (/^(\d+[dhms])+$/i.test(value)) {
    ms = 0;
    for (const [, n, unit] of value.toLowerCase().matchAll(/(\d+)([dhms])/g)) ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  if (ms === undefined || !Number.isSafeInteger(ms)) throw inputError(`${flag} ${JSON.stringify(text)} is not a duration (examples: 90m, 2h, 1h30m, PT2H)`, fieldOf(flag));
  if (ms === 0) throw inputError(`${flag} must be longer than zero`, fieldOf(flag));
  return ms;
}

/** ISO-8601 for a whole number of seconds: 5_400_000 → `PT1H30M`. Sub-second parts are dropped. */
export function formatIsoDuration(ms: number): string {
  let seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600);
  seconds -= h * 3600;
  const m = Math.floor(seconds / 60);
  seconds -= m * 60;
  const parts = `${h > 0 ? `${h}H` : ''}${m > 0 ? `${m}M` : ''}${seconds > 0 ? `${seconds}S` : ''}`;
  return `PT${parts === '' ? '0S' : parts}`;
}

/**
 * A point in time (epoch ms): `now`, `+30m` (relative to `now`), or ISO-8601 with a zone
 * (`2026-11-30T16:00:00Z`, `…+01:00`). A time without a zone is refused rather than read as the
 * laptop's local time: in an incident the operator and the servers may not share one. So is a date
 * the calendar does not have (`2026-04-31`, `2026-02-29`) or hour 24: `Date.parse` would roll it
 * over to the next day, silently moving the window a day from what was typed (the worker's own
 * schema refuses such an instant, and so does the console's history filter).
 */
export function parseTime(text: string, now: number, flag: string): number {
  const value = text.trim();
  if (value.toLowerCase() === 'now') return now;
  if (value.startsWith('+')) return now + parseDuration(value.slice(1), flag);
  const zoned = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(value);
  const ms = Date.parse(value);
  if (!zoned || Number.isNaN(ms)) {
    throw inputError(`${flag} ${JSON.stringify(text)} is not a time with a zone (examples: 2026-11-30T16:00:00Z, +30m, now)`, fieldOf(flag));
  }
  const [year, month, day, hour] = [Number(zoned[1]), Number(zoned[2]), Number(zoned[3]), Number(zoned[4])];
  // setUTCFullYear, unlike Date.UTC, takes years 0–99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23) {
    throw inputError(`${flag} ${JSON.stringify(text)} is not a time the calendar has (no such day or hour); check the date (example: 2026-11-30T16:00:00Z)`, fieldOf(flag));
  }
  return ms;
}

/** `--share <pct>`: 1–100 percent of the traffic → buckets `0` to `pct - 1`. A trailing `%` is allowed. */
export function parseShare(text: string): BucketsArg {
  const pct = Number(text.trim().replace(/%$/, ''));
  if (!Number.isInteger(pct) || pct < 1 || pct > 100) throw inputError(`--share ${JSON.stringify(text)} must be a whole percentage from 1 to 100 (example: --share 50)`, 'share');
  return { from: 0, to: pct - 1 };
}

/** `--buckets <a-b>`: an inclusive range with `0 <= a <= b <= 99`; a single `n` means `n-n`. */
export function parseBuckets(text: string): BucketsArg {
  const match = /^\s*(\d{1,2})(?:\s*-\s*(\d{1,2}))?\s*$/.exec(text);
  const from = Number(match?.[1]);
  const to = Number(match?.[2] ?? match?.[1]);
  if (!match || from > to) throw inputError(`--buckets ${JSON.stringify(text)} must be a range a-b with 0 <= a <= b <= 99 (example: --buckets 0-49)`, 'buckets');
  return { from, to };
}

/** One ramp step as the CLI sends it: a cumulative percentage and, on every step but the last, how long it holds (ISO-8601). */
export interface RampStepArg {
  readonly percent: number;
  readonly duration?: string;
}

/**
 * `--ramp 10%:5m,50%:10m,100%`: cumulative percentages of the moved range (`--share`/`--buckets`,
 * default all), each but the last with how long it holds. Only the shape is checked here; the
 * worker's rules (increasing, ending at 100, within the window, at most 10 steps) run in
 * `validateLocally`, so the CLI and the worker give the same reasons.
 */
export function parseRamp(text: string): RampStepArg[] {
  const steps: RampStepArg[] = [];
  for (const item of text.split(',').map((v) => v.trim())) {
    const match = /^(\d{1,3})%?(?::(.+))?$/.exec(item);
    if (!match) throw inputError(`--ramp ${JSON.stringify(text)}: ${JSON.stringify(item)} is not <pct>%[:<duration>] (example: --ramp 10%:5m,50%:10m,100%)`, 'ramp');
    const step: RampStepArg = match[2] === undefined ? { percent: Number(match[1]) } : { percent: Number(match[1]), duration: formatIsoDuration(parseDuration(match[2], '--ramp')) };
    steps.push(step);
  }
  return steps;
}

/** A request's window as the schema takes it: a start when `--at` was given, and one end. */
export interface WindowArgs {
  offlineAt?: string;
  onlineAt?: string;
  duration?: string;
}

/**
 * The window of `--at`, `--for` and `--until` (exactly one of the last two), as request fields:
 * `--for` without `--at` stays a duration (the worker starts it when it applies it).
 * @throws OperatorError `input` naming the flag.
 */
export function parseWindow(options: { readonly at?: string | undefined; readonly for?: string | undefined; readonly until?: string | undefined }, now: number): WindowArgs {
  if (options.for !== undefined && options.until !== undefined) throw inputError('give either --for <duration> or --until <time>, not both', 'for');
  if (options.for === undefined && options.until === undefined) throw inputError('say how long: --for <duration> (e.g. --for 2h) or --until <time> (e.g. --until 2026-11-30T18:00:00Z)', 'for');
  const window: WindowArgs = {};
  const at = options.at === undefined ? undefined : parseTime(options.at, now, '--at');
  if (at !== undefined) window.offlineAt = new Date(at).toISOString();
  if (options.until !== undefined) {
    const until = parseTime(options.until, now, '--until');
    if (until <= (at ?? now)) throw inputError(`--until ${options.until} is not after the start; pick a later end`, 'until');
    window.onlineAt = new Date(until).toISOString();
  } else if (options.for !== undefined) {
    const ms = parseDuration(options.for, '--for');
    if (at === undefined) window.duration = formatIsoDuration(ms);
    else window.onlineAt = new Date(at + ms).toISOString();
  }
  return window;
}
