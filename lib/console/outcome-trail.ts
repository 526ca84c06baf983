/**
 * The outcome trail on a card (issue 24, item 4): a failout that ended by a stop alarm, by the guard,
 * by its window's expiry, or by being replaced keeps one line on its card ("stopped by alarm
 * greetings-lva1-errors at 23:03:48 UTC, restored by failout-guard") for {@link TRAIL_MS}, or until the
 * operator acknowledges it (public/trail.js: per browser, in localStorage; the server writes nothing).
 *
 * Where each ending is read from:
 * - a stop alarm or the guard: the request records. The guard's restore (lib/safety `StopGuard`) is
 *   recorded with `requestedBy: failout-guard` and `stoppedByAlarm`; a drill runner's stopping restore
 *   carries `stoppedByAlarm` too. The trail is the cluster's newest applied record within the hour when
 *   it is such a restore and no failout has started since. Records, not memory: a console started
 *   after the restore shows it too.
 * - expiry: the cluster's own document, whose windows have all ended (`failout status` says `ended`).
 * - replaced: what this console saw. A failout's open windows gave way to windows of another request,
 *   and that request's record is a `failout` (an extend or an amend keeps the failout it changes). The
 *   previous windows are no longer in ZooKeeper, so only a console that saw them can say so.
 *
 * A card's trail arrives like any other card change: the card object changes (same object while the
 * trail does not: live-state.ts reuses the card's HTML on that identity) and its patch is sent. The
 * server renders again when the oldest trail's hour is up ({@link OutcomeTrails.nextExpiry}).
 *
 * Concurrency: event loop only.
 */
import type { ClusterStatus } from '../operator';
import type { RequestRecord } from '../requests';
import { GUARD_REQUESTER } from '../safety';
import { clockTime } from './clock-time';
import { html, type SafeHtml } from './html';

/** How long a trail stays on its card unless acknowledged: one hour. */
export const TRAIL_MS = 3_600_000;

/** How a failout ended. */
export type TrailKind = 'alarm' | 'guard' | 'expired' | 'replaced';

/** One line on a card: why its last failout ended. */
export interface OutcomeTrail {
  /** Unique per ending (a record's request id, or the expired windows'): what an acknowledgement names. */
  readonly id: string;
  readonly kind: TrailKind;
  /** When the failout ended (epoch ms). */
  readonly at: number;
  readonly text: string;
}

/** A failout replaced by another request's, as the console saw it. */
export interface Replacement {
  /** When the console saw the new windows (epoch ms). */
  readonly seenAt: number;
  /** The request id of the windows replaced. */
  readonly previous: string;
  /** The request id of the windows that replaced them. */
  readonly by: string;
}

/** What one card's trail is derived from. */
export interface TrailInputs {
  readonly status: ClusterStatus | undefined;
  /** The cluster's applied records that changed something, decided within {@link TRAIL_MS} of `now`, newest first. */
  readonly records: readonly RequestRecord[];
  readonly replaced: Replacement | undefined;
  readonly now: number;
}

/** `23:03:48 UTC`: the time of day, as the cards' other times, in UTC. */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** The trail of one card now, or undefined (see the module comment for the rules). */
export function deriveTrail(inputs: TrailInputs): OutcomeTrail | undefined {
  const { status, now } = inputs;
  if (status === undefined) return undefined;
  const recent = (at: number): boolean => now - at < TRAIL_MS;
  if (status.state === 'ended') {
    const last = status.windows.reduce<{ at: number; id: string | null } | undefined>((best, w) => {
      const at = w.onlineAt === null ? NaN : Date.parse(w.onlineAt);
      return Number.isFinite(at) && (best === undefined || at > best.at) ? { at, id: w.requestId } : best;
    }, undefined);
    if (last === undefined || !recent(last.at)) return undefined;
    return { id: `expired-${last.id ?? 'window'}-${last.at}`, kind: 'expired', at: last.at, text: `expired at ${clock(last.at)}: its window ran to its end${last.id === null ? '' : ` (request ${last.id})`}` };
  }
  const open = status.state === 'failed-out' || status.state === 'scheduled';
  const newest = inputs.records[0];
  if (!open && newest !== undefined && newest.action === 'restore' && (newest.stoppedByAlarm !== undefined || newest.requestedBy === GUARD_REQUESTER) && recent(newest.appliedAt)) {
    const by = newest.requestedBy ?? 'an unknown requester';
    return newest.stoppedByAlarm !== undefined
      ? { id: newest.requestId, kind: 'alarm', at: newest.appliedAt, text: `stopped by alarm ${newest.stoppedByAlarm} at ${clock(newest.appliedAt)}, restored by ${by}` }
      : { id: newest.requestId, kind: 'guard', at: newest.appliedAt, text: `restored by ${by} at ${clock(newest.appliedAt)}` };
  }
  const replaced = inputs.replaced;
  if (open && replaced !== undefined && status.windows.some((w) => w.requestId === replaced.by)) {
    const record = inputs.records.find((r) => r.requestId === replaced.by);
    if (record === undefined || record.action !== 'failout' || !recent(record.appliedAt)) return undefined;
    return {
      id: `replaced-${replaced.previous}-${replaced.by}`,
      kind: 'replaced',
      at: record.appliedAt,
      text: `replaced at ${clock(record.appliedAt)} by request ${record.requestId} from ${record.requestedBy ?? 'an unknown requester'}: the failout of request ${replaced.previous} had not ended`,
    };
  }
  return undefined;
}

/** The trail's text with its time (every kind says `clock(at)` once) as a `<time>` the page shows in the operator's zone. */
function trailText(trail: OutcomeTrail): SafeHtml {
  const stamp = clock(trail.at);
  const i = trail.text.indexOf(stamp);
  if (i < 0) return html`${trail.text}`;
  return html`${trail.text.slice(0, i)}${clockTime(trail.at, stamp)}${trail.text.slice(i + stamp.length)}`;
}

/** The trail's line on its card: the text, and the OK that hides it in this browser (public/trail.js). */
export function renderTrail(trail: OutcomeTrail, cluster: string): SafeHtml {
  return html`<p class="trail trail-${trail.kind}" data-trail="${trail.id}" role="note"><span class="trail-text">${trailText(trail)}</span> <button type="button" class="trail-ok" data-trail-ok="${trail.id}" aria-label="OK, hide this line on ${cluster}">OK</button></p>`;
}

/** The little of a card the trails read and write. */
export interface TrailedCard {
  readonly name: string;
  readonly status: ClusterStatus | undefined;
  readonly trail?: OutcomeTrail;
}

/** The trails of every card, and what the console saw of each cluster's open failout (for `replaced`). */
export class OutcomeTrails {
  /** Per cluster: the request ids of its windows that had not ended, at the last look. */
  private readonly open = new Map<string, readonly string[]>();
  private readonly replaced = new Map<string, Replacement>();
  /** Per cluster: the card given, its trail's id, and the card with its trail (the same object while both stay). */
  private readonly decorated = new Map<string, { readonly base: TrailedCard; readonly id: string | undefined; readonly card: TrailedCard }>();
  private next = Number.POSITIVE_INFINITY;

  /**
   * `cards` with their trails at `now`; `records`: every record held, newest first. A card whose input
   * and trail are the ones of last time comes out as the very same object.
   */
  decorate<C extends TrailedCard>(cards: readonly C[], records: readonly RequestRecord[], now: number): C[] {
    const byCluster = recentRecords(records, now);
    const seen = new Set<string>();
    let next = Number.POSITIVE_INFINITY;
    const out = cards.map((base) => {
      seen.add(base.name);
      const known = this.decorated.get(base.name);
      // The same card as last time, with no trail then, no record of the hour and no replacement seen:
      // still no trail (a card's status changes only as a new object). Most of 3,000 cards, every render.
      if (known !== undefined && known.base === base && known.id === undefined && !byCluster.has(base.name) && !this.replaced.has(base.name)) return known.card as C;
      this.watchReplacement(base, now);
      const trail = deriveTrail({ status: base.status, records: byCluster.get(base.name) ?? [], replaced: this.replaced.get(base.name), now });
      if (trail !== undefined) next = Math.min(next, trail.at + TRAIL_MS);
      if (known !== undefined && known.base === base && known.id === trail?.id) return known.card as C;
      const card: C = trail === undefined ? base : { ...base, trail };
      this.decorated.set(base.name, { base, id: trail?.id, card });
      return card;
    });
    for (const map of [this.decorated, this.open, this.replaced]) for (const name of map.keys()) if (!seen.has(name)) map.delete(name);
    for (const [name, replacement] of this.replaced) if (now - replacement.seenAt >= TRAIL_MS) this.replaced.delete(name);
    this.next = next;
    return out;
  }

  /** When the oldest trail of the last {@link decorate} leaves its card (`Infinity`: none): the server renders then. */
  nextExpiry(): number {
    return this.next;
  }

  /** Notes a failout whose open windows gave way to another request's (edge-triggered: once per change). */
  private watchReplacement(card: TrailedCard, now: number): void {
    const status = card.status;
    if (status === undefined) return;
    const ids = [...new Set(status.windows.filter((w) => w.active || Date.parse(w.offlineAt) > now).flatMap((w) => (w.requestId === null ? [] : [w.requestId])))];
    const before = this.open.get(card.name);
    if (before !== undefined && before.length > 0 && ids.length > 0 && ids.every((id) => !before.includes(id))) this.replaced.set(card.name, { seenAt: now, previous: before[0]!, by: ids[0]! });
    this.open.set(card.name, ids);
  }
}

/** Per cluster, its applied records that changed something within {@link TRAIL_MS} of `now`, newest first. */
function recentRecords(records: readonly RequestRecord[], now: number): Map<string, RequestRecord[]> {
  const byCluster = new Map<string, RequestRecord[]>();
  for (const record of records) {
    // Newest first: the first one older than the hour ends the pass (20,000 records are not walked).
    if (now - record.appliedAt >= TRAIL_MS) break;
    if (record.status !== 'applied' || record.unchanged === true || record.cluster === null) continue;
    const list = byCluster.get(record.cluster);
    if (list === undefined) byCluster.set(record.cluster, [record]);
    else list.push(record);
  }
  return byCluster;
}
