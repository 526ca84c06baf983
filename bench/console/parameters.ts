// bench/console: the command line. Integer counts as every benchmark takes them (bench/lib/args), and
// `--quick`: the same measurements at smoke sizes (a few services, two pages, seconds not minutes),
// which `npm run bench -- --quick` and the unit test's smoke check use. A count given explicitly wins
// over `--quick`'s.
import { resolve } from 'node:path';
import { parseIntOptions, takeString, type IntOption } from '../lib/args';

/** This repository (whose lib/console runs unless `--console-from` names another checkout). */
const REPOSITORY = resolve(__dirname, '..', '..');

/** Everything the benchmark is run with; the names are the flags' (`--cpu-pages` → `cpuPages`). */
export interface Parameters {
  readonly quick: boolean;
  /**
   * The checkout whose lib/console the benchmark runs: this repository by default, or `--console-from
   * <dir>` (a copy of another commit, its node_modules linked; see docs/benchmarks.md).
   */
  readonly consoleRoot: string;
  /** Services in the main world; each has 3 clusters (`svcNNNN-lor1|lva1|ltx1`). */
  readonly services: number;
  /** Hosts announced under each cluster. */
  readonly hosts: number;
  /** Clusters failed out when the world is seeded (each one window ending in 1 h: a countdown runs). */
  readonly failedOut: number;
  /** Request records written under the records path. */
  readonly records: number;
  /** Page loads measured one at a time (first paint, fully loaded). */
  readonly loads: number;
  /** Pages open while the changes are measured. */
  readonly pages: number;
  /** Changes written one after the other; each is measured in every page. */
  readonly changes: number;
  /** Pause between two measured changes. */
  readonly gapMs: number;
  /** How long one change may take to show in every page before it counts as missed. */
  readonly changeTimeoutMs: number;
  /** Idle window over which one page's received bytes are counted. */
  readonly idleS: number;
  /** Pages open while the console server's CPU is measured. */
  readonly cpuPages: number;
  /** Length of the CPU window. */
  readonly cpuS: number;
  /** A change every this often during the CPU window (and the selection window). */
  readonly everyMs: number;
  /** Services in the selection world (600 clusters at 200). */
  readonly selectionServices: number;
  /** How long the selection must survive. */
  readonly selectionS: number;
}

const FULL = {
  services: { default: 1000, min: 1 },
  hosts: { default: 3, min: 1 },
  'failed-out': { default: 50, min: 1 },
  records: { default: 5000, min: 0 },
  loads: { default: 3, min: 1 },
  pages: { default: 5, min: 1 },
  changes: { default: 20, min: 1 },
  'gap-ms': { default: 1000, min: 0 },
  'change-timeout-ms': { default: 30_000, min: 100 },
  'idle-s': { default: 20, min: 1 },
  'cpu-pages': { default: 20, min: 1 },
  'cpu-s': { default: 30, min: 1 },
  'every-ms': { default: 2000, min: 100 },
  'selection-services': { default: 200, min: 2 },
  'selection-s': { default: 10, min: 1 },
} as const satisfies Record<string, IntOption>;

/** `--quick`'s sizes: every measurement runs, in about a minute. */
const QUICK: { readonly [K in keyof typeof FULL]?: number } = {
  services: 60,
  'failed-out': 10,
  records: 300,
  loads: 1,
  pages: 2,
  changes: 3,
  'gap-ms': 300,
  'idle-s': 3,
  'cpu-pages': 3,
  'cpu-s': 6,
  'selection-services': 30,
  'selection-s': 4,
};

/** Parses the command line; unknown flags and bad values fail with a message naming the flag. */
export function parameters(argv: readonly string[]): Parameters {
  const quick = argv.includes('--quick');
  const args = argv.filter((arg) => arg !== '--quick');
  const from = takeString(args, 'console-from');
  const spec = Object.fromEntries(
    Object.entries(FULL).map(([name, option]) => [name, { ...option, default: quick ? (QUICK[name as keyof typeof FULL] ?? option.default) : option.default }]),
  ) as Record<keyof typeof FULL, IntOption>;
  const v = parseIntOptions(args, spec);
  return {
    quick,
    consoleRoot: from === undefined ? REPOSITORY : resolve(from),
    services: v.services,
    hosts: v.hosts,
    // Every failed-out cluster is a different service's lor1 cluster.
    failedOut: Math.min(v['failed-out'], v.services),
    records: v.records,
    loads: v.loads,
    pages: v.pages,
    changes: v.changes,
    gapMs: v['gap-ms'],
    changeTimeoutMs: v['change-timeout-ms'],
    idleS: v['idle-s'],
    cpuPages: v['cpu-pages'],
    cpuS: v['cpu-s'],
    everyMs: v['every-ms'],
    selectionServices: v['selection-services'],
    selectionS: v['selection-s'],
  };
}
