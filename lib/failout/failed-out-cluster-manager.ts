import { eligibleHosts, type ClusterProperties, type LoadBalancerState, type MergedUriProperties } from '../d2';
import { createLogger, type Logger } from '../logging';
import type { ConnectionWarmUpHandler, FailoutConfig } from './types';
import type { Lifecycle } from '../lifecycle';

/**
 * Timers the failout module schedules (peer teardown, window boundaries, warm-up jitter). Injectable so
 * that tests run them deterministically; the default is the global setTimeout/clearTimeout with
 * `unref`, so a pending teardown never keeps a process alive.
 */
export interface FailoutScheduler {
  /** Runs `callback` once after `delayMs` ms; returns a handle for {@link FailoutScheduler.clearTimeout}. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a callback not yet run, given the handle `setTimeout` returned. */
  clearTimeout(handle: unknown): void;
}

/** The global timers, unref'd. */
export const systemScheduler: FailoutScheduler = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Where one peer watch of a {@link FailedoutClusterManager} stands:
 * - `listening`: the manager took a hold (`listenToCluster`); the peer's cluster and URIs are loading.
 * - `warming`: loaded, the warm-up handler is opening connections.
 * - `warm`: loaded and warmed up (or no handler configured). A host announced later (a redeploy's new
 *   hosts) is warmed up when it arrives; a host already warmed is not warmed again while it stays
 *   announced (a weight change warms nothing).
 * - `missing`: loaded, but the peer cluster does not exist or has no hosts: not warmed up (rest.li
 *   counts it as established and warms nothing). Re-checked by {@link FailedoutClusterManager.peerChanged}
 *   whenever the peer's properties or hosts change, and warmed up once it has hosts. A `warm` peer
 *   that loses its last host or its node is `missing` too, and `warm` again when hosts return (the
 *   ones not warmed yet are warmed up).
 * - `failed`: `listenToCluster` rejected (bad name, state closed): no hold is held.
 * - `tearingDown`: dropped from the config; the hold is released when the teardown delay ends.
 */
export type PeerWatchStatus = 'listening' | 'warming' | 'warm' | 'missing' | 'failed' | 'tearingDown';

/** The LoadBalancerState methods the manager uses (a fake in unit tests). */
export type PeerWatchState = Pick<
  LoadBalancerState,
  'listenToCluster' | 'stopListenToCluster' | 'isListeningToCluster' | 'getClusterProperties' | 'getUris'
>;

/** Options for {@link FailedoutClusterManager}. */
export interface FailedoutClusterManagerOptions {
  /** The cluster whose failout this manager follows. */
  readonly cluster: string;
  /** Where peer holds are taken and peer clusters and URIs read (shared; the manager never closes it). */
  readonly state: PeerWatchState;
  /** Opens connections to new peers; none: peers are watched but not warmed. Owned: closed with the manager. */
  readonly warmUpHandler?: ConnectionWarmUpHandler | undefined;
  /** How long a dropped peer stays watched so in-flight requests can finish. Default 60 s; 0 releases at once. */
  readonly peerWatchTeardownDelayMs?: number;
  /**
   * Peers of a window that starts within this many ms are watched and warmed before it starts, so
   * connections are open when traffic moves. Default 30 s; 0 waits for the window itself.
   */
  readonly peerWarmUpLeadMs?: number;
  /**
   * A peer of a scheduled window warmed up earlier than this many ms before the window starts is
   * warmed up again at this time before the start: an idle keep-alive connection lives only a few
   * seconds (Node's server closes it after 5 s, and undici 2 s before the server's hint), so the
   * connections opened `peerWarmUpLeadMs` ahead would be gone when the traffic arrives. Likewise a
   * peer re-added before its teardown, dropped at least this long ago, is warmed up again. Default
   * 2 s; 0 warms only once.
   */
  readonly peerWarmUpAheadMs?: number;
  /** Timers for peer teardowns and window boundaries. Default `systemScheduler` (the real clock). */
  readonly scheduler?: FailoutScheduler;
  /** Clock for window boundaries. Default `Date.now`. */
  readonly now?: () => number;
  /** Called once the config is undefined and the last peer hold is released (the provider drops the manager). */
  readonly onIdle?: () => void;
  /** Called when the manager starts watching a peer (the provider indexes peer → managers by it). */
  readonly onPeerWatched?: (peer: string) => void;
  /** Called when the manager forgets a peer watch (after its teardown, or at close). */
  readonly onPeerReleased?: (peer: string) => void;
  /** Default a `failout-manager` logger from `createLogger`. */
  readonly logger?: Logger;
}

/** One peer watch. `attempt` tells a stale load or warm-up continuation from the current one. */
interface PeerWatch {
  status: PeerWatchStatus;
  /** The manager holds one `listenToCluster` hold on the peer (false only when listening failed). */
  readonly held: boolean;
  readonly loaded: Promise<void>;
  attempt: number;
  /** While `tearingDown`: the status to go back to when the peer is re-added. */
  resume: PeerWatchStatus;
  /** While `tearingDown`: the batch it was dropped in; the teardown timer armed for that batch releases it. */
  teardownBatch: number;
  /** The config the peer was (re-)added with: what the warm-up is given (rest.li passes it too). */
  config: FailoutConfig;
  /** When its last warm-up was started (epoch ms, the manager's clock); -Infinity: never. */
  warmedAt: number;
  /** When it was dropped from the config (epoch ms, the manager's clock): its traffic stopped then. */
  droppedAt: number;
  /**
   * Announced URIs of the hosts warmed up while watched and announced since (a host that leaves is
   * forgotten: if it comes back it is a new process, whose connections are gone).
   */
  readonly warmedHosts: Set<string>;
  /**
   * The peer's eligible host URIs and the snapshots they were computed from: the state replaces its
   * properties and URIs objects on every change (never mutates them), so while both are the same
   * objects the list is too. Every client re-checks every peer of every cluster an evacuation or
   * restore writes; this spares each of them parsing the peer's host URIs again.
   */
  hosts: HostList | undefined;
}

/** A peer's eligible host URIs, with the state's snapshots they were computed from. */
interface HostList {
  readonly properties: ClusterProperties;
  readonly uris: MergedUriProperties | undefined;
  readonly list: readonly string[];
}

/** Warm-ups open connections to hosts of any sendable scheme. */
const NO_SCHEMES: readonly string[] = Object.freeze([]);

/** setTimeout's ceiling; a later boundary is re-evaluated when this runs out. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Keeps the peer clusters of one failed-out cluster watched and warm (rest.li `FailedoutClusterManager`).
 *
 * - {@link updateFailoutConfig} stores the config first (readers see it at once), then: no config or
 *   no failout active (or starting within `peerWarmUpLeadMs`) → drop every peer; otherwise diff the
 *   peer set. A new peer gets one `listenToCluster` hold and, once its cluster and URIs are loaded,
 *   one warm-up — only when the peer exists and has hosts. A dropped peer's pending warm-ups are
 *   cancelled and its hold is released after `peerWatchTeardownDelayMs`.
 * - Holds are reference-counted by LoadBalancerState, so the manager releases exactly the holds it
 *   took: a watch someone else had before the failout survives the release (rest.li instead skips the
 *   unregister, "watch exists before failout"), and a hold still loading is released just the same
 *   (rest.li skips "not established" watches to dodge a race its subscriber has; holds have none).
 * - Fixes over rest.li: a peer re-added before its teardown runs keeps its watch and the pending
 *   teardown is cancelled (rest.li's stale timer removed the new watch), and is warmed up again
 *   when it was dropped `peerWarmUpAheadMs` ago or more (its idle connections may be gone; a re-add
 *   within that time warms nothing, rest.li warms on every add); {@link close} releases every
 *   hold, clears every timer and closes the warm-up handler; a window that starts or ends later
 *   re-evaluates the peers at that time, with no further write; peers of a scheduled window are
 *   watched and warmed `peerWarmUpLeadMs` ahead and warmed again `peerWarmUpAheadMs` before the start,
 *   when the connections of the first warm-up have idled out.
 *
 * Concurrency: event loop only; continuations check the watch's identity and `attempt` before acting.
 */
export class FailedoutClusterManager {
  /** The cluster whose failout this manager follows. */
  readonly cluster: string;
  private readonly state: PeerWatchState;
  private readonly handler: ConnectionWarmUpHandler | undefined;
  private readonly teardownDelayMs: number;
  private readonly leadMs: number;
  private readonly aheadMs: number;
  private readonly scheduler: FailoutScheduler;
  private readonly now: () => number;
  private readonly onIdle: (() => void) | undefined;
  private readonly onPeerWatched: ((peer: string) => void) | undefined;
  private readonly onPeerReleased: ((peer: string) => void) | undefined;
  private readonly log: Logger;
  private readonly peers = new Map<string, PeerWatch>();
  private config: FailoutConfig | undefined;
  /** The config every peer of which was found watched and loaded (the routing fast path); reset when a watch starts. */
  private loadedFor: FailoutConfig | undefined;
  private boundaryTimer: unknown;
  /**
   * One timer releases the peers dropped before it was armed, rather than a timer per peer: a restore
   * drops every peer of every cluster it writes in every client, and the next failout usually takes
   * them back before the delay ends. Peers dropped while it runs wait for the next one.
   */
  private teardownTimer: unknown;
  /** The batch the next dropped peer joins; a teardown timer releases its batch and those before. */
  private teardownBatch = 0;
  /** Peers `tearingDown` (waiting for a teardown timer). */
  private teardownsPending = 0;
  /** When the boundary timer is due (epoch ms); meaningful while `boundaryTimer` is set. */
  private boundaryAt = 0;
  private lifecycle: Lifecycle = 'running';

  constructor(options: FailedoutClusterManagerOptions) {
    this.cluster = options.cluster;
    this.state = options.state;
    this.handler = options.warmUpHandler;
    this.teardownDelayMs = Math.max(0, options.peerWatchTeardownDelayMs ?? 60_000);
    this.leadMs = Math.max(0, options.peerWarmUpLeadMs ?? 30_000);
    this.aheadMs = Math.max(0, options.peerWarmUpAheadMs ?? 2_000);
    this.scheduler = options.scheduler ?? systemScheduler;
    this.now = options.now ?? Date.now;
    this.onIdle = options.onIdle;
    this.onPeerWatched = options.onPeerWatched;
    this.onPeerReleased = options.onPeerReleased;
    this.log = options.logger ?? createLogger('failout-manager');
  }

  /** The config last given (active or not), or undefined. */
  getFailoutConfig(): FailoutConfig | undefined {
    return this.config;
  }

  /** Each peer watch's status (a copy, for tests and metrics). */
  peerStates(): Map<string, PeerWatchStatus> {
    return new Map([...this.peers].map(([peer, watch]) => [peer, watch.status]));
  }

  /**
   * Takes a new config (undefined: the cluster has no failout properties any more). Stored before
   * anything else; ignored after {@link close}.
   */
  updateFailoutConfig(config: FailoutConfig | undefined): void {
    if (this.lifecycle === 'closed') return;
    this.config = config;
    this.evaluate();
  }

  /**
   * A watched peer's properties or hosts changed (the provider calls this only for this manager's
   * peers). A peer that was `missing` is re-checked and warmed up if it now exists with hosts; a
   * `warm` peer's hosts not warmed yet (announced since) are warmed up.
   */
  peerChanged(peer: string): void {
    const watch = this.peers.get(peer);
    if (watch?.status === 'missing') this.afterLoad(peer, watch, watch.attempt);
    else if (watch?.status === 'warm') this.warmNewHosts(peer, watch);
  }

  /**
   * While the failout is active and some peer is still loading: resolves when every such peer has
   * loaded (so a decision made then sees the peers' hosts, as rest.li's rewritten URI makes D2 wait).
   * Undefined when nothing is loading. A window that has just started is evaluated first, so its
   * peers are being watched before anyone decides on them.
   */
  whenPeersLoaded(): Promise<void> | undefined {
    const config = this.config;
    // Called on every redirected request: one comparison once the peers have loaded.
    if (config === this.loadedFor || this.lifecycle !== 'running' || config === undefined) return undefined;
    if (this.hasUnwatchedPeer(config) && config.isFailedOut(this.now())) {
      // The boundary timer has not fired yet (timers run late): start the peer watches now.
      this.evaluate();
    }
    let pending: Promise<void>[] | undefined;
    for (const watch of this.peers.values()) if (watch.status === 'listening') (pending ??= []).push(watch.loaded);
    if (pending === undefined) {
      if (!this.hasUnwatchedPeer(config)) this.loadedFor = config;
      return undefined;
    }
    return Promise.all(pending).then(
      () => undefined,
      () => undefined,
    );
  }

  private hasUnwatchedPeer(config: FailoutConfig): boolean {
    for (const peer of config.getPeerClusters()) if (peer !== this.cluster && !this.peers.has(peer)) return true;
    return false;
  }

  /** Releases every hold now, clears every timer and closes the warm-up handler. Idempotent. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.clearBoundaryTimer();
    this.clearTeardownTimer();
    for (const [peer, watch] of [...this.peers]) {
      if (watch.status !== 'tearingDown') this.handler?.cancelPendingRequests(peer);
      this.release(peer, watch);
    }
    this.handler?.close();
  }

  /** Applies the stored config at the current time, and schedules the next window boundary. */
  private evaluate(): void {
    this.loadedFor = undefined;
    const config = this.config;
    const now = this.now();
    if (config === undefined || !this.activeOrImminent(config, now)) {
      this.removeAll();
    } else {
      // Runs for every write of the cluster in every client: no copies unless a peer must go.
      const wanted = config.getPeerClusters();
      let stale: string[] | undefined;
      for (const peer of this.peers.keys()) if (peer === this.cluster || !wanted.has(peer)) (stale ??= []).push(peer);
      if (stale !== undefined) for (const peer of stale) this.removePeer(peer);
      for (const peer of wanted) if (peer !== this.cluster) this.addPeer(peer, config);
      this.rewarmBeforeStart(config, now);
    }
    if (config !== undefined) this.scheduleNextBoundary(config, now);
    // After every peer this evaluation drops: one timer for all of them.
    if (this.teardownsPending > 0 && this.teardownTimer === undefined) this.armTeardown(this.teardownDelayMs);
    this.checkIdle();
  }

  /** Failed out now, or a window starts within the warm-up lead (its peers get ready first). */
  private activeOrImminent(config: FailoutConfig, now: number): boolean {
    if (config.isFailedOut(now)) return true;
    for (const w of config.windows) if (w.offlineAt > now && w.offlineAt - this.leadMs <= now && (w.onlineAt === undefined || w.onlineAt > now)) return true;
    return false;
  }

  /**
   * Shortly before a scheduled window starts (`peerWarmUpAheadMs`), warms up again the peers warmed
   * earlier than that (at the lead), whose idle connections have closed meanwhile, so the first
   * redirected requests find connections open. Once the window has started, traffic opens its own.
   */
  private rewarmBeforeStart(config: FailoutConfig, now: number): void {
    if (this.handler === undefined || this.aheadMs === 0 || config.isFailedOut(now)) return;
    const start = nextStart(config, now);
    if (start === undefined || start - this.aheadMs > now) return;
    for (const [peer, watch] of this.peers) {
      if (watch.status !== 'warm' || watch.warmedAt >= start - this.aheadMs) continue;
      const hosts = this.hostUris(peer, watch);
      if (hosts.length > 0) this.warm(peer, watch, hosts);
    }
  }

  /**
   * Re-evaluates at the next time the answer of {@link activeOrImminent} can change. A timer already
   * due in the future and no later than that is kept: firing early only re-evaluates (and schedules
   * again), so a write that moves the boundary later, or removes it, costs no timer churn. Every client
   * evaluates on every write of a failed-out cluster, an evacuation's hundreds at once.
   */
  private scheduleNextBoundary(config: FailoutConfig, now: number): void {
    let next = Infinity;
    for (const w of config.windows) {
      const { offlineAt, onlineAt } = w;
      if (offlineAt - this.leadMs > now && offlineAt - this.leadMs < next) next = offlineAt - this.leadMs;
      if (offlineAt > now && offlineAt < next) next = offlineAt;
      // The re-warm-up shortly before the start (rewarmBeforeStart).
      if (this.aheadMs > 0 && offlineAt - this.aheadMs > now && offlineAt - this.aheadMs < next) next = offlineAt - this.aheadMs;
      if (onlineAt !== undefined && onlineAt > now && onlineAt < next) next = onlineAt;
    }
    if (!Number.isFinite(next)) return;
    if (this.boundaryTimer !== undefined && this.boundaryAt > now && this.boundaryAt <= next) return;
    this.clearBoundaryTimer();
    const delayMs = Math.min(MAX_TIMER_MS, next - now);
    this.boundaryAt = now + delayMs;
    this.boundaryTimer = this.scheduler.setTimeout(() => {
      this.boundaryTimer = undefined;
      if (this.lifecycle === 'running') this.evaluate();
    }, delayMs);
  }

  private clearBoundaryTimer(): void {
    if (this.boundaryTimer === undefined) return;
    this.scheduler.clearTimeout(this.boundaryTimer);
    this.boundaryTimer = undefined;
  }

  private addPeer(peer: string, config: FailoutConfig): void {
    const existing = this.peers.get(peer);
    if (existing) {
      if (existing.status === 'tearingDown') this.resume(peer, existing, config);
      return;
    }
    const loaded = this.state.listenToCluster(peer);
    // listenToCluster takes its hold synchronously, or throws (inside the promise) without one: a
    // bad name cannot be held by anyone, and a closed state holds nothing.
    const held = this.state.isListeningToCluster(peer);
    const watch: PeerWatch = {
      status: 'listening',
      held,
      loaded,
      attempt: 0,
      resume: 'listening',
      teardownBatch: 0,
      config,
      warmedAt: -Infinity,
      droppedAt: -Infinity,
      warmedHosts: new Set(),
      hosts: undefined,
    };
    this.peers.set(peer, watch);
    this.onPeerWatched?.(peer);
    this.whenLoaded(peer, watch);
  }

  /**
   * A peer re-added before its teardown ran: keep the hold, cancel the teardown, pick up where it was.
   * Its connections have been idle since it was dropped: once that is `peerWarmUpAheadMs` ago they
   * may have closed (an idle keep-alive connection lives a few seconds), so its hosts are warmed up
   * again, as rest.li warms up every peer it adds.
   */
  private resume(peer: string, watch: PeerWatch, config: FailoutConfig): void {
    this.teardownsPending--;
    if (this.teardownsPending === 0) this.clearTeardownTimer();
    watch.config = config;
    this.loadedFor = undefined;
    if (this.aheadMs > 0 && this.now() - watch.droppedAt >= this.aheadMs) watch.warmedHosts.clear();
    // Its warm-up was cancelled when it was dropped (its hosts are not warmed): start again from
    // "loading" (the load may be done).
    watch.status = watch.resume === 'warming' ? 'listening' : watch.resume;
    if (watch.status === 'listening') this.whenLoaded(peer, watch);
    // Its hosts may have come or gone while it was being torn down (changes are not acted on then).
    else this.peerChanged(peer);
  }

  private whenLoaded(peer: string, watch: PeerWatch): void {
    const attempt = ++watch.attempt;
    watch.loaded.then(
      () => this.afterLoad(peer, watch, attempt),
      (err: unknown) => {
        if (this.peers.get(peer) !== watch || watch.attempt !== attempt) return;
        this.log.warn({ err, cluster: this.cluster, peer }, 'cannot watch failout peer');
        watch.status = 'failed';
      },
    );
  }

  /** The peer's data is loaded: if it exists and has hosts, warm up those not warmed yet. */
  private afterLoad(peer: string, watch: PeerWatch, attempt: number): void {
    if (this.peers.get(peer) !== watch || watch.attempt !== attempt) return;
    if (watch.status !== 'listening' && watch.status !== 'missing') return;
    this.warmNewHosts(peer, watch);
  }

  /**
   * The peer is loaded and not warming: `missing` without hosts; otherwise its hosts not warmed yet
   * are warmed up (the first hosts, or those a redeploy announced), and it is `warm` when there are none.
   */
  private warmNewHosts(peer: string, watch: PeerWatch): void {
    const hosts = this.hostUris(peer, watch);
    if (hosts.length === 0) {
      // A peer that lost its last host (or its node) cannot take traffic: say so, as for one that never had any.
      watch.status = 'missing';
      watch.warmedHosts.clear();
      return;
    }
    if (watch.warmedHosts.size > 0) {
      const announced = new Set(hosts);
      for (const host of watch.warmedHosts) if (!announced.has(host)) watch.warmedHosts.delete(host);
    }
    const fresh = this.handler ? hosts.filter((host) => !watch.warmedHosts.has(host)) : [];
    if (fresh.length === 0) watch.status = 'warm';
    else this.warm(peer, watch, fresh);
  }

  /** Runs one warm-up of `hosts` (announced URIs) of a loaded peer (the manager has a handler). */
  private warm(peer: string, watch: PeerWatch, hosts: readonly string[]): void {
    if (!this.handler) return;
    watch.status = 'warming';
    watch.warmedAt = this.now();
    const warming = ++watch.attempt;
    const done = (): void => {
      if (this.peers.get(peer) !== watch || watch.attempt !== warming || watch.status !== 'warming') return;
      // A cancelled warm-up never gets here: its hosts are warmed up when the peer is re-added.
      for (const host of hosts) watch.warmedHosts.add(host);
      // Hosts announced while it ran (changes are not acted on while warming) are warmed up now.
      this.warmNewHosts(peer, watch);
    };
    let promise: Promise<void>;
    try {
      promise = this.handler.warmUpConnections(peer, watch.config, hosts);
    } catch (err) {
      promise = Promise.reject(err);
    }
    promise.then(done, (err: unknown) => {
      // The handler contract is "count, never throw"; a rejection is its bug, not the peer's.
      this.log.warn({ err, cluster: this.cluster, peer }, 'failout peer warm-up threw');
      done();
    });
  }

  /**
   * The announced URIs of the peer's hosts a D2 client could send to (the pick's own rule, any scheme);
   * none without the cluster. Computed again only when the state's snapshot of the peer changed.
   */
  private hostUris(peer: string, watch: PeerWatch): readonly string[] {
    const properties = this.state.getClusterProperties(peer);
    if (!properties) return [];
    const uris = this.state.getUris(peer);
    const known = watch.hosts;
    if (known !== undefined && known.properties === properties && known.uris === uris) return known.list;
    const list = eligibleHosts(uris, properties, NO_SCHEMES).map((host) => host.item.uri);
    watch.hosts = { properties, uris, list };
    return list;
  }

  private removeAll(): void {
    // No copy of the keys: a Map's iteration tolerates removePeer deleting the entry it is on.
    for (const peer of this.peers.keys()) this.removePeer(peer);
  }

  private removePeer(peer: string): void {
    const watch = this.peers.get(peer);
    if (!watch || watch.status === 'tearingDown') return;
    this.handler?.cancelPendingRequests(peer);
    if (!watch.held || this.teardownDelayMs === 0) {
      this.release(peer, watch);
      return;
    }
    watch.resume = watch.status;
    watch.status = 'tearingDown';
    watch.droppedAt = this.now();
    watch.teardownBatch = this.teardownBatch;
    this.teardownsPending++;
  }

  /** Arms the teardown timer for the peers dropped so far (the current batch and any before it). */
  private armTeardown(delayMs: number): void {
    const batch = this.teardownBatch++;
    this.teardownTimer = this.scheduler.setTimeout(() => {
      this.teardownTimer = undefined;
      if (this.lifecycle === 'running') this.tearDown(batch);
    }, delayMs);
  }

  /** Releases the peers of `batch` and before; arms the timer again for any dropped since, at their own time. */
  private tearDown(batch: number): void {
    let next = Infinity;
    // No copy of the entries: a Map's iteration tolerates release deleting the entry it is on.
    for (const [peer, watch] of this.peers) {
      if (watch.status !== 'tearingDown') continue;
      if (watch.teardownBatch <= batch) this.release(peer, watch);
      else next = Math.min(next, watch.droppedAt + this.teardownDelayMs);
    }
    if (this.teardownsPending > 0) this.armTeardown(Math.max(0, next - this.now()));
    this.checkIdle();
  }

  private clearTeardownTimer(): void {
    if (this.teardownTimer === undefined) return;
    this.scheduler.clearTimeout(this.teardownTimer);
    this.teardownTimer = undefined;
  }

  /** Forgets the watch and releases the manager's own hold (someone else's holds stay). */
  private release(peer: string, watch: PeerWatch): void {
    if (watch.status === 'tearingDown' && --this.teardownsPending === 0) this.clearTeardownTimer();
    this.peers.delete(peer);
    this.loadedFor = undefined;
    this.onPeerReleased?.(peer);
    if (watch.held) this.state.stopListenToCluster(peer);
  }

  private checkIdle(): void {
    if (this.lifecycle === 'running' && this.config === undefined && this.peers.size === 0) this.onIdle?.();
  }
}

/** The earliest start of a window that starts after `now` and has not ended; undefined when none. */
function nextStart(config: FailoutConfig, now: number): number | undefined {
  let start: number | undefined;
  for (const w of config.windows) {
    if (w.offlineAt > now && (w.onlineAt === undefined || w.onlineAt > now) && (start === undefined || w.offlineAt < start)) start = w.offlineAt;
  }
  return start;
}
