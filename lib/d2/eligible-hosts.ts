import { MAX_HOST_WEIGHT, type ClusterProperties, type MergedUriProperties, type UriHost } from './model';

// Which announced hosts a D2 client sends to: one rule for the host pick, warm-up, and the failout
// strategy's "does this peer have hosts for this service" (so the three cannot disagree).

/** A host requests can be sent to, with what the pick and the pools need of its URI. */
export interface Host {
  /** The announced URI, e.g. `http://10.0.0.7:8080/base`. */
  readonly uri: string;
  /** `scheme://host:port`: the pool it goes through. */
  readonly origin: string;
  /** Length of `scheme://authority` in `uri`: what precedes the wire path in a rewritten URL. */
  readonly prefixLength: number;
}

/** A host that may take a request, with its weight (as `WeightedRoundRobin` takes candidates). */
export interface WeightedHost {
  /** The host. */
  readonly item: Host;
  /** Its announced weight, above zero. */
  readonly weight: number;
}

const AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/[^/?#]*/;
const SENDABLE: ReadonlySet<string> = new Set(['http', 'https']);

/**
 * The hosts of a cluster that may take a request, with their weights: announced with weight above
 * zero (partition 0, else the lowest; with `partition`, that partition's weight, and a host that does
 * not serve it is left out), not in the cluster's `bannedUris`, with an http or https URI; of those,
 * the first of `schemes` (a service's `prioritizedSchemes`, in order) that has any, or all of them
 * when `schemes` is empty. Empty for an unknown cluster.
 */
export function eligibleHosts(
  uris: MergedUriProperties | undefined,
  cluster: ClusterProperties | undefined,
  schemes: readonly string[],
  partition?: number,
): WeightedHost[] {
  if (!uris) return [];
  const banned = new Set(cluster?.bannedUris ?? []);
  const byScheme = new Map<string, WeightedHost[]>();
  for (const host of uris.hosts) {
    const match = AUTHORITY.exec(host.uri);
    const scheme = match?.[1]?.toLowerCase();
    const weight = partition === undefined ? host.weight : partitionWeight(host, partition);
    if (!match || !scheme || !SENDABLE.has(scheme) || !(weight > 0) || banned.has(host.uri)) continue;
    let origin: string;
    try {
      origin = new URL(host.uri).origin;
    } catch {
      continue;
    }
    const list = byScheme.get(scheme) ?? [];
    list.push({ item: { uri: host.uri, origin, prefixLength: match[0].length }, weight });
    byScheme.set(scheme, list);
  }
  if (schemes.length === 0) return [...byScheme.values()].flat();
  for (const scheme of schemes) {
    const list = byScheme.get(scheme.toLowerCase());
    if (list && list.length > 0) return list;
  }
  return [];
}

/** The host's weight in `partition` (0 when it does not serve it), bounded as `UriHost.weight` is. */
function partitionWeight(host: UriHost, partition: number): number {
  const weight = Object.hasOwn(host.partitions, partition) ? host.partitions[partition] : undefined;
  return weight === undefined || !(weight > 0) ? 0 : Math.min(weight, MAX_HOST_WEIGHT);
}
