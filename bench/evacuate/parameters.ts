// bench/evacuate: the command line. Integer counts as every benchmark takes them (bench/lib/args), plus
// two words: which part runs and which writer judges and writes.
import { FANOUT_OPTIONS, fanoutParameters, parseIntOptions, takeString, type FanoutParameters } from '../lib/args';

/** Which parts run: A (SQS → clients, with the fan-out floor), B (the worker's judgement and write at scale), or both. */
export type Part = 'all' | 'propagation' | 'judgement';
/**
 * Who handles `evacuate` / `restoreFabric`: the real `RequestWriter` (the default), or the stand-in
 * of stub-writer.ts (the same write, no judging) to check the benchmark itself.
 */
export type WriterKind = 'real' | 'stub';

/** Part A: 100 services × 3 fabrics, 1,000 clients following 10 services each. */
export interface PropagationParameters extends FanoutParameters {
  services: number;
  clients: number;
  follow: number;
  hosts: number;
  teardownDelayMs: number;
  /**
   * `--max-semi-space-size` (MiB) of every worker process, clients and floor alike; 0 leaves node's
   * default. Each process holds hundreds of clients' state, and a young generation sized for one
   * client's promotes most of every round's updates (see the note in index.ts).
   */
  semiSpaceMb: number;
}

/** Part B: 1,000 services × 3 fabrics, evacuate + restore rounds through `RequestWriter.process`. */
export interface JudgementParameters {
  services: number;
  hosts: number;
  rounds: number;
  warmup: number;
}

export interface Parameters {
  part: Part;
  writer: WriterKind;
  propagation: PropagationParameters;
  judgement: JudgementParameters;
}

const WORDS = { part: ['all', 'propagation', 'judgement'], writer: ['real', 'stub'] } as const;

/** Removes `--name value` / `--name=value` from `args` (bench/lib/args `takeString`); the value must be one of `allowed`. */
function takeWord<T extends string>(args: string[], name: string, allowed: readonly T[], fallback: T): T {
  const value = takeString(args, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`--${name} must be one of ${allowed.join(', ')}, got ${value}`);
  return value as T;
}

/** Parses the command line; unknown flags and bad values fail with a message naming the flag. */
export function parameters(argv: readonly string[]): Parameters {
  const args = [...argv];
  const part = takeWord(args, 'part', WORDS.part, 'all');
  const writer = takeWord(args, 'writer', WORDS.writer, 'real');
  const v = parseIntOptions(args, {
    services: { default: 100, min: 1 },
    clients: { default: 1000, min: 1 },
    follow: { default: 10, min: 1 },
    hosts: { default: 3, min: 1 },
    ...FANOUT_OPTIONS,
    // Two of each: the second evacuation is the first to take back the peers a restore dropped (their
    // teardown still pending), a path of its own that must not run for the first time in a measured round.
    warmup: { default: 4, min: 0 },
    'teardown-delay-ms': { default: 60_000, min: 0 },
    'semi-space-mb': { default: 64, min: 0 },
    'judge-services': { default: 1000, min: 1 },
    'judge-rounds': { default: 20, min: 1 },
    'judge-warmup': { default: 1, min: 0 },
  });
  return {
    part,
    writer,
    propagation: {
      services: v.services,
      clients: v.clients,
      follow: Math.min(v.follow, v.services),
      hosts: v.hosts,
      ...fanoutParameters(v, v.clients),
      teardownDelayMs: v['teardown-delay-ms'],
      semiSpaceMb: v['semi-space-mb'],
    },
    judgement: { services: v['judge-services'], hosts: v.hosts, rounds: v['judge-rounds'], warmup: v['judge-warmup'] },
  };
}
