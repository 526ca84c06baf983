/**
 * What the last patches of the live state touched (issue 24, item 1: a page that stops reading for a
 * moment must not cost a whole `sections` frame, 3,000 cards, when it reads again). Only keys are
 * kept, never HTML: a page that catches up gets each touched piece as it is now (live-state.ts
 * `patchSince`), so of several patches to one card only the latest reaches it. One log per console,
 * however many pages lag; it holds the last {@link MAX_UPDATES} patches and answers only while what
 * they touched together stays under {@link MAX_KEYS} keys: past either bound a page gets the whole
 * state, as before (event-streams.ts).
 *
 * Concurrency: event loop only.
 */
import type { KeyedPatch } from './card-patches';

/** How many patches back a page can catch up with a patch. */
export const MAX_UPDATES = 64;
/** How many touched keys a catch-up patch may carry before the whole state is cheaper. */
export const MAX_KEYS = 400;

/** What one patch did to one keyed list. */
export interface ListTouch {
  /** Keys upserted or removed. */
  readonly keys: readonly string[];
  /** Keys removed (a subset of `keys`). */
  readonly removed: readonly string[];
  /** The patch reordered the list. */
  readonly reordered: boolean;
}

/** What one patch touched: whole values replaced (sections, counts) and keyed lists, by names the owner gives. */
export interface PatchTouches {
  readonly values: readonly string[];
  readonly lists: ReadonlyMap<string, ListTouch>;
}

/** What the patches after a version touched together. */
export interface MergedTouches {
  readonly values: ReadonlySet<string>;
  readonly lists: ReadonlyMap<string, { readonly keys: ReadonlySet<string>; readonly removed: ReadonlySet<string>; readonly reordered: boolean }>;
}

/** A keyed list's patch as a {@link ListTouch}. */
export function listTouch(patch: KeyedPatch): ListTouch {
  const removed = patch.remove ?? [];
  return { keys: [...(patch.upsert ?? []).map((u) => u.id), ...removed], removed, reordered: patch.order !== undefined };
}

/** The touches of the last patches, by the counter each one led to. */
export class PatchLog {
  /** Oldest first; `touches` undefined: that patch alone touched more than {@link MAX_KEYS} keys. */
  private readonly entries: { readonly counter: number; readonly touches: PatchTouches | undefined }[] = [];

  /** Notes the patch that led to `counter` (one more than the last one noted). */
  record(counter: number, touches: PatchTouches): void {
    let keys = touches.values.length;
    for (const list of touches.lists.values()) keys += list.keys.length;
    this.entries.push({ counter, touches: keys > MAX_KEYS ? undefined : touches });
    if (this.entries.length > MAX_UPDATES) this.entries.shift();
  }

  /**
   * What the patches after `counter` up to the last one touched together; undefined when the log no
   * longer reaches back to `counter`, or they touched too much to be worth a patch.
   */
  since(counter: number): MergedTouches | undefined {
    const first = this.entries[0];
    if (first === undefined || counter < first.counter - 1) return undefined;
    const values = new Set<string>();
    const lists = new Map<string, { keys: Set<string>; removed: Set<string>; reordered: boolean }>();
    let count = 0;
    for (const { counter: at, touches } of this.entries) {
      if (at <= counter) continue;
      if (touches === undefined) return undefined;
      for (const value of touches.values) values.add(value);
      for (const [name, touch] of touches.lists) {
        let merged = lists.get(name);
        if (merged === undefined) lists.set(name, (merged = { keys: new Set(), removed: new Set(), reordered: false }));
        for (const key of touch.keys) {
          if (merged.keys.has(key)) continue;
          merged.keys.add(key);
          count++;
        }
        for (const key of touch.removed) merged.removed.add(key);
        merged.reordered ||= touch.reordered;
      }
      if (count + values.size > MAX_KEYS) return undefined;
    }
    return { values, lists };
  }
}
