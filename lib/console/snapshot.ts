/**
 * What the page shows at one moment, built from the ZooKeeper view, the HTTP sources and the queue
 * probe. Pure: the server builds one snapshot per change and renders it once for every browser.
 */
import type { ClusterStatus } from '../operator';
import type { FailoutProperties } from '../d2';
import type { RequestRecord } from '../requests';
import type { AlarmStatesView } from './alarms';
import type { QueueProbe } from '../operator';
import type { FabricTable } from './fabric-view';
import type { OutcomeTrail } from './outcome-trail';
import type { CardHealth, HealthTexts } from './health-view';
import type { BridgeSource, ServiceTraffic } from './sources';
import type { ClusterEntry, ZkViewState } from './zk-view';

/** Extra keys of one window that `failout status` does not show yet: its stop alarms, drill, and what force overrode. */
export interface WindowSafety {
  readonly stopAlarms: readonly string[];
  readonly drill: string | undefined;
  /** Present when a forced request wrote the window: the checks force overrode (may be empty). */
  readonly forced: readonly string[] | undefined;
}

/** One cluster's card. */
export interface ClusterCard {
  readonly name: string;
  readonly hosts: number;
  /** `failout status`'s description; undefined while not loaded. */
  readonly status: ClusterStatus | undefined;
  /** Per window (same order as `status.windows`): stop alarms and drill. */
  readonly safety: readonly WindowSafety[];
  readonly problem: string | undefined;
  /** The cluster's fabric (lib/fabrics' derivation; cluster-filter.ts `CardFabrics`), when one places it. */
  readonly fabric?: string;
  /** Why its last failout ended, for an hour (outcome-trail.ts `OutcomeTrails`). */
  readonly trail?: OutcomeTrail;
  /** Its health as a target of its group's service, and its peers' (health-board.ts), when metrics are configured. */
  readonly health?: CardHealth;
}

/** Clusters shown together: a service's home cluster and the clusters named after it (`<service>-…`) or peering with it. */
export interface ServiceGroup {
  /** The service, or undefined for clusters no service claims. */
  readonly service: string | undefined;
  readonly homeCluster: string | undefined;
  readonly clusters: readonly ClusterCard[];
}

/** Everything one render needs. */
export interface ConsoleSnapshot {
  readonly now: number;
  readonly zk: { readonly connect: string; readonly state: ZkViewState; readonly error: string | undefined; readonly since: number };
  readonly queue: { readonly url: string | undefined; readonly probe: QueueProbe | undefined; readonly at: number };
  readonly groups: readonly ServiceGroup[];
  readonly records: readonly RequestRecord[];
  readonly bridges: readonly BridgeSource[];
  readonly traffic: readonly ServiceTraffic[];
  /** Per service, its chart legend's health texts by target (health-board.ts `legend`); absent: none. */
  readonly trafficHealth?: ReadonlyMap<string, Readonly<Record<string, HealthTexts>>>;
  /** The states of the alarms the cards show, or why there are none. */
  readonly alarms: AlarmStatesView;
  /** Fabrics × services and each fabric's evacuation (issue 23; fabric-view.ts). */
  readonly fabrics: FabricTable;
}

/** The stop alarms, drill and `forced` of each bucket config (the codec keeps them: lib/d2/codecs/failout.ts). */
export function windowSafety(properties: FailoutProperties | null | undefined): WindowSafety[] {
  return (properties?.buckets ?? []).map((b) => ({ stopAlarms: b.stopAlarms ?? [], drill: b.drill, forced: b.forced }));
}

/**
 * Groups clusters by service: each service's home cluster, the clusters whose name starts with
 * `<service>-` (the naming the D2 sample and most deployments use) and the peers its home cluster's
 * failout names. Whatever no service claims goes into a last group.
 */
export function groupClusters(services: readonly { readonly name: string; readonly cluster: string | undefined }[], cards: readonly ClusterCard[]): ServiceGroup[] {
  const byName = new Map(cards.map((c) => [c.name, c]));
  const named = namedAfter(services, cards);
  const claimed = new Set<string>();
  const groups: ServiceGroup[] = [];
  for (const service of services) {
    const names = new Set<string>();
    if (service.cluster !== undefined && byName.has(service.cluster)) names.add(service.cluster);
    for (const name of named.get(service.name) ?? []) names.add(name);
    const home = service.cluster === undefined ? undefined : byName.get(service.cluster);
    for (const peer of home?.status?.peers ?? []) if (byName.has(peer.cluster)) names.add(peer.cluster);
    const clusters = [...names].sort((a, b) => (a === service.cluster ? -1 : b === service.cluster ? 1 : a < b ? -1 : 1)).map((n) => byName.get(n)!);
    for (const n of names) claimed.add(n);
    groups.push({ service: service.name, homeCluster: service.cluster, clusters });
  }
  const rest = cards.filter((c) => !claimed.has(c.name));
  if (rest.length > 0) groups.push({ service: undefined, homeCluster: undefined, clusters: rest });
  return groups;
}

/**
 * Per service, the cards named `<service>-…`, in the cards' order: each name's prefixes before a `-`
 * looked up once, rather than every name tested against every service (3,000 clusters × hundreds of
 * services on every change).
 */
function namedAfter(services: readonly { readonly name: string }[], cards: readonly ClusterCard[]): Map<string, string[]> {
  const serviceNames = new Set(services.map((s) => s.name));
  const named = new Map<string, string[]>();
  for (const card of cards) {
    for (let i = card.name.indexOf('-'); i >= 0; i = card.name.indexOf('-', i + 1)) {
      const prefix = card.name.slice(0, i);
      if (!serviceNames.has(prefix)) continue;
      const list = named.get(prefix);
      if (list === undefined) named.set(prefix, [card.name]);
      else list.push(card.name);
    }
  }
  return named;
}

/** A card from the view's entry and the description. */
export function clusterCard(entry: ClusterEntry, describe: (properties: FailoutProperties | null) => ClusterStatus): ClusterCard {
  return {
    name: entry.name,
    hosts: entry.hosts,
    status: entry.failout === undefined ? undefined : describe(entry.failout),
    safety: windowSafety(entry.failout),
    problem: entry.problem,
  };
}

/**
 * The windows a card lists, by index into `status.windows`: all of them, or only the last once the
 * failout has ended (the page and the alarm poller must agree on what is shown).
 */
export function shownWindowIndexes(status: ClusterStatus | undefined): number[] {
  if (status === undefined || status.windows.length === 0) return [];
  const all = status.windows.map((_w, i) => i);
  return status.state === 'ended' ? all.slice(-1) : all;
}

/** Every stop alarm name the cards show now (each once): the only names the console asks states for. */
export function shownAlarmNames(groups: readonly ServiceGroup[]): string[] {
  const names = new Set<string>();
  for (const card of groups.flatMap((g) => g.clusters)) {
    for (const i of shownWindowIndexes(card.status)) for (const name of card.safety[i]?.stopAlarms ?? []) names.add(name);
  }
  return [...names];
}

/**
 * What the alarm poller must read again at once when it changes: per card that shows stop alarms,
 * the cluster, the requests of the shown windows and their alarm names (a failout that came, went,
 * was replaced or amended). Equal strings: nothing that names an alarm changed.
 */
export function alarmedFailouts(groups: readonly ServiceGroup[]): string {
  const parts: string[] = [];
  for (const card of groups.flatMap((g) => g.clusters)) {
    for (const i of shownWindowIndexes(card.status)) {
      const alarms = card.safety[i]?.stopAlarms ?? [];
      if (alarms.length > 0) parts.push(JSON.stringify([card.name, card.status?.windows[i]?.requestId ?? null, alarms]));
    }
  }
  return parts.join('\n');
}
