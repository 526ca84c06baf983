/**
 * What the cards and the charts show of each target's health (issue 24, "health per target"), kept
 * between scrapes: per service and target cluster the shown health (health-view.ts, held steady), and
 * the cards decorated with it. A card's health is the cluster's as a target of its group's service
 * (that service's D2 clients send its traffic, and a failed-out card's moved traffic to its peers):
 * its own line, and on a failed-out or scheduled card a line per peer.
 *
 * A card comes out of {@link HealthBoard.decorate} as the same object while its input card and every
 * health it shows are the same objects, so live-state.ts sends it again only when a shown value
 * changed; {@link HealthBoard.update} says whether anything shown changed, so a scrape that changed
 * nothing shown renders no card at all.
 *
 * Concurrency: event loop only.
 */
import type { TargetHealth } from '../metrics';
import { healthTexts, nextShown, unknownHealth, type CardHealth, type HealthTexts, type ShownHealth } from './health-view';
import type { ClusterCard, ServiceGroup } from './snapshot';
import type { ServiceTraffic } from './sources';

/** A target with no request in the window (no series at all, or a zero increase). */
const IDLE: TargetHealth = { rps: 0, errorPct: undefined, p99Ms: undefined };

/** One service's shown health. */
interface ServiceBoard {
  /** Why nothing is known now (sources.ts `healthProblem`), as shown; undefined when measured. */
  problem: ShownHealth | undefined;
  readonly targets: Map<string, ShownHealth>;
  /** What a target without a series shows. */
  readonly idle: ShownHealth;
}

/** The shown health of every configured service's targets, and the cards decorated with it. */
export class HealthBoard {
  private readonly services = new Map<string, ServiceBoard>();
  /** Per service not configured: the one object its cards show. */
  private readonly unconfigured = new Map<string, ShownHealth>();
  private readonly decorated = new Map<string, { readonly base: ClusterCard; readonly health: CardHealth; readonly card: ClusterCard }>();

  /** `services`: those with metrics endpoints. None: the cards show no health at all. */
  constructor(services: readonly string[]) {
    for (const service of services) this.services.set(service, { problem: unknownHealth('not scraped yet'), targets: new Map(), idle: nextShown(undefined, IDLE) });
  }

  /** Takes a service's latest scrape; true when anything it shows changed. */
  update(traffic: Pick<ServiceTraffic, 'service' | 'health' | 'healthProblem'>): boolean {
    const board = this.services.get(traffic.service);
    if (board === undefined) return false;
    if (traffic.healthProblem !== undefined) {
      const same = board.problem !== undefined && 'reason' in board.problem.rps && board.problem.rps.reason === traffic.healthProblem;
      if (!same) board.problem = unknownHealth(traffic.healthProblem);
      // Measured again later, the numbers start fresh.
      board.targets.clear();
      return !same;
    }
    let changed = board.problem !== undefined;
    board.problem = undefined;
    for (const [cluster, health] of traffic.health) {
      const previous = board.targets.get(cluster);
      const next = nextShown(previous ?? board.idle, health);
      if (next !== (previous ?? board.idle)) changed = true;
      if (next === board.idle) board.targets.delete(cluster);
      else board.targets.set(cluster, next);
    }
    for (const cluster of board.targets.keys()) {
      if (!traffic.health.has(cluster)) {
        board.targets.delete(cluster);
        changed = true;
      }
    }
    return changed;
  }

  /** The health of `cluster` as a target of `service`, as shown now. */
  of(service: string, cluster: string): ShownHealth {
    const board = this.services.get(service);
    if (board === undefined) {
      let none = this.unconfigured.get(service);
      if (none === undefined) this.unconfigured.set(service, (none = unknownHealth(`no metrics endpoint configured for service ${service}`)));
      return none;
    }
    return board.problem ?? board.targets.get(cluster) ?? board.idle;
  }

  /** The chart's legend of a service: each target's texts (`targets`: those the chart has besides). */
  legend(service: string, targets: Iterable<string> = []): Record<string, HealthTexts> {
    const board = this.services.get(service);
    const names = new Set([...targets, ...(board?.targets.keys() ?? [])]);
    return Object.fromEntries([...names].sort().map((cluster) => [cluster, healthTexts(this.of(service, cluster))]));
  }

  /**
   * The groups with their cards' health; a group without a service (the clusters none claims) as it is,
   * and every group as it is when no service has a metrics endpoint.
   */
  decorate(groups: readonly ServiceGroup[]): ServiceGroup[] {
    if (this.services.size === 0) return [...groups];
    const seen = new Set<string>();
    const out = groups.map((group) => {
      const service = group.service;
      if (service === undefined) return group;
      return { ...group, clusters: group.clusters.map((card) => this.card(service, card, seen)) };
    });
    for (const key of this.decorated.keys()) if (!seen.has(key)) this.decorated.delete(key);
    return out;
  }

  private card(service: string, base: ClusterCard, seen: Set<string>): ClusterCard {
    const key = `${service}\u0000${base.name}`;
    seen.add(key);
    const own = this.of(service, base.name);
    const state = base.status?.state;
    const peers = state === 'failed-out' || state === 'scheduled' ? (base.status?.peers ?? []).map((p) => ({ cluster: p.cluster, health: this.of(service, p.cluster) })) : [];
    const known = this.decorated.get(key);
    if (known !== undefined && known.base === base && known.health.own === own && samePeers(known.health.peers, peers)) return known.card;
    const health: CardHealth = { service, own, peers };
    const card = { ...base, health };
    this.decorated.set(key, { base, health, card });
    return card;
  }
}

function samePeers(a: CardHealth['peers'], b: CardHealth['peers']): boolean {
  return a.length === b.length && a.every((p, i) => p.cluster === b[i]!.cluster && p.health === b[i]!.health);
}
