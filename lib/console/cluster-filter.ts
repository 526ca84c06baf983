/**
 * Finding clusters on the console (issue 24, item 2): what each card says about itself for the
 * filter (its states and its fabric, as data attributes page.ts renders), the filter as the URL
 * carries it, and the rule that decides whether a card matches.
 *
 * The filter runs in the browser over the cards already on the page (public/find.js: at 3,000 clusters
 * it toggles `hidden`, never renders again), so the browser holds the one matcher that runs; the
 * rule here is its specification, and a unit test holds find.js's matcher to it with random cards and
 * filters (the parity test of test/helpers/in-memory-zk, applied to a script).
 *
 * Matching, every field optional and all combined with "and":
 * - `service`, `cluster`: a case-insensitive substring of the card's service (its group's; `''` for
 *   the clusters no service claims) and of its name, so `lor1` finds `greetings-lor1`;
 * - `state`: one of {@link CLUSTER_STATES} the card has now ({@link cardStates});
 * - `fabric`: the card's fabric, whole, case-insensitive (lib/fabrics' derivation: {@link CardFabrics}).
 */
import { deriveFabrics, type FabricMap } from '../fabrics';
import type { AlarmStatesView } from './alarms';
import type { FabricMapEntry } from './fabric-watch';
import { liveKey } from './card-patches';
import { shownWindowIndexes, type ClusterCard } from './snapshot';

/** The states a card can be filtered by. */
export const CLUSTER_STATES = ['failed-out', 'ramping', 'drill', 'alarm'] as const;

/** One of {@link CLUSTER_STATES}. */
export type ClusterState = (typeof CLUSTER_STATES)[number];

/** How the find form names each state. */
export const STATE_WORDS: Readonly<Record<ClusterState, string>> = Object.freeze({ 'failed-out': 'failed out', ramping: 'ramping', drill: 'drill', alarm: 'alarm firing' });

/** The URL query's parameter names, in the order the page writes them. */
export const FILTER_PARAMS = ['service', 'cluster', 'state', 'fabric'] as const;

/** Longest filter text taken from a URL (a cluster name is at most a znode name). */
const MAX_FILTER_TEXT = 256;

/** What a card is filtered by, as find.js reads it from the page. */
export interface CardFacts {
  /** The service of the card's group; `''` for the clusters no service claims. */
  readonly service: string;
  readonly cluster: string;
  readonly states: readonly ClusterState[];
  /** The card's fabric; `''` when none places it. */
  readonly fabric: string;
}

/** The filter; a field absent (or empty) does not filter. */
export interface ClusterFilter {
  readonly service?: string;
  readonly cluster?: string;
  readonly state?: ClusterState;
  readonly fabric?: string;
}

/**
 * The states a card has at `now`: `failed-out` (a window moves traffic now), `ramping` (a ramp has
 * steps still to start, or holds them), `drill` (a drill's window has not ended), `alarm` (one of the
 * stop alarms of a window that has not ended is in ALARM). The card is rendered again when any of these
 * changes: at its windows' boundaries (card-cache.ts) and when its alarms' states change (live-state.ts).
 */
export function cardStates(card: ClusterCard, alarms: AlarmStatesView, now: number): ClusterState[] {
  const status = card.status;
  if (status === undefined) return [];
  const states: ClusterState[] = [];
  if (status.state === 'failed-out') states.push('failed-out');
  const ramp = status.ramp;
  if (ramp !== undefined && (ramp.nextAt !== null || ramp.held !== undefined)) states.push('ramping');
  // Windows active now or still to start; an ended failout's last window is shown but is over.
  const open = shownWindowIndexes(status).filter((i) => status.windows[i]!.active || Date.parse(status.windows[i]!.offlineAt) > now);
  if (open.some((i) => card.safety[i]?.drill !== undefined)) states.push('drill');
  if (alarms.kind === 'read' && open.some((i) => (card.safety[i]?.stopAlarms ?? []).some((name) => alarms.states.get(name) === 'ALARM'))) states.push('alarm');
  return states;
}

/** True when `card` passes every field of `filter` given (see the module comment). */
export function matchesCard(card: CardFacts, filter: ClusterFilter): boolean {
  const has = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';
  if (has(filter.service) && !card.service.toLowerCase().includes(filter.service.trim().toLowerCase())) return false;
  if (has(filter.cluster) && !card.cluster.toLowerCase().includes(filter.cluster.trim().toLowerCase())) return false;
  if (filter.state !== undefined && !card.states.includes(filter.state)) return false;
  if (has(filter.fabric) && card.fabric.toLowerCase() !== filter.fabric.trim().toLowerCase()) return false;
  return true;
}

/**
 * The filter a URL query carries (`?cluster=lor1&state=failed-out`): texts trimmed and cut to 256
 * characters, an unknown state or parameter ignored (a link from an older console still opens).
 */
export function parseClusterFilter(params: URLSearchParams): ClusterFilter {
  const text = (name: string): string | undefined => {
    const value = params.get(name)?.trim().slice(0, MAX_FILTER_TEXT);
    return value === undefined || value === '' ? undefined : value;
  };
  const state = text('state');
  const filter: { -readonly [K in keyof ClusterFilter]: ClusterFilter[K] } = {};
  for (const name of ['service', 'cluster', 'fabric'] as const) {
    const value = text(name);
    if (value !== undefined) filter[name] = value;
  }
  if (state !== undefined && (CLUSTER_STATES as readonly string[]).includes(state)) filter.state = state as ClusterState;
  return filter;
}

/** The URL query of `filter` (`''` for none), in {@link FILTER_PARAMS} order: what find.js writes. */
export function clusterFilterQuery(filter: ClusterFilter): string {
  const params = new URLSearchParams();
  for (const name of FILTER_PARAMS) {
    const value = filter[name]?.trim();
    if (value !== undefined && value !== '') params.set(name, value);
  }
  return params.toString();
}

/**
 * Each cluster's fabric (lib/fabrics' rule and maps, as the fabric table derives them), derived again
 * only when the service names, the cluster names or the maps changed: a render at 3,000 clusters that
 * changed one failout costs one comparison here, not a derivation.
 */
export class CardFabrics {
  private key = '';
  private maps: readonly FabricMapEntry[] = [];
  private byCluster = new Map<string, string>();
  /** Per cluster: the card given and the card with its fabric, the same object while both stay. */
  private readonly decorated = new Map<string, { readonly base: ClusterCard; readonly card: ClusterCard }>();

  /**
   * `cards` with their fabric (`ClusterCard.fabric`); a card whose input and fabric are the ones of
   * last time comes out as the very same object (live-state.ts reuses its HTML on that identity).
   */
  decorate(cards: readonly ClusterCard[], services: readonly string[], maps: readonly FabricMapEntry[]): ClusterCard[] {
    const fabrics = this.fabrics(services, cards, maps);
    const seen = new Set<string>();
    const out = cards.map((base) => {
      seen.add(base.name);
      const fabric = fabrics.get(base.name);
      const known = this.decorated.get(base.name);
      if (known !== undefined && known.base === base && known.card.fabric === fabric) return known.card;
      const card: ClusterCard = fabric === undefined ? base : { ...base, fabric };
      this.decorated.set(base.name, { base, card });
      return card;
    });
    for (const name of this.decorated.keys()) if (!seen.has(name)) this.decorated.delete(name);
    return out;
  }

  private fabrics(services: readonly string[], cards: readonly ClusterCard[], maps: readonly FabricMapEntry[]): ReadonlyMap<string, string> {
    const key = `${services.join('\n')}\u0000${cards.map((c) => c.name).join('\n')}`;
    const sameMaps = maps.length === this.maps.length && maps.every((m, i) => JSON.stringify(m) === JSON.stringify(this.maps[i]));
    if (key === this.key && sameMaps) return this.byCluster;
    const derived = deriveFabrics({ services, clusters: cards.map((c) => c.name), maps: maps.flatMap((m): FabricMap[] => ('map' in m ? [m.map] : [])) });
    this.byCluster = new Map(derived.fabrics.flatMap((f) => f.clusters.map((m): [string, string] => [m.cluster, f.name])));
    this.key = key;
    this.maps = maps;
    return this.byCluster;
  }
}

/** The address of a cluster's own page (cluster-page.ts): `/clusters/<name>`, the name percent-encoded. */
export function clusterHref(name: string): string {
  return `/clusters/${liveKey(name)}`;
}
