/**
 * The console's fabric view (issue 23, item 6): fabrics × services, built from what the console already
 * holds, with no read of its own. Fabrics are lib/fabrics' derivation (the rule `<service>-<fabric>`
 * and the explicit maps, the same as `failout fabric list`) over the clusters and services the view
 * watches; each cell is a service's cluster in a fabric with its hosts and state (serving, failed out,
 * evacuated); each fabric's share of a service's traffic comes from the request rates the console
 * scrapes (by target cluster), or, without rates, from the hosts; and each fabric's evacuation is
 * its node described as `failout status` describes it (lib/operator's `describeEvacuation`).
 * {@link buildFabricTable} is pure; the server keeps a {@link FabricTables}, which makes again only
 * what a change touched.
 */
import type { FailoutProperties } from '../d2';
import { deriveFabrics, type DerivedFabrics, type FabricMap, type FabricMapConflict, type MissingMappedCluster } from '../fabrics';
import { evacuation, type ClusterStatus } from '../operator';
import type { EvacuationNode, RequestRates } from '../requests';
import { failoutBoundary } from './boundaries';
import type { FabricMapEntry, UnreadableEvacuationEntry } from './fabric-watch';
import type { ClusterEntry } from './zk-view';

/** A cell's state, as the table shows it. `evacuated`: failed out now by a fabric's evacuation. */
export type FabricCellState = 'serving' | 'failed-out' | 'evacuated' | 'scheduled' | 'malformed' | 'loading';

/** One cluster of a service in a fabric. */
export interface FabricCell {
  readonly cluster: string;
  readonly hosts: number;
  readonly state: FabricCellState;
  /** For `failed-out` and `evacuated`: the share of its traffic moved now (%). */
  readonly movedPct?: number;
  /** The cluster's request rate now (req/s), when the shares come from rates. */
  readonly rate?: number;
}

/** One service: its clusters per fabric (aligned with {@link FabricTable.fabrics}) and each fabric's share of its traffic. */
export interface FabricServiceRow {
  readonly service: string;
  /** Per fabric (same order as the table's fabrics): the service's clusters there (usually one; none: empty). */
  readonly cells: readonly (readonly FabricCell[])[];
  /** Per fabric: its share of the service's traffic (0–1), or undefined when there is nothing to share. */
  readonly shares: readonly (number | undefined)[];
  /** Where the shares come from: request rates by target cluster, the hosts (no rates), or nothing (no hosts either). */
  readonly shareBy: 'rates' | 'hosts' | 'none';
}

/** One fabric: its sums and its evacuation. */
export interface FabricColumn {
  readonly name: string;
  readonly clusters: number;
  readonly hosts: number;
  /** Its clusters whose traffic is moved now (failed out or evacuated). */
  readonly movedOut: number;
  /** Its open evacuation, described now. */
  readonly evacuation?: evacuation.EvacuationSummary;
  /** Its last evacuation when none is open (ended, restored or stopped). */
  readonly lastEvacuation?: evacuation.EvacuationSummary;
}

/** Everything the fabric section shows. */
export interface FabricTable {
  readonly fabrics: readonly FabricColumn[];
  readonly services: readonly FabricServiceRow[];
  /** Where the request rates came from (`the console's last scrape of …`), or undefined when there are none. */
  readonly ratesSource: string | undefined;
  /** Clusters no rule and no map places (sorted). */
  readonly unassigned: readonly string[];
  /** Map nodes that do not decode: their clusters follow the rule. */
  readonly brokenMaps: readonly { readonly fabric: string; readonly problem: string }[];
  /** Evacuation nodes that do not decode (the worker treats them as open), each with its problem. */
  readonly unreadableEvacuations: readonly UnreadableEvacuationEntry[];
  readonly conflicts: readonly FabricMapConflict[];
  readonly missing: readonly MissingMappedCluster[];
}

/** A table with nothing in it (no ZooKeeper yet). */
export const EMPTY_FABRIC_TABLE: FabricTable = Object.freeze({ fabrics: [], services: [], ratesSource: undefined, unassigned: [], brokenMaps: [], unreadableEvacuations: [], conflicts: [], missing: [] });

/** What the table is built from: the view's data and the scrapes. */
export interface FabricTableInputs {
  /** Children of `/d2/services`. */
  readonly services: readonly string[];
  readonly clusters: readonly ClusterEntry[];
  readonly maps: readonly FabricMapEntry[];
  readonly evacuations: readonly EvacuationNode[];
  /** Evacuation nodes that do not decode now (default: none). */
  readonly unreadableEvacuations?: readonly UnreadableEvacuationEntry[];
  /** Request rates by target cluster now (the console's scrapes), or undefined. */
  readonly rates: RequestRates | undefined;
  /** A cluster's failout as `failout status` describes it. */
  readonly describe: (cluster: string, properties: FailoutProperties | null) => ClusterStatus;
  readonly now: number;
}

/** The fabric table at `inputs.now`, made from nothing (a one-off; the server keeps a {@link FabricTables}). */
export function buildFabricTable(inputs: FabricTableInputs): FabricTable {
  return new FabricTables().build(inputs);
}

/** The derivation over the names and maps, with each service's clusters per fabric laid out once. */
interface Layout {
  readonly services: readonly string[];
  readonly clusterNames: readonly string[];
  readonly maps: readonly FabricMapEntry[];
  readonly derived: DerivedFabrics;
  /** Fabric names the derivation gives (sorted). */
  readonly fabricNames: readonly string[];
  /** Sorted service names, each with its clusters per derived fabric (by {@link fabricNames}' index). */
  readonly rows: readonly { readonly service: string; readonly clusters: ReadonlyMap<string, readonly string[]> }[];
  /** Per derived fabric: its clusters, in the derivation's order. */
  readonly members: ReadonlyMap<string, readonly string[]>;
}

/** A cluster's cell and what it was made of, valid until its next boundary (boundaries.ts). */
interface CachedCell {
  readonly failout: FailoutProperties | null | undefined;
  readonly hosts: number;
  readonly problem: string | undefined;
  readonly validUntil: number;
  readonly cell: FabricCell;
}

/** A service's row and what it was made of: its unrated cells and their rates. */
interface CachedRow {
  readonly cells: readonly (readonly FabricCell[])[];
  readonly rated: boolean;
  readonly rates: readonly number[];
  readonly row: FabricServiceRow;
}

/**
 * Fabric tables made one after another (the server's: one per render), each reusing what the one
 * before made from the same inputs (issue 24 item 1: at 3,000 clusters a change must not remake the
 * table): the derivation while the service and cluster names and the maps are the same; a cluster's
 * cell while its failout object and hosts are and its next boundary is ahead; a service's row while
 * its cells are the same objects with the same rates. A row that comes out as the same object as last
 * time is unchanged, which fabric-page.ts's {@link FabricRowHtml} relies on to reuse its HTML.
 *
 * Concurrency: event loop only.
 */
export class FabricTables {
  private layout: Layout | undefined;
  private readonly cells = new Map<string, CachedCell>();
  private readonly rows = new Map<string, CachedRow>();

  /** The fabric table at `inputs.now`. */
  build(inputs: FabricTableInputs): FabricTable {
    const { now } = inputs;
    const layout = this.layoutOf(inputs);
    const entries = new Map(inputs.clusters.map((c) => [c.name, c]));
    const cellOf = (cluster: string): FabricCell => this.cell(cluster, entries.get(cluster), inputs);
    const described = new Map(inputs.evacuations.map((node) => [node.fabric, evacuation.describeEvacuation(node, now)]));
    // A fabric with an open evacuation stays listed even when its clusters are gone (it still moves traffic).
    const names = [...new Set([...layout.fabricNames, ...[...described.values()].filter((e) => e.open).map((e) => e.fabric)])].sort(compare);
    const fabrics = names.map((name): FabricColumn => {
      const cells = (layout.members.get(name) ?? []).map(cellOf);
      const summary = described.get(name);
      return {
        name,
        clusters: cells.length,
        hosts: cells.reduce((sum, c) => sum + c.hosts, 0),
        movedOut: cells.filter((c) => c.state === 'failed-out' || c.state === 'evacuated').length,
        ...(summary === undefined ? {} : summary.open ? { evacuation: summary } : { lastEvacuation: summary }),
      };
    });
    const services = layout.rows.map(({ service, clusters }) => this.row(service, names.map((name) => (clusters.get(name) ?? []).map(cellOf)), inputs.rates));
    return {
      fabrics,
      services,
      ratesSource: inputs.rates?.source,
      unassigned: layout.derived.unassigned,
      brokenMaps: inputs.maps.flatMap((m) => ('problem' in m ? [{ fabric: m.fabric, problem: m.problem }] : [])),
      unreadableEvacuations: inputs.unreadableEvacuations ?? [],
      conflicts: layout.derived.conflicts,
      missing: layout.derived.missing,
    };
  }

  /** The derivation of last time when the service names, cluster names and maps are the same. */
  private layoutOf(inputs: FabricTableInputs): Layout {
    const clusterNames = inputs.clusters.map((c) => c.name);
    const known = this.layout;
    if (known !== undefined && sameItems(known.services, inputs.services) && sameItems(known.clusterNames, clusterNames) && sameItems(known.maps, inputs.maps)) return known;
    const maps = inputs.maps.flatMap((m): FabricMap[] => ('map' in m ? [m.map] : []));
    const derived = deriveFabrics({ services: inputs.services, clusters: clusterNames, maps });
    const byService = new Map<string, Map<string, string[]>>();
    for (const fabric of derived.fabrics) {
      for (const member of fabric.clusters) {
        let row = byService.get(member.service);
        if (row === undefined) byService.set(member.service, (row = new Map()));
        const list = row.get(fabric.name);
        if (list === undefined) row.set(fabric.name, [member.cluster]);
        else list.push(member.cluster);
      }
    }
    // Names changed: forget the cells and rows of clusters and services that are gone.
    const present = new Set(clusterNames);
    for (const name of this.cells.keys()) if (!present.has(name)) this.cells.delete(name);
    for (const service of this.rows.keys()) if (!byService.has(service)) this.rows.delete(service);
    this.layout = {
      services: inputs.services,
      clusterNames,
      maps: inputs.maps,
      derived,
      fabricNames: derived.fabrics.map((f) => f.name),
      rows: [...byService.keys()].sort(compare).map((service) => ({ service, clusters: byService.get(service)! })),
      members: new Map(derived.fabrics.map((f) => [f.name, f.clusters.map((m) => m.cluster)])),
    };
    return this.layout;
  }

  /** A cluster's cell: the one of last time while its failout object and hosts are the same and its next boundary is ahead. */
  private cell(cluster: string, entry: ClusterEntry | undefined, inputs: FabricTableInputs): FabricCell {
    const known = this.cells.get(cluster);
    if (known !== undefined && entry !== undefined && known.failout === entry.failout && known.hosts === entry.hosts && known.problem === entry.problem && inputs.now < known.validUntil) return known.cell;
    // Nothing read well yet: loading, unless the reads so far failed (a node the console may not read).
    const unread = entry?.problem === undefined ? ('loading' as const) : ('malformed' as const);
    const cell = entry === undefined || entry.failout === undefined ? { cluster, hosts: entry?.hosts ?? 0, state: unread } : cellState(entry, inputs.describe(cluster, entry.failout), inputs.now);
    if (entry !== undefined) this.cells.set(cluster, { failout: entry.failout, hosts: entry.hosts, problem: entry.problem, validUntil: failoutBoundary(entry.failout, inputs.now), cell });
    return cell;
  }

  /** A service's row: the one of last time while its cells are the same objects with the same rates. */
  private row(service: string, cells: readonly (readonly FabricCell[])[], rates: RequestRates | undefined): FabricServiceRow {
    const rateList = rates === undefined ? [] : cells.flatMap((list) => list.map((c) => rates.byCluster.get(c.cluster) ?? 0));
    const known = this.rows.get(service);
    if (known !== undefined && known.rated === (rates !== undefined) && sameItems(known.rates, rateList) && known.cells.length === cells.length && known.cells.every((list, i) => sameItems(list, cells[i]!))) return known.row;
    const row = serviceRow(service, cells, rates);
    this.rows.set(service, { cells, rated: rates !== undefined, rates: rateList, row });
    return row;
  }
}

/** True when two lists hold the same items (`===`) in the same order. */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What a fabric request's judgement is about, as one string (compared, never parsed; checked-requests.ts):
 * for `evacuate`, the fabric's evacuation node and map, and the failouts of every cluster of the services
 * the fabric serves, in every fabric (the receivers' state is part of the plan); for `restoreFabric`, the
 * evacuation node only. Hosts are left out: they come and go all the time, and a Confirm judges the plan
 * again anyway, and shows it again instead of sending it when it differs (fabric-actions.ts).
 */
export function fabricFingerprint(
  state: Pick<FabricTableInputs, 'clusters' | 'maps' | 'evacuations' | 'unreadableEvacuations'>,
  table: FabricTable,
  request: { readonly action: 'evacuate' | 'restoreFabric'; readonly fabric: string },
): string {
  const node = state.evacuations.find((n) => n.fabric === request.fabric);
  // A node that stopped decoding is shown as last read, but the worker now sees another node.
  const unreadable = state.unreadableEvacuations?.find((e) => e.fabric === request.fabric);
  const evacuationState = unreadable !== undefined ? ['unreadable', unreadable.problem] : node === undefined ? null : [node.requestId, node.status];
  if (request.action === 'restoreFabric') return JSON.stringify(evacuationState);
  const index = table.fabrics.findIndex((f) => f.name === request.fabric);
  const served = table.services.filter((row) => index >= 0 && (row.cells[index]?.length ?? 0) > 0);
  const clusters = new Set(served.flatMap((row) => row.cells.flat().map((c) => c.cluster)));
  const failouts = state.clusters
    .filter((c) => clusters.has(c.name))
    .sort((a, b) => compare(a.name, b.name))
    .map((c) => [c.name, c.failout ?? null]);
  const map = state.maps.find((m) => m.fabric === request.fabric) ?? null;
  return JSON.stringify([evacuationState, map, failouts]);
}

/** A cluster's cell: its failout state, `evacuated` when an evacuation's window moves it now. */
function cellState(entry: ClusterEntry, status: ClusterStatus, now: number): FabricCell {
  const base = { cluster: entry.name, hosts: entry.hosts };
  switch (status.state) {
    case 'serving':
    case 'ended':
      return { ...base, state: 'serving' };
    case 'scheduled':
      return { ...base, state: 'scheduled' };
    case 'malformed':
      return { ...base, state: 'malformed' };
    case 'failed-out': {
      const movedPct = status.ramp?.sharePct ?? status.windows.filter((w) => w.active).reduce((max, w) => Math.max(max, w.sharePct), 0);
      const byEvacuation = (entry.failout?.buckets ?? []).some((b) => b.evacuation !== undefined && (b.offlineAt ?? 0) <= now && (b.onlineAt === undefined || b.onlineAt > now));
      return { ...base, state: byEvacuation ? 'evacuated' : 'failed-out', movedPct };
    }
  }
}

/** A service's row: its cells per fabric and each fabric's share, by rates when any of its clusters has one, else by hosts. */
function serviceRow(service: string, cells: readonly (readonly FabricCell[])[], rates: RequestRates | undefined): FabricServiceRow {
  const rated = cells.map((list) => list.map((c) => ({ ...c, rate: rates?.byCluster.get(c.cluster) ?? 0 })));
  const sum = (list: readonly FabricCell[], of: (c: FabricCell) => number): number => list.reduce((total, c) => total + of(c), 0);
  const totalRate = sum(rated.flat(), (c) => c.rate ?? 0);
  if (rates !== undefined && totalRate > 0) return { service, cells: rated, shares: rated.map((list) => (list.length === 0 ? undefined : sum(list, (c) => c.rate ?? 0) / totalRate)), shareBy: 'rates' };
  const totalHosts = sum(cells.flat(), (c) => c.hosts);
  if (totalHosts > 0) return { service, cells, shares: cells.map((list) => (list.length === 0 ? undefined : sum(list, (c) => c.hosts) / totalHosts)), shareBy: 'hosts' };
  return { service, cells, shares: cells.map(() => undefined), shareBy: 'none' };
}

/** Code-unit order (as lib/fabrics sorts), independent of the locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
