/**
 * The model test's own reading of routing (issue 21, item 9), written from ARCHITECTURE "Failout
 * properties" and the contract's JSON, not from lib/requests' routing model (open-failouts.ts) it
 * checks: a bucket of a failed-out cluster X goes to X's peers that are not X, have hosts and are not
 * failed out for that bucket, by their weights; with none it stays at X. Load is in host units: each
 * cluster's hosts carry one unit each, each bucket 1 % of it.
 */

/** One bucket config, as the contract's JSON has it. */
export interface RawWindow {
  readonly from: number;
  readonly to: number;
  readonly offlineAt: number;
  readonly onlineAt: number | undefined;
  readonly requestId: string | undefined;
  readonly drill: string | undefined;
  readonly forced: readonly string[] | undefined;
}

/** A cluster's `failoutProperties`, as the contract's JSON has them. */
export interface RawFailout {
  readonly peers: readonly { readonly peer: string; readonly weight: number }[];
  readonly windows: readonly RawWindow[];
}

type Json = Record<string, unknown>;

/** The failout of a cluster document (parsed JSON); null for none. */
export function rawFailoutOf(cluster: Json): RawFailout | null {
  const props = cluster.failoutProperties as Json | null | undefined;
  if (props === null || props === undefined || Object.keys(props).length === 0) return null;
  const redirects = (props.failoutRedirectConfigs ?? []) as Json[];
  const buckets = (props.failoutBucketConfigs ?? []) as Json[];
  return {
    peers: redirects.filter((r) => typeof r.peer === 'string').map((r) => ({ peer: r.peer as string, weight: typeof r.weight === 'number' ? r.weight : 1 })),
    windows: buckets.map((b) => {
      const range = (b.bucketOfflineRange ?? { from: 0, to: 99 }) as { from: number; to: number };
      return {
        from: range.from,
        to: range.to,
        offlineAt: typeof b.offlineAt === 'number' ? b.offlineAt : 0,
        onlineAt: typeof b.onlineAt === 'number' ? b.onlineAt : undefined,
        requestId: typeof b.requestId === 'string' ? b.requestId : undefined,
        drill: typeof b.drill === 'string' ? b.drill : undefined,
        forced: Array.isArray(b.forced) ? (b.forced as string[]) : undefined,
      };
    }),
  };
}

/** The window is open at `now`. */
export function isActive(w: RawWindow, now: number): boolean {
  return w.offlineAt <= now && (w.onlineAt === undefined || now < w.onlineAt);
}

/** The window has not ended at `now` (active or scheduled). */
export function isOpen(w: RawWindow, now: number): boolean {
  return w.onlineAt === undefined || w.onlineAt > now;
}

/** Every cluster's failout and hosts: what routing depends on. */
export interface Routing {
  readonly failouts: ReadonlyMap<string, RawFailout | null>;
  readonly hosts: ReadonlyMap<string, number>;
  readonly now: number;
}

/** `cluster` is failed out for `bucket`. */
export function failedOutFor(r: Routing, cluster: string, bucket: number): boolean {
  return (r.failouts.get(cluster)?.windows ?? []).some((w) => w.from <= bucket && bucket <= w.to && isActive(w, r.now));
}

/** The peers of a failed-out cluster that may take a request of `bucket` (an eligible path). */
export function eligiblePeers(r: Routing, cluster: string, bucket: number): { peer: string; weight: number }[] {
  return (r.failouts.get(cluster)?.peers ?? []).filter((p) => p.peer !== cluster && (r.hosts.get(p.peer) ?? 0) > 0 && !failedOutFor(r, p.peer, bucket));
}

/** Where a request of `cluster` in `bucket` may go: its cluster when it stays, else the eligible peers. */
export function allowedTargets(r: Routing, cluster: string, bucket: number): string[] {
  if (!failedOutFor(r, cluster, bucket)) return [cluster];
  const eligible = eligiblePeers(r, cluster, bucket);
  return eligible.length === 0 ? [cluster] : eligible.map((p) => p.peer);
}

/** {@link allowedTargets} of every cluster and bucket at once (cluster → 100 lists): routing 1,000 keys reads it. */
export function allowedTable(r: Routing): ReadonlyMap<string, readonly (readonly string[])[]> {
  const table = new Map<string, string[][]>();
  for (const cluster of r.hosts.keys()) table.set(cluster, Array.from({ length: 100 }, (_, b) => allowedTargets(r, cluster, b)));
  return table;
}

/** Per cluster: its load factor (own traffic that stays + what it receives, over its hosts), and the buckets of its own that no peer can take. */
export interface Loads {
  readonly factor: ReadonlyMap<string, number>;
  readonly stranded: ReadonlyMap<string, readonly number[]>;
}

/** Every cluster's load at `r.now` (host-count basis). */
export function loadsOf(r: Routing): Loads {
  const units = new Map<string, number>();
  const stranded = new Map<string, number[]>();
  const add = (c: string, v: number): void => void units.set(c, (units.get(c) ?? 0) + v);
  for (const [cluster, hosts] of r.hosts) {
    const perBucket = hosts / 100;
    for (let b = 0; b < 100; b++) {
      if (!failedOutFor(r, cluster, b)) {
        add(cluster, perBucket);
        continue;
      }
      const eligible = eligiblePeers(r, cluster, b);
      if (eligible.length === 0) {
        add(cluster, perBucket);
        if (hosts > 0) stranded.set(cluster, [...(stranded.get(cluster) ?? []), b]);
        continue;
      }
      const total = eligible.reduce((s, p) => s + p.weight, 0);
      for (const p of eligible) add(p.peer, (perBucket * p.weight) / total);
    }
  }
  const factor = new Map<string, number>();
  for (const [cluster, hosts] of r.hosts) if (hosts > 0) factor.set(cluster, (units.get(cluster) ?? 0) / hosts);
  return { factor, stranded };
}

/** Compact text of a failout, for failure messages. */
export function describeFailout(f: RawFailout | null, now: number): string {
  if (f === null) return 'none';
  const windows = f.windows.map((w) => {
    const at = (t: number): string => `${Math.round((t - now) / 60_000)}m`;
    const tags = [w.drill ? `drill ${w.drill}` : '', w.forced ? `forced [${w.forced.join(',')}]` : ''].filter(Boolean).join(' ');
    return `${w.from}-${w.to} [${at(w.offlineAt)}, ${w.onlineAt === undefined ? '∞' : at(w.onlineAt)})${tags ? ` ${tags}` : ''}`;
  });
  return `→ ${f.peers.map((p) => `${p.peer}:${p.weight}`).join(' ')} ${windows.join('; ')}`;
}
