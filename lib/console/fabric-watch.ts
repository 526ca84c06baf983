/**
 * The console's watch of the fabric data (issue 23) beside the D2 tree (zk-view.ts): the explicit
 * fabric maps (`/failout/fabrics/<fabric>`, read with lib/fabrics' one codec) and the evacuation nodes
 * (`/failout/evacuations/<fabric>`, read with lib/requests' `readStoredEvacuations`). Pushed by watches, as
 * the rest of the view: a children watch on each parent and a data watch on each child; a change of any
 * evacuation node re-reads them all (a handful of nodes, one per fabric), one pass at a time. A node that
 * stops decoding keeps its last good read (the worker treats a node it cannot read as open: it may still
 * move traffic) and is named with its problem.
 *
 * Lifecycle: running from construction (made by the view once connected) → closed (with the view).
 * Concurrency: event loop only; `onChange` after every change (the caller coalesces).
 */
import { decodeFabricMap, isFabricError, type FabricMap } from '../fabrics';
import type { Lifecycle } from '../lifecycle';
import type { Logger } from '../logging';
import { readStoredEvacuations, type EvacuationNode } from '../requests';
import { CoalescingTask, type Watch, type ZkSession } from '../zk';
import { ChildDataWatches, unreadableProblem } from './child-watches';

/** One map node as read: the map, or why it does not decode (its clusters then follow the rule). */
export type FabricMapEntry = { readonly fabric: string; readonly map: FabricMap } | { readonly fabric: string; readonly problem: string };

/**
 * An evacuation node that does not decode: why, and whether its last good read is still shown (as
 * {@link FabricWatch.evacuations} keeps it). The worker treats such a node as open.
 */
export interface UnreadableEvacuationEntry {
  readonly fabric: string;
  readonly problem: string;
  readonly lastGoodShown: boolean;
}

/** Options of {@link FabricWatch}. */
export interface FabricWatchOptions {
  /** Parent of the fabric maps (`/failout/fabrics`). */
  readonly fabricsBase: string;
  /** Parent of the evacuation nodes (`/failout/evacuations`). */
  readonly evacuationsBase: string;
  readonly logger: Logger;
  readonly onChange: () => void;
}

/** Pause before reading the evacuation nodes again after a failed read. */
const REREAD_RETRY_MS = 2000;

/** The maps and evacuations, kept current by watches on one session. */
export class FabricWatch {
  private lifecycle: Lifecycle = 'running';
  private retry: NodeJS.Timeout | undefined;
  private readonly watches: Watch[] = [];
  private readonly maps: ChildDataWatches<FabricMapEntry>;
  private readonly evacuationWatches = new Map<string, Watch>();
  private evacuationNodes: readonly EvacuationNode[] = [];
  /** The last node of each fabric that decoded, by the node's name; a node gone is forgotten. */
  private lastGood: ReadonlyMap<string, EvacuationNode> = new Map();
  private unreadable: readonly UnreadableEvacuationEntry[] = [];
  private readonly reread: CoalescingTask;

  constructor(
    private readonly session: ZkSession,
    private readonly options: FabricWatchOptions,
  ) {
    this.reread = new CoalescingTask({
      pass: () => this.readEvacuations(),
      passWanted: () => this.lifecycle === 'running',
    });
    this.maps = new ChildDataWatches(session, options.fabricsBase, decodeMap, options.onChange, (fabric, err) => ({ fabric, problem: unreadableProblem(err) }));
    this.watches.push(
      session.watchChildren(options.fabricsBase, (children) => {
        if (this.lifecycle === 'running') this.maps.sync(children.exists ? children.children : []);
      }),
      session.watchChildren(options.evacuationsBase, (children) => this.onEvacuationNames(children.exists ? children.children : [])),
    );
  }

  /** The map nodes read so far (decoded or with their problem), by fabric name. */
  fabricMaps(): FabricMapEntry[] {
    return this.maps.entries();
  }

  /** Every evacuation node, sorted by fabric: as read, or, for one that stopped decoding, as last read well. */
  evacuations(): readonly EvacuationNode[] {
    return this.evacuationNodes;
  }

  /** The evacuation nodes that do not decode now, sorted by fabric, each with its problem. */
  unreadableEvacuations(): readonly UnreadableEvacuationEntry[] {
    return this.unreadable;
  }

  /** Closes every watch. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    clearTimeout(this.retry);
    for (const watch of [...this.watches.splice(0), ...this.evacuationWatches.values()]) watch.close();
    this.maps.close();
    this.evacuationWatches.clear();
  }

  private onEvacuationNames(names: readonly string[]): void {
    if (this.lifecycle !== 'running') return;
    for (const fabric of names) {
      if (this.evacuationWatches.has(fabric)) continue;
      this.evacuationWatches.set(
        fabric,
        this.session.watchData(`${this.options.evacuationsBase.replace(/\/+$/, '')}/${fabric}`, () => void this.reread.run()),
      );
    }
    for (const [fabric, watch] of this.evacuationWatches) {
      if (names.includes(fabric)) continue;
      watch.close();
      this.evacuationWatches.delete(fabric);
    }
    void this.reread.run();
  }

  /** One pass: every evacuation node, read again (the last good list stays when the read fails). */
  private async readEvacuations(): Promise<void> {
    try {
      const stored = await readStoredEvacuations(this.session, this.options.evacuationsBase);
      if (this.lifecycle !== 'running') return;
      const nodes: EvacuationNode[] = [];
      const unreadable: UnreadableEvacuationEntry[] = [];
      const lastGood = new Map<string, EvacuationNode>();
      for (const e of stored) {
        const node = e.node ?? this.lastGood.get(e.fabric);
        if (e.node === undefined) unreadable.push({ fabric: e.fabric, problem: e.problem ?? 'does not decode', lastGoodShown: node !== undefined });
        if (node === undefined) continue;
        nodes.push(node);
        lastGood.set(e.fabric, node);
      }
      this.evacuationNodes = nodes;
      this.lastGood = lastGood;
      this.unreadable = unreadable;
      this.options.onChange();
    } catch (err) {
      // ZooKeeper out of reach for a moment: the last good list stays, and the read is tried again (a
      // watch that already delivered may not fire again once the session is back).
      this.options.logger.warn({ err }, 'console: could not read the evacuation nodes');
      if (this.lifecycle !== 'running') return;
      clearTimeout(this.retry);
      this.retry = setTimeout(() => void this.reread.run(), REREAD_RETRY_MS);
      this.retry.unref();
    }
  }
}

/** A map node's data with the one codec, or the problem that keeps it out (as `failout fabric list` reports it). */
function decodeMap(fabric: string, data: Buffer): FabricMapEntry {
  try {
    return { fabric, map: decodeFabricMap(fabric, data) };
  } catch (err) {
    // The codec's FabricError says what is wrong; anything else is shown as well, never thrown into the watch.
    return { fabric, problem: isFabricError(err) ? err.message : `unreadable: ${err instanceof Error ? err.message : String(err)}` };
  }
}
