import type { DerivedFabrics, Fabric, FabricInputs, FabricMap, FabricMapConflict, FabricMember, FabricTarget, MissingMappedCluster } from './model';
import { fabricNameProblem } from './names';

/**
 * The documented rule (docs/operators.md "Fabrics"): a cluster named `<service>-<fabric>`, where
 * `<service>` is a child of `/d2/services` and `<fabric>` follows the fabric-name grammar, belongs to
 * fabric `<fabric>` and serves `<service>` (`greetings-lor1` → service `greetings`, fabric `lor1`).
 * When several service names prefix a cluster name that way, the longest wins (services `greetings`
 * and `greetings-eu`: `greetings-eu-lor1` is `greetings-eu` in `lor1`). A cluster no service prefixes
 * is `unassigned`, never dropped. An explicit map (fabric-map.ts) wins over the rule for the clusters
 * it names; a cluster several maps name stays in the first fabric by name, and the clash is reported.
 * The service's clusters in the other fabrics are a cluster's candidate targets ({@link targetsOf}).
 */

/**
 * The service and fabric the rule gives `cluster`, or undefined when no service in `services` prefixes
 * it as `<service>-<fabric>` with a fabric name that follows the grammar. The longest such service wins.
 */
export function ruleMatch(services: ReadonlySet<string>, cluster: string): { readonly service: string; readonly fabric: string } | undefined {
  // The later the dash, the longer the service: the first match from the right is the longest.
  for (let dash = cluster.lastIndexOf('-'); dash > 0; dash = cluster.lastIndexOf('-', dash - 1)) {
    const service = cluster.slice(0, dash);
    const fabric = cluster.slice(dash + 1);
    if (services.has(service) && fabricNameProblem(fabric) === undefined) return { service, fabric };
  }
  return undefined;
}

/**
 * Every fabric of `inputs`: each cluster (duplicates counted once) in exactly one fabric, by a map
 * when one names it, else by the rule, or in `unassigned`. Pure and independent of input order.
 */
export function deriveFabrics(inputs: FabricInputs): DerivedFabrics {
  const clusters = [...new Set(inputs.clusters)].sort();
  const { placed, namedBy, missing } = placeByMaps(inputs.maps, new Set(clusters));
  const members = new Map<string, FabricMember[]>([...new Set(inputs.maps.map((m) => m.fabric))].map((fabric) => [fabric, []]));
  const add = (fabric: string, member: FabricMember): void => {
    const list = members.get(fabric) ?? [];
    list.push(member);
    members.set(fabric, list);
  };
  const services = new Set(inputs.services);
  const unassigned: string[] = [];
  for (const cluster of clusters) {
    const byMap = placed.get(cluster);
    const byRule = byMap === undefined ? ruleMatch(services, cluster) : undefined;
    if (byMap !== undefined) add(byMap.fabric, { cluster, service: byMap.service, ...(byMap.tier === undefined ? {} : { tier: byMap.tier }), source: 'map' });
    else if (byRule !== undefined) add(byRule.fabric, { cluster, service: byRule.service, source: 'rule' });
    else unassigned.push(cluster);
  }
  const fabrics = [...members.keys()].sort().map((name): Fabric => {
    const list = members.get(name) ?? [];
    return { name, clusters: list, services: [...new Set(list.map((m) => m.service))].sort() };
  });
  const conflicts = [...namedBy]
    .filter(([, fabricsNaming]) => fabricsNaming.length > 1)
    .sort(([a], [b]) => compare(a, b))
    .map(([cluster, fabricsNaming]): FabricMapConflict => ({ cluster, fabrics: fabricsNaming, kept: fabricsNaming[0]! }));
  return { fabrics, unassigned, conflicts, missing };
}

/** Where the maps place clusters: the first map by fabric name wins a cluster several name. */
function placeByMaps(maps: readonly FabricMap[], present: ReadonlySet<string>) {
  const placed = new Map<string, { readonly fabric: string; readonly service: string; readonly tier?: string | undefined }>();
  const namedBy = new Map<string, string[]>();
  const missing: MissingMappedCluster[] = [];
  const missingKeys = new Set<string>();
  for (const map of [...maps].sort((a, b) => compare(a.fabric, b.fabric))) {
    for (const entry of map.clusters) {
      if (!present.has(entry.cluster)) {
        const key = JSON.stringify([map.fabric, entry.cluster]);
        if (!missingKeys.has(key)) missing.push({ fabric: map.fabric, cluster: entry.cluster });
        missingKeys.add(key);
        continue;
      }
      const naming = namedBy.get(entry.cluster) ?? [];
      if (!naming.includes(map.fabric)) naming.push(map.fabric);
      namedBy.set(entry.cluster, naming);
      if (!placed.has(entry.cluster)) placed.set(entry.cluster, { fabric: map.fabric, service: entry.service, tier: entry.tier });
    }
  }
  missing.sort((a, b) => compare(a.fabric, b.fabric) || compare(a.cluster, b.cluster));
  return { placed, namedBy, missing };
}

/** Per fabrics list: cluster → its fabric and member, service → its members in every fabric. */
interface TargetIndex {
  readonly home: ReadonlyMap<string, { readonly fabric: string; readonly member: FabricMember }>;
  readonly byService: ReadonlyMap<string, readonly FabricTarget[]>;
}
const indexes = new WeakMap<readonly Fabric[], TargetIndex>();

/**
 * The candidate targets of `cluster`: the clusters of the same service in the other fabrics, sorted by
 * fabric, then cluster. Empty for a cluster in no fabric. Never the cluster itself, never its own fabric.
 */
export function targetsOf(fabrics: readonly Fabric[], cluster: string): FabricTarget[] {
  const index = indexOf(fabrics);
  const home = index.home.get(cluster);
  if (home === undefined) return [];
  return (index.byService.get(home.member.service) ?? []).filter((t) => t.fabric !== home.fabric && t.cluster !== cluster);
}

function indexOf(fabrics: readonly Fabric[]): TargetIndex {
  const known = indexes.get(fabrics);
  if (known !== undefined) return known;
  const home = new Map<string, { fabric: string; member: FabricMember }>();
  const byService = new Map<string, FabricTarget[]>();
  for (const fabric of [...fabrics].sort((a, b) => compare(a.name, b.name))) {
    for (const member of [...fabric.clusters].sort((a, b) => compare(a.cluster, b.cluster))) {
      if (!home.has(member.cluster)) home.set(member.cluster, { fabric: fabric.name, member });
      const list = byService.get(member.service) ?? [];
      list.push({ cluster: member.cluster, fabric: fabric.name, service: member.service });
      byService.set(member.service, list);
    }
  }
  const index = { home, byService };
  indexes.set(fabrics, index);
  return index;
}

/** Code-unit order (as `Array.prototype.sort`), so results do not depend on the locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
