/**
 * A data watch on each child of one parent node, each child's data read with its codec: what the
 * console's drill watch (drill-watch.ts) and fabric map watch (fabric-watch.ts) keep, one entry per
 * child. The caller owns the parent's children watch and hands its names to {@link sync}.
 *
 * Lifecycle: running from construction → closed. Concurrency: event loop only; `onChange` after every
 * change (the caller coalesces).
 */
import { describeCluster } from '../operator';
import type { Watch, ZkSession } from '../zk';

/**
 * The children of `base`, each read with `decode` (which must not throw: it returns its problem), given
 * the child's entry before this read (undefined for the first), so a decoder may keep a last good read.
 */
export class ChildDataWatches<T> {
  private readonly children = new Map<string, { entry: T | undefined; watch: Watch }>();

  constructor(
    private readonly session: ZkSession,
    private readonly base: string,
    private readonly decode: (name: string, data: Buffer, previous: T | undefined) => T,
    private readonly onChange: () => void,
    /** The entry of a child this session may not read (noAuth): its problem, as `decode` gives one. */
    private readonly unreadable: (name: string, err: Error, previous: T | undefined) => T,
  ) {}

  /** Watches the named children not watched yet and stops watching the others; then `onChange`. */
  sync(names: readonly string[]): void {
    for (const name of names) {
      if (this.children.has(name)) continue;
      const state: { entry: T | undefined; watch: Watch } = {
        entry: undefined,
        watch: this.session.watchData(
          `${this.base.replace(/\/+$/, '')}/${name}`,
          (node) => {
            state.entry = node.exists ? this.decode(name, node.data, state.entry) : undefined;
            this.onChange();
          },
          (err) => {
            state.entry = this.unreadable(name, err, state.entry);
            this.onChange();
          },
        ),
      };
      this.children.set(name, state);
    }
    for (const [name, state] of this.children) {
      if (names.includes(name)) continue;
      state.watch.close();
      this.children.delete(name);
    }
    this.onChange();
  }

  /** The children read so far (absent ones left out), sorted by name. */
  entries(): T[] {
    return [...this.children]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([, child]) => (child.entry === undefined ? [] : [child.entry]));
  }

  /** Closes every child's watch. */
  close(): void {
    for (const child of this.children.values()) child.watch.close();
    this.children.clear();
  }
}

/**
 * Why a node this session may not read (noAuth) is not shown, in `failout status`'s words (lib/operator
 * describes an unreadable node once, for clusters, drills and maps alike).
 */
export function unreadableProblem(err: Error): string {
  return describeCluster('', err, 0).problem ?? err.message;
}
