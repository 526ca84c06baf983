import type { FailoutProperties } from '../../../lib/d2';
import { createFailoutConfig } from '../../../lib/failout/failout-config';
import type { FailoutClusterView, FailoutConfig } from '../../../lib/failout/types';

/** A bucket window as tests write it; everything optional. */
export interface WindowSpec {
  from?: number;
  to?: number;
  offlineAt?: number;
  onlineAt?: number;
}

/** Typed `failoutProperties` with the given peers (`name` or `[name, weight]`) and windows. */
export function failoutProps(peers: (string | [string, number])[], windows: WindowSpec[] = [{}]): FailoutProperties {
  return {
    redirects: peers.map((p) => (typeof p === 'string' ? { peer: p } : { peer: p[0], weight: p[1] })),
    ignoredRedirectEntries: 0,
    buckets: windows.map((w) => ({
      partition: 'main',
      ...(w.from !== undefined || w.to !== undefined ? { bucketOfflineRange: { from: w.from ?? 0, to: w.to ?? 99 } } : {}),
      ...(w.offlineAt !== undefined ? { offlineAt: w.offlineAt } : {}),
      ...(w.onlineAt !== undefined ? { onlineAt: w.onlineAt } : {}),
    })),
  };
}

/** A runtime config built from {@link failoutProps}. */
export function configOf(cluster: string, peers: (string | [string, number])[], windows: WindowSpec[] = [{}]): FailoutConfig {
  const config = createFailoutConfig(cluster, failoutProps(peers, windows));
  if (!config) throw new Error('expected a config');
  return config;
}

/** A view over fixed configs and host counts (clusters not listed have 0 hosts and no config). */
export function viewOf(configs: FailoutConfig[], hosts: Record<string, number>): FailoutClusterView & { configs: Map<string, FailoutConfig>; hosts: Record<string, number> } {
  const map = new Map(configs.map((c) => [c.cluster, c]));
  return {
    configs: map,
    hosts,
    getFailoutConfig: (cluster) => map.get(cluster),
    getHostCount: (cluster) => hosts[cluster] ?? 0,
  };
}

/** A deterministic generator in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A cluster's sendable hosts by scheme (`{ http: 2, https: 1 }`). */
export type HostsByScheme = Partial<Record<string, number>>;

/** A {@link FailoutClusterView} that records what it is asked, with a settable `version`. */
export interface RecordingView extends FailoutClusterView {
  /** Undefined: the view has no version, so a strategy must keep nothing. */
  version: number | undefined;
  readonly configs: Map<string, FailoutConfig>;
  readonly hosts: Record<string, HostsByScheme>;
  /** `getHostCount` calls, as `cluster|scheme,scheme` (`cluster|` without schemes). */
  readonly hostCountCalls: string[];
}

/**
 * A view over fixed configs and per-scheme host counts that counts by the host pick's scheme rule: the
 * first of `schemes` with any host (case-insensitive), or all schemes together without any.
 */
export function recordingViewOf(configs: FailoutConfig[], hosts: Record<string, HostsByScheme>, version: number | undefined): RecordingView {
  const map = new Map(configs.map((c) => [c.cluster, c]));
  const hostCountCalls: string[] = [];
  return {
    version,
    configs: map,
    hosts,
    hostCountCalls,
    getFailoutConfig: (cluster) => map.get(cluster),
    getHostCount: (cluster, schemes = []) => {
      hostCountCalls.push(`${cluster}|${schemes.join(',')}`);
      const byScheme = hosts[cluster] ?? {};
      if (schemes.length === 0) return Object.values(byScheme).reduce<number>((sum, n) => sum + (n ?? 0), 0);
      for (const scheme of schemes) {
        const n = byScheme[scheme.toLowerCase()] ?? 0;
        if (n > 0) return n;
      }
      return 0;
    },
  };
}
