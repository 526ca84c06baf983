/**
 * The cluster cards of the console, made again only for a cluster whose inputs changed (issue 24,
 * item 3: at 3,000 clusters, a ZooKeeper change must not describe and render every card). The ZkView
 * keeps a cluster's parsed failout object until its node changes (zk-view.ts), so "unchanged" is one
 * identity and two value comparisons; a card is also made again once its next window boundary has
 * passed (boundaries.ts), when its description at the new time differs.
 *
 * A card that comes out of {@link ClusterCards.cards} as the same object as before has the same
 * content: live-render.ts relies on that identity to reuse the card's HTML.
 *
 * Concurrency: event loop only.
 */
import type { FailoutProperties } from '../d2';
import type { ClusterStatus } from '../operator';
import { failoutBoundary } from './boundaries';
import { clusterCard, type ClusterCard } from './snapshot';
import type { ClusterEntry } from './zk-view';

/** How a card is described: `OperatorRequests.describe` (the `failout status` description). */
export type Describe = (cluster: string, properties: FailoutProperties | null, now: number) => ClusterStatus;

/** One cluster's inputs and the card made of them, valid until `validUntil` (its next boundary). */
interface Cached {
  readonly failout: FailoutProperties | null | undefined;
  readonly hosts: number;
  readonly problem: string | undefined;
  readonly card: ClusterCard;
  readonly validUntil: number;
}

/** The cards of every cluster, cached per cluster. */
export class ClusterCards {
  private readonly byName = new Map<string, Cached>();
  private next = Number.POSITIVE_INFINITY;

  constructor(private readonly describe: Describe) {}

  /**
   * The cards of `entries` at `now`, in their order: for a cluster whose failout object, hosts and
   * problem are the ones of last time and whose next boundary is still ahead, the very same card.
   */
  cards(entries: readonly ClusterEntry[], now: number): ClusterCard[] {
    const seen = new Set<string>();
    let next = Number.POSITIVE_INFINITY;
    const cards = entries.map((entry) => {
      seen.add(entry.name);
      let cached = this.byName.get(entry.name);
      if (cached === undefined || cached.failout !== entry.failout || cached.hosts !== entry.hosts || cached.problem !== entry.problem || now >= cached.validUntil) {
        const card = clusterCard(entry, (properties) => this.describe(entry.name, properties, now));
        cached = { failout: entry.failout, hosts: entry.hosts, problem: entry.problem, card, validUntil: failoutBoundary(entry.failout, now) };
        this.byName.set(entry.name, cached);
      }
      if (cached.validUntil < next) next = cached.validUntil;
      return cached.card;
    });
    for (const name of this.byName.keys()) if (!seen.has(name)) this.byName.delete(name);
    this.next = next;
    return cards;
  }

  /**
   * A cluster's description at `now` (the fabric table's): its card's when the card was made of the
   * same failout and is still valid, else described now.
   */
  status(cluster: string, properties: FailoutProperties | null, now: number): ClusterStatus {
    const cached = this.byName.get(cluster);
    if (cached !== undefined && cached.failout === properties && now < cached.validUntil && cached.card.status !== undefined) return cached.card.status;
    return this.describe(cluster, properties, now);
  }

  /** The earliest next boundary of the cards of the last {@link cards} call (`Infinity`: none). */
  nextBoundary(): number {
    return this.next;
  }
}
