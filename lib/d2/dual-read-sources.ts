import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../logging';
import type { Lifecycle } from '../lifecycle';
import { callSafely } from './subscribers';
import type { PropertySnapshot, PropertySubscriber } from './property-store';
import type { CountedPropertySource, D2SourceFactory, D2Sources } from './sources';

/** Which source a mismatch is about: a service's or a cluster's properties, or a cluster's merged URIs. */
export type DualReadKind = 'service' | 'cluster' | 'uris';

/** One resource on which the secondary source disagreed with the primary for longer than `settleMs`. */
export interface DualReadMismatch {
  /** Which source. */
  readonly kind: DualReadKind;
  /** The service or cluster. */
  readonly name: string;
  /** The primary's parsed value (undefined: absent or unreadable). */
  readonly primary: unknown;
  /** The secondary's parsed value (undefined: absent or unreadable). */
  readonly secondary: unknown;
}

/** Options of {@link dualReadSources}. */
export interface DualReadOptions {
  /** The sources the state serves from (their values, events and counters). */
  readonly primary: D2SourceFactory;
  /** The sources followed alongside, only to compare. */
  readonly secondary: D2SourceFactory;
  /** Called once per disagreement (it is counted again only after the two agreed in between). */
  readonly onMismatch?: (mismatch: DualReadMismatch) => void;
  /**
   * How long the two may disagree before it counts, in ms: one source usually hears a write a moment
   * before the other. Default 2000.
   */
  readonly settleMs?: number;
  /** At most one mismatch log line per this many ms; lines left out are counted in the next. Default 10 000. */
  readonly logIntervalMs?: number;
}

/**
 * Dual read (rest.li `DualReadZkAndXdsLoadBalancerFactory` with its `DualReadLoadBalancerMonitor`):
 * the state is served by `primary`; every followed service, cluster and URI map is also followed
 * in `secondary`, and once both have answered, their parsed values are compared (never bytes: a
 * Struct cannot tell `1` from `1.0`). A disagreement that outlasts `settleMs` is reported to
 * `onMismatch` and logged, rate-limited. The secondary's own unreadable documents are logged by its
 * stores and not reported to the state (its counters are the primary's).
 */
export function dualReadSources(options: DualReadOptions): D2SourceFactory {
  return (context) => {
    const primary = options.primary(context);
    const secondary = options.secondary({ ...context, onMalformed: () => undefined, onLinkedMalformed: undefined });
    const report = mismatchReporter(options, context.logger);
    const settleMs = options.settleMs ?? 2000;
    return {
      clusters: new DualReadSource('cluster', primary.clusters, secondary.clusters, settleMs, report),
      services: new DualReadSource('service', primary.services, secondary.services, settleMs, report),
      uris: new DualReadSource('uris', primary.uris, secondary.uris, settleMs, report),
      // The state is served by the primary: its freshness is the one that counts.
      whenFresh: primary.whenFresh,
    } satisfies D2Sources;
  };
}

/** Calls `onMismatch` and logs, at most one line per interval. */
function mismatchReporter(options: DualReadOptions, log: Logger): (mismatch: DualReadMismatch) => void {
  const intervalMs = options.logIntervalMs ?? 10_000;
  let lastLogAt = -Infinity;
  let suppressed = 0;
  return (mismatch) => {
    if (options.onMismatch) callSafely(log, mismatch.name, () => options.onMismatch!(mismatch));
    const now = Date.now();
    if (now - lastLogAt < intervalMs) {
      suppressed++;
      return;
    }
    lastLogAt = now;
    log.warn({ kind: mismatch.kind, name: mismatch.name, primary: mismatch.primary, secondary: mismatch.secondary, suppressed }, 'dual read: the secondary source disagrees with the primary');
    suppressed = 0;
  };
}

/** What each side last said about one name. `undefined` answer: not yet initialized. */
interface Comparison<T> {
  holds: number;
  primary: { value: T | undefined } | undefined;
  secondary: { value: T | undefined } | undefined;
  timer: NodeJS.Timeout | undefined;
  /** This disagreement was reported already (cleared when the two agree). */
  reported: boolean;
  readonly unsubscribe: (() => void)[];
}

/** One dual-read source: serves `primary`, compares with `secondary`. */
class DualReadSource<T, S> implements CountedPropertySource<T, S> {
  private readonly comparisons = new Map<string, Comparison<T>>();
  private lifecycle: Lifecycle = 'running';

  constructor(
    private readonly kind: DualReadKind,
    private readonly primary: CountedPropertySource<T, S>,
    private readonly secondary: CountedPropertySource<T, S>,
    private readonly settleMs: number,
    private readonly report: (mismatch: DualReadMismatch) => void,
  ) {}

  subscribe(name: string, subscriber: PropertySubscriber<T>): () => void {
    const unsubscribe = this.primary.subscribe(name, subscriber);
    const comparison = this.comparisons.get(name) ?? this.startComparing(name);
    comparison.holds++;
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      unsubscribe();
      if (--comparison.holds > 0 || this.comparisons.get(name) !== comparison) return;
      this.stopComparing(name, comparison);
    };
  }

  get(name: string): T | undefined {
    return this.primary.get(name);
  }

  snapshot(name: string): PropertySnapshot<T> | undefined {
    return this.primary.snapshot(name);
  }

  stats(): S {
    return this.primary.stats();
  }

  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const [name, comparison] of [...this.comparisons]) this.stopComparing(name, comparison);
    this.primary.close();
    this.secondary.close();
  }

  private startComparing(name: string): Comparison<T> {
    const comparison: Comparison<T> = { holds: 0, primary: undefined, secondary: undefined, timer: undefined, reported: false, unsubscribe: [] };
    this.comparisons.set(name, comparison);
    const follow = (side: 'primary' | 'secondary'): PropertySubscriber<T> => ({
      onInitialize: (_n, value) => this.heard(name, comparison, side, value),
      onAdd: (_n, value) => this.heard(name, comparison, side, value),
      onRemove: () => this.heard(name, comparison, side, undefined),
    });
    comparison.unsubscribe.push(this.primary.subscribe(name, follow('primary')), this.secondary.subscribe(name, follow('secondary')));
    return comparison;
  }

  private stopComparing(name: string, comparison: Comparison<T>): void {
    for (const unsubscribe of comparison.unsubscribe) unsubscribe();
    if (comparison.timer) clearTimeout(comparison.timer);
    this.comparisons.delete(name);
  }

  private heard(name: string, comparison: Comparison<T>, side: 'primary' | 'secondary', value: T | undefined): void {
    if (this.comparisons.get(name) !== comparison) return;
    comparison[side] = { value };
    if (this.agree(comparison) !== false) {
      comparison.reported = false;
      return;
    }
    if (comparison.timer || comparison.reported) return;
    comparison.timer = setTimeout(() => {
      comparison.timer = undefined;
      if (this.comparisons.get(name) !== comparison || this.agree(comparison) !== false || comparison.reported) return;
      comparison.reported = true;
      this.report({ kind: this.kind, name, primary: comparison.primary?.value, secondary: comparison.secondary?.value });
    }, this.settleMs);
    comparison.timer.unref();
  }

  /** Undefined until both sides answered; then whether their values are equal. */
  private agree(comparison: Comparison<T>): boolean | undefined {
    if (!comparison.primary || !comparison.secondary) return undefined;
    return isDeepStrictEqual(comparison.primary.value, comparison.secondary.value);
  }
}
