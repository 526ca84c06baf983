/**
 * The console's watch of the drills (issue 24, item 7) beside the D2 tree (zk-view.ts): every node
 * under `/failout/drills` (one node per drill: its definition and its latest runs, lib/requests
 * drill-node.ts), read with the one codec (`decodeDrillNode`). Pushed by watches as the rest of the
 * view: a children watch on the parent and a data watch on each drill, so a run the worker records
 * reaches the page as a `patch` without a reload and without polling.
 *
 * Lifecycle: running from construction (made by the view once connected) → closed (with the view).
 * Concurrency: event loop only; `onChange` after every change (the caller coalesces).
 */
import type { Lifecycle } from '../lifecycle';
import { decodeDrillNode, type DrillNode } from '../requests';
import type { Watch, ZkSession } from '../zk';

/** One drill node as read: decoded, or why it does not decode (shown on the page, as `failout drill history` names it). */
export type DrillEntry = { readonly name: string; readonly node: DrillNode } | { readonly name: string; readonly problem: string };

/** Options of {@link DrillWatch}. */
export interface DrillWatchOptions {
  /** Parent of the drill nodes (`/failout/drills`). */
  readonly drillsBase: string;
  readonly onChange: () => void;
}

/** The drill nodes, kept current by watches on one session. */
export class DrillWatch {
  private lifecycle: Lifecycle = 'running';
  private readonly parent: Watch;
  private readonly drills = new Map<string, { entry: DrillEntry | undefined; watch: Watch }>();

  constructor(
    private readonly session: ZkSession,
    private readonly options: DrillWatchOptions,
  ) {
    this.parent = session.watchChildren(options.drillsBase, (children) => this.onNames(children.exists ? children.children : []));
  }

  /** The drill nodes read so far, sorted by name. */
  entries(): DrillEntry[] {
    return [...this.drills.values()].flatMap((d) => (d.entry === undefined ? [] : [d.entry])).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Closes every watch. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.parent.close();
    for (const d of this.drills.values()) d.watch.close();
    this.drills.clear();
  }

  private onNames(names: readonly string[]): void {
    if (this.lifecycle !== 'running') return;
    for (const name of names) {
      if (this.drills.has(name)) continue;
      const state: { entry: DrillEntry | undefined; watch: Watch } = {
        entry: undefined,
        watch: this.session.watchData(`${this.options.drillsBase.replace(/\/+$/, '')}/${name}`, (node) => {
          state.entry = node.exists ? decodeEntry(name, node.data) : undefined;
          this.options.onChange();
        }),
      };
      this.drills.set(name, state);
    }
    for (const [name, state] of this.drills) {
      if (names.includes(name)) continue;
      state.watch.close();
      this.drills.delete(name);
    }
    this.options.onChange();
  }
}

/** A drill node's data with the one codec, or the problem (never thrown into the watch). */
function decodeEntry(name: string, data: Buffer): DrillEntry {
  try {
    return { name, node: decodeDrillNode(data) };
  } catch (err) {
    return { name, problem: err instanceof Error ? err.message : String(err) };
  }
}
