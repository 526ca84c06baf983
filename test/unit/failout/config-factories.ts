import type { FailoutPropertiesJson } from '../../../lib/d2';
import { parseFailoutConfig } from '../../../lib/failout/failout-config';
import type { FailoutClusterView, FailoutConfig } from '../../../lib/failout/types';

/** A bucket window as tests write it; everything optional. */
export interface WindowSpec {
  from?: number;
  to?: number;
  offlineAt?: number;
  onlineAt?: number;
}

/** Raw `failoutProperties` with the given peers (`name` or `[name, weight]`) and windows. */
export function failoutJson(peers: (string | [string, number])[], windows: WindowSpec[] = [{}]): FailoutPropertiesJson {
  return {
    failoutRedirectConfigs: peers.map((p) => (typeof p === 'string' ? { peer: p } : { peer: p[0], weight: p[1] })),
    failoutBucketConfigs: windows.map((w) => ({
      partition: 'main',
      ...(w.from !== undefined || w.to !== undefined ? { bucketOfflineRange: { from: w.from ?? 0, to: w.to ?? 99 } } : {}),
      ...(w.offlineAt !== undefined ? { offlineAt: w.offlineAt } : {}),
      ...(w.onlineAt !== undefined ? { onlineAt: w.onlineAt } : {}),
    })),
  };
}

/** A parsed config (throws when the factory input is malformed). */
export function configOf(cluster: string, peers: (string | [string, number])[], windows: WindowSpec[] = [{}]): FailoutConfig {
  const config = parseFailoutConfig(cluster, failoutJson(peers, windows));
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
