import { BUCKETS, parseFailoutConfig } from '../failout';
import type { FailoutPropertiesJson } from '../d2';

/**
 * What `failout status` says about one cluster:
 * - `failed-out`: a window is active now;
 * - `scheduled`: a window starts later, none is active;
 * - `ended`: windows exist but all have ended (scheduled ends need no write, so this is normal);
 * - `serving`: no failout at all;
 * - `malformed`: the stored failout properties do not parse (clients ignore them and keep the last good state).
 */
export type ClusterFailoutState = 'failed-out' | 'scheduled' | 'ended' | 'serving' | 'malformed';

/** One offline window, with times as ISO strings for display and JSON. */
export interface WindowStatus {
  readonly offlineAt: string;
  readonly onlineAt: string | null;
  readonly active: boolean;
  readonly buckets: { readonly from: number; readonly to: number };
  /** Percentage of traffic the range moves (buckets / 100). */
  readonly sharePct: number;
  readonly requestId: string | null;
  readonly requestedBy: string | null;
  readonly reason: string | null;
}

/** The status of one cluster. */
export interface ClusterStatus {
  readonly cluster: string;
  readonly state: ClusterFailoutState;
  readonly peers: readonly { readonly cluster: string; readonly weight: number }[];
  readonly windows: readonly WindowStatus[];
  /** For `malformed`: what is wrong. */
  readonly problem?: string;
}

/**
 * Describes a cluster from the text of its `/d2/clusters/<cluster>` node at time `now`. Only
 * `failoutProperties` is read; missing, `null` or `{}` means no failout (architecture contract).
 */
export function describeCluster(cluster: string, nodeText: string, now: number): ClusterStatus {
  let raw: unknown;
  try {
    raw = (JSON.parse(nodeText) as { failoutProperties?: unknown } | null)?.failoutProperties;
  } catch (err) {
    return { cluster, state: 'malformed', peers: [], windows: [], problem: `cluster node is not JSON: ${(err as Error).message}` };
  }
  if (raw === undefined || raw === null || (typeof raw === 'object' && Object.keys(raw).length === 0)) {
    return { cluster, state: 'serving', peers: [], windows: [] };
  }
  let config;
  try {
    config = parseFailoutConfig(cluster, raw as FailoutPropertiesJson);
  } catch (err) {
    return { cluster, state: 'malformed', peers: [], windows: [], problem: (err as Error).message };
  }
  if (!config) return { cluster, state: 'serving', peers: [], windows: [] };
  const windows = config.windows.map((w): WindowStatus => ({
    offlineAt: new Date(w.offlineAt).toISOString(),
    onlineAt: w.onlineAt === undefined ? null : new Date(w.onlineAt).toISOString(),
    active: w.offlineAt <= now && (w.onlineAt === undefined || now < w.onlineAt),
    buckets: { from: w.buckets.from, to: w.buckets.to },
    sharePct: Math.round(((w.buckets.to - w.buckets.from + 1) / BUCKETS) * 100),
    requestId: w.requestId ?? null,
    requestedBy: w.requestedBy ?? null,
    reason: w.reason ?? null,
  }));
  const state: ClusterFailoutState = windows.some((w) => w.active)
    ? 'failed-out'
    : config.windows.some((w) => w.offlineAt > now)
      ? 'scheduled'
      : windows.length > 0
        ? 'ended'
        : 'serving';
  return { cluster, state, peers: config.peers.map((p) => ({ cluster: p.cluster, weight: p.weight })), windows };
}
