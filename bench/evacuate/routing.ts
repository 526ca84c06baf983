// bench/evacuate: how a client's routing of one service is judged, from what the redirect strategy
// reads on every request (the cluster's FailoutConfig). Pure, for the client worker and its test.
import type { FailoutConfig } from '../../lib/failout';

const BUCKETS = 100;

/**
 * Whether `config` sends EVERY request of its cluster elsewhere at `now`, and only to peers outside
 * `fabric`: failed out, in all 100 buckets, with at least one peer and none in the evacuated fabric.
 */
export function evacuatedAt(config: FailoutConfig | undefined, now: number, fabric: string): boolean {
  // First what the redirect strategy asks on every request: is the cluster failed out at all.
  if (!config?.isFailedOut(now)) return false;
  const suffix = `-${fabric}`;
  if (config.peers.length === 0 || config.peers.some((p) => p.cluster.endsWith(suffix))) return false;
  // What an evacuation writes: one active window over every bucket. Looked for first, because the
  // per-bucket rule below costs 100 calls per update and the clients run 10,000 updates a round.
  const whole = config.windows.some((w) => w.buckets.from === 0 && w.buckets.to === BUCKETS - 1 && w.offlineAt <= now && (w.onlineAt === undefined || now < w.onlineAt));
  if (whole) return true;
  for (let bucket = 0; bucket < BUCKETS; bucket++) if (!config.isBucketFailedOut(bucket, now)) return false;
  return true;
}

/** Whether `config` keeps every request of its cluster at home at `now` (no window active). */
export function homeAt(config: FailoutConfig | undefined, now: number): boolean {
  return config?.isFailedOut(now) !== true;
}

/** The next window boundary (a start or an end) after `now` and within `horizonMs`, if any. */
export function nextBoundary(config: FailoutConfig | undefined, now: number, horizonMs = 60_000): number | undefined {
  let next: number | undefined;
  for (const w of config?.windows ?? []) {
    for (const t of [w.offlineAt, w.onlineAt]) if (t !== undefined && t > now && t - now <= horizonMs && (next === undefined || t < next)) next = t;
  }
  return next;
}
