import { parseArgs } from 'node:util';

/** One integer option: its default and the smallest value allowed. */
export interface IntOption {
  readonly default: number;
  readonly min: number;
}

/**
 * Parses `--name <int>` options strictly: unknown flags and values below `min` fail with a message
 * naming the flag. Returns the values by option name.
 */
export function parseIntOptions<K extends string>(args: string[], spec: Record<K, IntOption>): Record<K, number> {
  const names = Object.keys(spec) as K[];
  const { values } = parseArgs({
    args,
    options: Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
    strict: true,
  });
  const result = {} as Record<K, number>;
  for (const name of names) {
    const text = (values as Record<string, string | undefined>)[name];
    const value = text === undefined ? spec[name].default : Number(text);
    if (!Number.isInteger(value) || value < spec[name].min) throw new Error(`--${name} must be an integer ≥ ${spec[name].min}, got ${String(text)}`);
    result[name] = value;
  }
  return result;
}

/** The options every fan-out style benchmark takes besides its client count (zk-fanout, failout-propagation, propagation). */
export const FANOUT_OPTIONS = {
  processes: { default: 4, min: 1 },
  rounds: { default: 20, min: 1 },
  warmup: { default: 2, min: 0 },
  'gap-ms': { default: 100, min: 0 },
  'session-timeout-ms': { default: 30000, min: 1000 },
  'connect-concurrency': { default: 20, min: 1 },
  'round-timeout-ms': { default: 30000, min: 100 },
} as const satisfies Record<string, IntOption>;

/** The parsed {@link FANOUT_OPTIONS}, never more processes than `count` (every worker runs at least one session). */
export interface FanoutParameters {
  processes: number;
  rounds: number;
  warmup: number;
  gapMs: number;
  sessionTimeoutMs: number;
  connectConcurrency: number;
  roundTimeoutMs: number;
}

/** Maps parsed {@link FANOUT_OPTIONS} values to {@link FanoutParameters}. */
export function fanoutParameters(v: Record<keyof typeof FANOUT_OPTIONS, number>, count: number): FanoutParameters {
  return {
    processes: Math.min(v.processes, count),
    rounds: v.rounds,
    warmup: v.warmup,
    gapMs: v['gap-ms'],
    sessionTimeoutMs: v['session-timeout-ms'],
    connectConcurrency: v['connect-concurrency'],
    roundTimeoutMs: v['round-timeout-ms'],
  };
}

/**
 * Removes `--name value` / `--name=value` from `args` (in place, so the rest can go to
 * {@link parseIntOptions}, which refuses unknown flags) and returns the value, the last one given.
 */
export function takeString(args: string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === `--${name}`) {
      value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
      args.splice(i--, 2);
    } else if (arg.startsWith(`--${name}=`)) {
      value = arg.slice(name.length + 3);
      args.splice(i--, 1);
    }
  }
  return value;
}

/** Removes `--name` / `--no-name` from `args` (in place): true, false, or undefined when neither is given (the last one wins). */
export function takeFlag(args: string[], name: string): boolean | undefined {
  let value: boolean | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) value = true;
    else if (args[i] === `--no-${name}`) value = false;
    else continue;
    args.splice(i--, 1);
  }
  return value;
}
