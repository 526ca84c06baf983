import { Counter, type Registry } from 'prom-client';

/** A labelled counter that costs a map lookup and an add per increment on the request path. */
export interface FailoutCounter<L extends string> {
  /** Adds 1 for the given label values (in `labelNames` order). */
  inc(...values: string[]): void;
  /** {@link FailoutCounter.inc} for a counter with exactly two labels, without allocating (the request path). */
  inc2(first: string, second: string): void;
  /** The total for the given label values, 0 when never incremented. */
  get(...values: string[]): number;
  /** Every label combination seen, with its total. */
  entries(): {
    /** The label values, by label name. */
    labels: Record<L, string>;
    /** Increments so far for these labels. */
    value: number;
  }[];
}

interface Cell {
  readonly values: readonly string[];
  total: number;
  reported: number;
}

/** Options of {@link createFailoutCounter}. */
export interface FailoutCounterOptions<L extends string> {
  /** The registry the prom-client Counter is registered on. */
  readonly registry: Registry;
  /** The metric name (e.g. `failout_client_redirected_total`). */
  readonly name: string;
  /** The metric's help text. */
  readonly help: string;
  /** The label names, in the order `inc` and `get` take their values. */
  readonly labelNames: readonly L[];
}

/** The prom-client Counter of one name on one registry, and the cells of every FailoutCounter counting into it. */
interface SharedCounter {
  readonly counter: Counter<string>;
  readonly labelNames: readonly string[];
  /** Each FailoutCounter's cells (kept after its client closes: their last increments may not be scraped yet). */
  readonly sources: Cell[][];
}

/** The shared counters by registry and name (a registry that is dropped takes its entries along). */
const sharedCounters = new WeakMap<Registry, Map<string, SharedCounter>>();

/**
 * A prom-client Counter registered on `registry` whose per-request increments land in plain numbers
 * and reach prom-client only when the registry is scraped (its `collect` hook). prom-client's own
 * `inc(labels)` hashes the label object on every call, which costs a measurable share of a
 * sub-microsecond routing decision (bench/failout-overhead).
 *
 * Several FailoutCounters of one name on one registry (two clients built on a service's registry)
 * share its Counter: the registry reports their sum under the same labels, as D2Client's request
 * metrics and the provider's counters do, while `get` and `entries` stay per FailoutCounter.
 *
 * Concurrency: all on the event loop; `collect` runs inside `registry.metrics()`.
 * @throws Error when `registry` holds a metric of that name that is not such a counter, or one with other label names.
 */
export function createFailoutCounter<L extends string>(options: FailoutCounterOptions<L>): FailoutCounter<L> {
  // Cells by nested label value: no string building per increment.
  const root = new Map<string, unknown>();
  const cells: Cell[] = [];
  const names = options.labelNames;
  const cellOf = (values: readonly string[]): Cell => {
    let level = root;
    for (let i = 0; i < values.length - 1; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(values[i]!, next);
      }
      level = next;
    }
    const last = values[values.length - 1] ?? '';
    let cell = level.get(last) as Cell | undefined;
    if (!cell) {
      cell = { values: [...values], total: 0, reported: 0 };
      level.set(last, cell);
      cells.push(cell);
    }
    return cell;
  };
  sharedCounter(options).sources.push(cells);
  return {
    inc(...values: string[]) {
      cellOf(values).total++;
    },
    inc2(first: string, second: string) {
      // The request path's counters have two labels: look the cell up without building an array.
      const level = root.get(first) as Map<string, unknown> | undefined;
      const cell = level?.get(second) as Cell | undefined;
      if (cell !== undefined) cell.total++;
      else cellOf([first, second]).total++;
    },
    get: (...values: string[]) => {
      let level: unknown = root;
      for (const value of values) level = level instanceof Map ? level.get(value) : undefined;
      return (level as Cell | undefined)?.total ?? 0;
    },
    entries: () => cells.map((cell) => ({ labels: labelsOf(names, cell), value: cell.total })),
  };
}

/** The shared Counter of `options.name` on `options.registry`, registered at its first FailoutCounter. */
function sharedCounter<L extends string>(options: FailoutCounterOptions<L>): SharedCounter {
  let byName = sharedCounters.get(options.registry);
  if (byName === undefined) sharedCounters.set(options.registry, (byName = new Map()));
  const known = byName.get(options.name);
  // A registry that was cleared (or had the metric removed) since gets a new Counter.
  if (known !== undefined && options.registry.getSingleMetric(options.name) === known.counter) {
    if (known.labelNames.join() !== options.labelNames.join()) {
      throw new Error(`counter ${options.name} is registered with labels ${known.labelNames.join(', ')}, not ${options.labelNames.join(', ')}`);
    }
    return known;
  }
  const names = options.labelNames;
  const sources: Cell[][] = [];
  const counter: Counter<string> = new Counter<string>({
    name: options.name,
    help: options.help,
    labelNames: names,
    registers: [options.registry],
    collect() {
      for (const cells of sources) {
        for (const cell of cells) {
          if (cell.total === cell.reported) continue;
          counter.inc(labelsOf(names, cell), cell.total - cell.reported);
          cell.reported = cell.total;
        }
      }
    },
  });
  const entry: SharedCounter = { counter, labelNames: [...names], sources };
  byName.set(options.name, entry);
  return entry;
}

/** A cell's label values by label name. */
function labelsOf<L extends string>(names: readonly L[], cell: Cell): Record<L, string> {
  return Object.fromEntries(names.map((name, i) => [name, cell.values[i] ?? ''])) as Record<L, string>;
}
