// bench/propagation: the command line. Without `--discovery xds` it is exactly the ZooKeeper mode's
// (`--clients`, the fan-out options); with it, the xDS mode's words and counts (issue 25, "Speed"):
// observers, which sizes to run, and whether the ZooKeeper-discovery path runs beside it.
import { FANOUT_OPTIONS, fanoutParameters, parseIntOptions, takeFlag, takeString, type FanoutParameters } from '../lib/args';

/** Where the measured clients read D2 data: ZooKeeper watches (the default) or observers over xDS. */
export type Discovery = 'zookeeper' | 'xds';

/**
 * Up to this many clients `--compare-zk` is on by default. Above it each of the C ZooKeeper sessions
 * must be set up once more for the ZooKeeper path (at 10,000 that is minutes of setup on 2 cores, on
 * top of the floor's own 10,000): ask for it with `--compare-zk`.
 */
export const COMPARE_ZK_DEFAULT_MAX_CLIENTS = 4000;

/** The ZooKeeper mode: what `npm run bench -- propagation` has always taken. */
export interface ZooKeeperParameters extends FanoutParameters {
  readonly discovery: 'zookeeper';
  readonly clients: number;
  /** `--max-semi-space-size` (MiB) of the client and the floor's watcher processes alike; 0 leaves node's default. */
  readonly semiSpaceMb: number;
}

/** The xDS mode. */
export interface XdsParameters extends FanoutParameters {
  readonly discovery: 'xds';
  /** Client counts to run, in order: `--clients` alone, or every size of `--clients-series`. */
  readonly sizes: readonly number[];
  /** Observer processes, each serving the D2 tree from the same ZooKeeper. */
  readonly observers: number;
  /**
   * Whether to run the ZooKeeper-discovery path at a size: `true`/`false` when told, else on up to
   * {@link COMPARE_ZK_DEFAULT_MAX_CLIENTS} clients (see {@link compareZkAt}).
   */
  readonly compareZk: boolean | undefined;
  /** `--max-semi-space-size` (MiB) of the client processes, both paths alike, and of the floor's watchers; 0 leaves node's default. */
  readonly semiSpaceMb: number;
  /** The providers' peer watch teardown delay (kept through restores, as in a service that has run a while). */
  readonly teardownDelayMs: number;
  /**
   * Whether to measure the transport floor at each size (bench/grpc-fanout: the same servers, clients
   * and processes, raw messages of the response's size and ACKs; on unless `--no-grpc-floor`).
   */
  readonly grpcFloor: boolean;
  /**
   * Whether the clients' bootstraps list `failout_delta_ads` (incremental ADS, as docs/observer.md
   * recommends for failout's observers); `--delta`, off by default so runs compare with earlier SotW ones.
   * The transport floor keeps the size of the SotW response (what a delta client would get is smaller).
   */
  readonly delta: boolean;
}

export type Parameters = ZooKeeperParameters | XdsParameters;

/**
 * The node flags of every measured process, clients and the floor's watchers alike: each holds
 * hundreds of sessions' state, so a young generation sized for one service would promote what a
 * service's own process collects young (the same setting in both, so a ratio compares the work).
 */
export function gcFlags(p: { readonly semiSpaceMb: number }): string[] {
  // --expose-gc: each process settles its heap after setup (`settleHeap`) and reads memory after a full GC.
  return ['--expose-gc', ...(p.semiSpaceMb > 0 ? [`--max-semi-space-size=${p.semiSpaceMb}`] : [])];
}

/** `1000,4000,10000` → [1000, 4000, 10000]: positive integers, strictly increasing. */
export function parseSeries(text: string): number[] {
  const sizes = text.split(',').map((part) => Number(part.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--clients-series must be positive integers separated by commas, got ${text}`);
  if (sizes.some((n, i) => i > 0 && n <= sizes[i - 1]!)) throw new Error(`--clients-series must increase, got ${text}`);
  return sizes;
}

/** Whether the ZooKeeper-discovery path runs at `clients` clients. */
export function compareZkAt(p: Pick<XdsParameters, 'compareZk'>, clients: number): boolean {
  return p.compareZk ?? clients <= COMPARE_ZK_DEFAULT_MAX_CLIENTS;
}

/**
 * Parses the command line; unknown flags and bad values fail with a message naming the flag. The
 * xDS-only options are unknown flags in the ZooKeeper mode, so they cannot silently do nothing.
 */
export function parameters(argv: readonly string[]): Parameters {
  const args = [...argv];
  const discovery = takeString(args, 'discovery') ?? 'zookeeper';
  if (discovery === 'zookeeper' || discovery === 'zk') {
    const v = parseIntOptions(args, { clients: { default: 1000, min: 1 }, ...FANOUT_OPTIONS, 'semi-space-mb': { default: 64, min: 0 } });
    return { discovery: 'zookeeper', clients: v.clients, semiSpaceMb: v['semi-space-mb'], ...fanoutParameters(v, v.clients) };
  }
  if (discovery !== 'xds') throw new Error(`--discovery must be zookeeper or xds, got ${discovery}`);
  const series = takeString(args, 'clients-series');
  const compareZk = takeFlag(args, 'compare-zk');
  const grpcFloor = takeFlag(args, 'grpc-floor') ?? true;
  const delta = takeFlag(args, 'delta') ?? false;
  if (series !== undefined && args.some((a) => a === '--clients' || a.startsWith('--clients='))) throw new Error('give --clients or --clients-series, not both');
  const v = parseIntOptions(args, {
    clients: { default: 1000, min: 1 },
    observers: { default: 4, min: 1 },
    ...FANOUT_OPTIONS,
    'semi-space-mb': { default: 64, min: 0 },
    'teardown-delay-ms': { default: 60_000, min: 0 },
  });
  const sizes = series === undefined ? [v.clients] : parseSeries(series);
  const smallest = sizes[0]!;
  return {
    discovery: 'xds',
    sizes,
    observers: Math.min(v.observers, smallest),
    compareZk,
    grpcFloor,
    delta,
    semiSpaceMb: v['semi-space-mb'],
    teardownDelayMs: v['teardown-delay-ms'],
    // Never more processes than the smallest size has clients: every worker runs at least one.
    ...fanoutParameters(v, smallest),
  };
}
