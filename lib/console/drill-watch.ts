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
import { decodeDrillNode, type DrillNode } from '../requests/drills';
import type { Watch, ZkSession } from '../zk';
import { ChildDataWatches, unreadableProblem } from './child-watches';

/**
 * One drill node as read: decoded, or why it does not decode (shown on the page, as `failout drill
 * history` names it) with the node as last read well, when it ever was (its card stays: a run it
 * started may still move traffic).
 */
export type DrillEntry = { readonly name: string; readonly node: DrillNode } | { readonly name: string; readonly problem: string; readonly lastGood?: DrillNode };

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
  private readonly drills: ChildDataWatches<DrillEntry>;

  constructor(session: ZkSession, options: DrillWatchOptions) {
    this.drills = new ChildDataWatches(session, options.drillsBase, decodeEntry, options.onChange, (name, err, previous) => problemEntry(name, unreadableProblem(err), previous));
    this.parent = session.watchChildren(options.drillsBase, (children) => {
      if (this.lifecycle === 'running') this.drills.sync(children.exists ? children.children : []);
    });
  }

  /** The drill nodes read so far, sorted by name. */
  entries(): DrillEntry[] {
    return this.drills.entries();
  }

  /** Closes every watch. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.parent.close();
    this.drills.close();
  }
}

/** A drill node's data with the one codec, or the problem with the last good read (never thrown into the watch). */
function decodeEntry(name: string, data: Buffer, previous: DrillEntry | undefined): DrillEntry {
  try {
    return { name, node: decodeDrillNode(data) };
  } catch (err) {
    return problemEntry(name, err instanceof Error ? err.message : String(err), previous);
  }
}

/** A drill that cannot be read now: why, and its last good read when there was one. */
function problemEntry(name: string, problem: string, previous: DrillEntry | undefined): DrillEntry {
  const lastGood = previous === undefined ? undefined : 'node' in previous ? previous.node : previous.lastGood;
  return { name, problem, ...(lastGood === undefined ? {} : { lastGood }) };
}
