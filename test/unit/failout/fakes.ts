import type { ClusterProperties, MergedUriProperties } from '../../../lib/d2';
import type { FailoutScheduler, PeerWatchState } from '../../../lib/failout/failed-out-cluster-manager';
import { createFailoutConfig } from '../../../lib/failout/failout-config';
import type { ConnectionWarmUpHandler, FailoutConfig } from '../../../lib/failout/types';
import { clusterDoc } from '../../helpers/d2';

// Fakes for the failout unit tests: a reference-counted LoadBalancerState, a manual scheduler, a
// recording warm-up handler, and config factories.

/** A failout config of `cluster` with `peers`; `active` adds a window open since epoch 0. */
export function failoutConfig(cluster: string, peers: readonly string[], active = true): FailoutConfig {
  const config = createFailoutConfig(cluster, {
    redirects: peers.map((peer) => ({ peer })),
    ignoredRedirectEntries: 0,
    buckets: active ? [{ partition: 'main' }] : [],
  });
  if (!config) throw new Error('expected a config');
  return config;
}

/** A config with one window from `offlineAt` to `onlineAt` (epoch ms). */
export function scheduledConfig(cluster: string, peers: readonly string[], offlineAt: number, onlineAt: number): FailoutConfig {
  const config = createFailoutConfig(cluster, {
    redirects: peers.map((peer) => ({ peer })),
    ignoredRedirectEntries: 0,
    buckets: [{ partition: 'main', offlineAt, onlineAt }],
  });
  if (!config) throw new Error('expected a config');
  return config;
}

/** A settable promise. */
export interface Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(err: Error): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets queued promise continuations run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/**
 * The LoadBalancerState methods the manager uses, with LoadBalancerState's reference-counted holds.
 * Clusters in `existing` exist with `hosts` hosts; loads resolve at once unless `manualLoads` is set.
 */
export class FakeState implements PeerWatchState {
  readonly calls: string[] = [];
  readonly holds = new Map<string, number>();
  readonly existing = new Map<string, number>();
  readonly pendingLoads = new Map<string, Deferred>();
  manualLoads = false;

  /** Makes `cluster` exist with `hosts` hosts. */
  addCluster(cluster: string, hosts = 1): this {
    this.existing.set(cluster, hosts);
    return this;
  }

  listenToCluster(cluster: string): Promise<void> {
    this.calls.push(`listen:${cluster}`);
    this.holds.set(cluster, (this.holds.get(cluster) ?? 0) + 1);
    if (!this.manualLoads) return Promise.resolve();
    const load = deferred();
    this.pendingLoads.set(cluster, load);
    return load.promise;
  }

  stopListenToCluster(cluster: string): void {
    this.calls.push(`stop:${cluster}`);
    const holds = (this.holds.get(cluster) ?? 0) - 1;
    if (holds > 0) this.holds.set(cluster, holds);
    else this.holds.delete(cluster);
  }

  isListeningToCluster(cluster: string): boolean {
    return this.holds.has(cluster);
  }

  getClusterProperties(cluster: string): ClusterProperties | undefined {
    return this.snapshot(cluster)?.properties;
  }

  getUris(cluster: string): MergedUriProperties | undefined {
    return this.snapshot(cluster)?.uris;
  }

  /** Bans `uris` in `cluster`'s properties (a new properties snapshot, as a write of the cluster gives). */
  ban(cluster: string, uris: readonly string[]): void {
    this.banned.set(cluster, [...uris]);
  }

  /** Host URIs of `cluster` as `getUris` lists them. */
  hostUris(cluster: string): string[] {
    return (this.getUris(cluster)?.hosts ?? []).map((h) => h.uri);
  }

  private readonly banned = new Map<string, readonly string[]>();
  private readonly snapshots = new Map<string, { hosts: number; banned: readonly string[] | undefined; properties: ClusterProperties; uris: MergedUriProperties }>();

  /**
   * As LoadBalancerState: the same objects until the cluster changes, then new ones (never mutated),
   * so a reader may tell a change by identity.
   */
  private snapshot(cluster: string): { properties: ClusterProperties; uris: MergedUriProperties } | undefined {
    const hosts = this.existing.get(cluster);
    if (hosts === undefined) return undefined;
    const banned = this.banned.get(cluster);
    const known = this.snapshots.get(cluster);
    if (known && known.hosts === hosts && known.banned === banned) return known;
    const properties = { ...clusterDoc(cluster), bannedUris: [...(banned ?? [])] };
    const uris: MergedUriProperties = {
      clusterName: cluster,
      partitionDesc: {},
      uriSpecificProperties: {},
      hosts: Array.from({ length: hosts }, (_, i) => ({ uri: `http://${cluster}-${i}:80`, weight: 1, partitions: { 0: 1 }, properties: {} })),
    };
    const next = { hosts, banned, properties, uris };
    this.snapshots.set(cluster, next);
    return next;
  }
}

/** Timers that run only when the test says so. */
export class ManualScheduler implements FailoutScheduler {
  private next = 1;
  readonly timers = new Map<number, { callback: () => void; delayMs: number }>();
  /** Every delay ever scheduled, in order. */
  readonly scheduled: number[] = [];

  setTimeout(callback: () => void, delayMs: number): unknown {
    const id = this.next++;
    this.timers.set(id, { callback, delayMs });
    this.scheduled.push(delayMs);
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Runs the timers pending now (not those they schedule). */
  runAll(): void {
    const due = [...this.timers];
    this.timers.clear();
    for (const [, timer] of due) timer.callback();
  }

  pending(): number[] {
    return [...this.timers.values()].map((t) => t.delayMs);
  }
}

/** A warm-up handler that records calls; warm-ups resolve at once unless `manual` is set. */
export class RecordingWarmUpHandler implements ConnectionWarmUpHandler {
  readonly calls: string[] = [];
  readonly configs: (FailoutConfig | undefined)[] = [];
  /** The `hosts` of each warm-up call, in order. */
  readonly hosts: (readonly string[] | undefined)[] = [];
  readonly pending = new Map<string, Deferred>();
  manual = false;

  warmUpConnections(peer: string, config: FailoutConfig | undefined, hosts?: readonly string[]): Promise<void> {
    this.calls.push(`warm:${peer}`);
    this.configs.push(config);
    this.hosts.push(hosts);
    if (!this.manual) return Promise.resolve();
    const d = deferred();
    this.pending.set(peer, d);
    return d.promise;
  }

  cancelPendingRequests(peer: string): void {
    this.calls.push(`cancel:${peer}`);
  }

  close(): void {
    this.calls.push('close');
  }

  count(call: string): number {
    return this.calls.filter((c) => c === call).length;
  }
}
