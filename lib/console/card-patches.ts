/**
 * The diff behind the console's live updates (issue 24, item 1): a list of keyed pieces of HTML shown
 * in one container (the cards of a service group, the groups, the history rows) as the page last got
 * them, and what the page must do to show the next list: the pieces whose HTML changed or that are
 * new (`upsert`; a new one says which piece it follows), the ones gone (`remove`), and the order of
 * the keys, only when the pieces that stay change places among themselves. Nothing changed: nothing
 * to send.
 *
 * A `<time data-until>` counts down in the browser (console.js); its text, rendered at some moment on
 * the server, is no change: pieces are compared with those texts left out ({@link comparable}), so a
 * card is sent again only when something other than the passing time changed.
 *
 * Concurrency: event loop only; the owner (live-state.ts) calls it from one place.
 */
import { formatRemaining } from '../text';

/** One piece of a keyed list: its key (a cluster name, a service, a request id) and its HTML (escaped by page.ts). */
export interface KeyedItem {
  readonly id: string;
  readonly html: string;
}

/** A piece in a patch: a new one says where it goes (`after`: the key it follows, null: first). */
export interface UpsertItem extends KeyedItem {
  readonly after?: string | null;
}

/**
 * What changes in one keyed list, as sent in a `patch` event: each field only when not empty.
 * The page applies `remove`, then `upsert` in order (replacing the element with that key in place,
 * or putting a new one right after the element of `after`, first for null), then, when present,
 * reorders the elements to `order`.
 */
export interface KeyedPatch {
  upsert?: UpsertItem[];
  remove?: string[];
  order?: string[];
}

/**
 * A name (a cluster's, a service's) as the key of its element (`data-key`) and of its patches:
 * percent-encoded, so the page compares it as it is (a bidi character in a name is shown escaped in
 * `data-cluster`, never in the key) and two names never share one.
 */
export function liveKey(name: string): string {
  try {
    return encodeURIComponent(name);
  } catch {
    // Only a lone surrogate fails, and ZooKeeper refuses those in a name: kept as is rather than thrown.
    return name;
  }
}

/** `<time … data-until="…">text</time>`, as page.ts and fabric-page.ts write a countdown. */
const COUNTDOWN = /(<time [^>]*data-until="([^"]*)">)[^<]*(<\/time>)/g;

/** The HTML without the texts of its countdowns: what decides whether a piece changed. */
export function comparable(html: string): string {
  return html.includes('<time ') ? html.replace(COUNTDOWN, '$1$3') : html;
}

/** The HTML with its countdowns' texts as of `now` (a page served from HTML rendered earlier). */
export function freshCountdowns(html: string, now: number): string {
  return html.replace(COUNTDOWN, (whole, open: string, until: string, close: string) => {
    const ms = Number(until);
    return Number.isFinite(ms) ? `${open}${formatRemaining(ms - now)}${close}` : whole;
  });
}

/** One keyed list as the page last got it. */
export class KeyedList {
  private order: readonly string[] = [];
  /** Per key: the HTML last sent (or rendered since with only its countdown texts changed) and its comparable form. */
  private readonly items = new Map<string, { html: string; same: string }>();

  /** Every piece in order: the whole list, for a page that starts from nothing. */
  all(): KeyedItem[] {
    return this.order.map((id) => ({ id, html: this.items.get(id)!.html }));
  }

  /** True while the list holds no piece. */
  get empty(): boolean {
    return this.order.length === 0;
  }

  /**
   * Takes `next` as the list the page shows from now on; returns what the page must do to get there,
   * or undefined when nothing but countdown texts changed. Keys in `next` are unique.
   */
  update(next: readonly KeyedItem[]): KeyedPatch | undefined {
    const nextIds = next.map((item) => item.id);
    const present = new Set(nextIds);
    const remove = this.order.filter((id) => !present.has(id));
    const upsert: UpsertItem[] = [];
    const kept = this.order.filter((id) => present.has(id));
    const stayed = new Set(kept);
    next.forEach((item, i) => {
      const known = this.items.get(item.id);
      // The same string (an unchanged card's cached HTML) costs one comparison, no regex.
      if (known !== undefined && known.html === item.html) return;
      const same = comparable(item.html);
      if (known === undefined) upsert.push({ ...item, after: i === 0 ? null : nextIds[i - 1]! });
      else if (known.same !== same) upsert.push(item);
      this.items.set(item.id, { html: item.html, same });
    });
    for (const id of remove) this.items.delete(id);
    // Each new piece goes right after the one before it, so the pieces end in `next`'s order unless
    // those that stay changed places among themselves: only then is the order sent.
    const stayedInOrder = nextIds.filter((id) => stayed.has(id));
    const reordered = kept.some((id, i) => id !== stayedInOrder[i]);
    this.order = nextIds;
    const patch: KeyedPatch = {};
    if (upsert.length > 0) patch.upsert = upsert;
    if (remove.length > 0) patch.remove = remove;
    if (reordered) patch.order = nextIds;
    return upsert.length > 0 || remove.length > 0 || reordered ? patch : undefined;
  }

  /**
   * What takes a page from an earlier state of this list to this one, when between the two only the
   * pieces `touched` were upserted or removed (patch-log.ts gathers them): each touched piece that is
   * here now, in order, after the one before it (replaced in place when the page has it), each one
   * gone removed, and the whole order when `reordered` (pieces that stay changed places, or a piece
   * was removed and came back elsewhere). Undefined when that is nothing.
   */
  catchUp(touched: ReadonlySet<string>, reordered: boolean): KeyedPatch | undefined {
    const remove = [...touched].filter((id) => !this.items.has(id));
    const upsert: UpsertItem[] = [];
    let previous: string | null = null;
    for (const id of this.order) {
      if (touched.has(id)) upsert.push({ id, html: this.items.get(id)!.html, after: previous });
      previous = id;
    }
    const patch: KeyedPatch = {};
    if (upsert.length > 0) patch.upsert = upsert;
    if (remove.length > 0) patch.remove = remove;
    if (reordered) patch.order = [...this.order];
    return upsert.length > 0 || remove.length > 0 || reordered ? patch : undefined;
  }

  /** True while the list holds the piece `id`. */
  has(id: string): boolean {
    return this.items.has(id);
  }
}
