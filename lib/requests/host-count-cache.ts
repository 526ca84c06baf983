/**
 * Eligible-host counts of clusters a judgement reads only for the load they carry or send (the other
 * failouts involved, not the request's own cluster and peers, which are read live every time), kept
 * for a short time by one writer. A burst of requests whose failouts share a receiver otherwise reads
 * every involved cluster's announcements again on every attempt; host counts move on the scale of
 * deployments and autoscaling, not of milliseconds, and the capacity guard was never serialised
 * against them anyway.
 */
export class HostCountCache {
  private readonly counts = new Map<string, { readonly hosts: number; readonly at: number }>();

  /** @param ttlMs - how long a count is used; default 2 s. */
  constructor(private readonly ttlMs: number = 2000) {}

  /** The count read within the TTL of `now`, or undefined. */
  get(cluster: string, now: number): number | undefined {
    const entry = this.counts.get(cluster);
    return entry !== undefined && now - entry.at < this.ttlMs ? entry.hosts : undefined;
  }

  /** Remembers a count read at `now` (the cache never holds more than the clusters of open failouts, bounded for safety). */
  set(cluster: string, hosts: number, now: number): void {
    if (this.counts.size >= 10_000) this.counts.clear();
    this.counts.set(cluster, { hosts, at: now });
  }
}
