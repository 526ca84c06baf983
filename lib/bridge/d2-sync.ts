/**
 * The writing half of the sync: keeps ZooKeeper's D2 entities equal to their targets, writing only
 * what changed, in batched multis within the write budget, each batch fenced on leadership.
 *
 * It mirrors what it last read or wrote for each entity, so an xDS change costs no reads: one changed
 * endpoint is one `set` (or `create`/`remove`) in one multi. A failed batch drops the mirror of its
 * entities; they are re-read and re-planned on the next pass (a `badVersion` from the request worker's
 * concurrent `failoutProperties` write thus becomes a re-merge, never a lost write).
 *
 * Concurrency: passes run one at a time through a {@link CoalescingTask}; `dirty`, `mirror` and
 * `lifecycle` change only on the event loop, the mirror only inside a pass.
 */
import { clusterPath, servicePath, urisPath } from '../d2/data';
import { createLogger, type Logger } from '../logging';
import { CoalescingTask, isZkError, type MultiOp, type ZkReader } from '../zk';
import type { WriteBudget } from './config';
import { batchPlans, planNode, planUris, type NodeAcl } from './diff';
import { assertIsError } from './errors';
import { isBridgeChildName } from './mapping';
import type { EntityKey, EntityTarget, NodeView, UrisView } from './model';
import { TokenBucket } from './token-bucket';
import type { Lifecycle } from '../lifecycle';
import { forEachLimit } from '../concurrency';

/** What the sync reports as it goes (metrics). */
export interface SyncHooks {
  /** A batch landed: its operations. */
  onBatch?(ops: readonly MultiOp[]): void;
  /** A batch or a read failed; `kind` is the ZooKeeper error kind (or `other`). */
  onFailure?(kind: string): void;
  /** An entity reached its target `lagMs` after it was first marked dirty. */
  onSynced?(key: EntityKey, lagMs: number): void;
}

/** Options of {@link D2Sync}. */
export interface D2SyncOptions {
  /** Where entities are read from (writes go through `write`, fenced on leadership). */
  readonly session: ZkReader;
  readonly basePath: string;
  readonly budget: WriteBudget;
  /** Runs one batch atomically, fenced on leadership (rejects with ZkError `notLeader` when not leading). */
  readonly write: (ops: readonly MultiOp[]) => Promise<unknown>;
  /** The target of an entity now. */
  readonly target: (key: EntityKey) => EntityTarget;
  /** The ACL of each node the sync creates (required: the bridge's ACL policy). */
  readonly acl: NodeAcl;
  readonly hooks?: SyncHooks;
  readonly logger?: Logger;
}

/** Counters of a {@link D2Sync}. */
export interface SyncStats {
  /** `running` while writing (leading); `idle` before the first activation and while paused (standby); `closed` for good. */
  readonly lifecycle: Lifecycle;
  /** Operations written since start. */
  readonly writes: number;
  readonly batches: number;
  readonly failures: number;
  /** Entities waiting to be written. */
  readonly pending: number;
  /** When the oldest pending entity was marked dirty (epoch ms). */
  readonly oldestPendingAt: number | undefined;
  readonly lastBatchAt: number | undefined;
  readonly lastFullSyncAt: number | undefined;
}

type View = NodeView | UrisView;
interface Planned {
  key: EntityKey;
  ops: readonly MultiOp[];
  after: View;
}

const LOAD_CONCURRENCY = 64;
const RETRY_BASE_MS = 50;
const RETRY_CAP_MS = 5000;

/** The diffing ZooKeeper writer of the bridge. */
export class D2Sync {
  /** `idle` → `running` (leading, {@link activate}) ⇄ `idle` (standby, {@link pause}) → `closed`. */
  private lifecycleValue: Lifecycle = 'idle';
  /** Entity → when it was first marked dirty since it last reached its target. */
  private readonly dirty = new Map<EntityKey, number>();
  private readonly mirror = new Map<EntityKey, View>();
  private readonly rechecks = new Map<EntityKey, NodeJS.Timeout>();
  private readonly bucket: TokenBucket;
  private readonly task = new CoalescingTask({ pass: () => this.pass(), passWanted: () => this.lifecycleValue === 'running' });
  private readonly log: Logger;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs = RETRY_BASE_MS;
  private idleWaiters: (() => void)[] = [];
  private counters = { writes: 0, batches: 0, failures: 0, lastBatchAt: undefined as number | undefined, lastFullSyncAt: undefined as number | undefined };
  private fullSyncPending = false;
  private passRunning = false;

  constructor(private readonly options: D2SyncOptions) {
    this.bucket = new TokenBucket(options.budget.maxOpsPerSecond);
    this.log = options.logger ?? createLogger('bridge-sync');
  }

  get lifecycle(): Lifecycle {
    return this.lifecycleValue;
  }

  /** Counters for `/status` and metrics. */
  stats(): SyncStats {
    let oldest: number | undefined;
    for (const at of this.dirty.values()) oldest = oldest === undefined ? at : Math.min(oldest, at);
    return { lifecycle: this.lifecycleValue, ...this.counters, pending: this.dirty.size, oldestPendingAt: oldest };
  }

  /**
   * Starts writing (on taking leadership): forgets the mirror, so every entity in `keys` is read from
   * ZooKeeper and brought to its target once (the full sync), then keeps following changes.
   * Resolves when that full sync is done (nothing left dirty), or when writing stops.
   */
  async activate(keys: Iterable<EntityKey>): Promise<void> {
    if (this.lifecycleValue === 'closed') return;
    this.lifecycleValue = 'running';
    this.mirror.clear();
    this.fullSyncPending = true;
    const now = Date.now();
    for (const key of keys) if (!this.dirty.has(key)) this.dirty.set(key, now);
    void this.task.run();
    await this.whenIdle();
  }

  /** Stops writing (leadership lost); pending entities stay dirty for the next activation. */
  pause(): void {
    if (this.lifecycleValue !== 'running') return;
    this.lifecycleValue = 'idle';
    this.clearTimers();
    this.releaseIdleWaiters();
  }

  /** Stops for good. */
  close(): void {
    this.lifecycleValue = 'closed';
    this.clearTimers();
    this.releaseIdleWaiters();
  }

  /** An entity's target may have changed: bring it there (at once when active, on activation otherwise). */
  markDirty(key: EntityKey): void {
    if (this.lifecycleValue === 'closed') return;
    if (!this.dirty.has(key)) this.dirty.set(key, Date.now());
    if (this.lifecycleValue === 'running' && !this.retryTimer) void this.task.run();
  }

  /** Resolves once nothing is dirty and no pass runs (or the sync is not active). */
  whenIdle(): Promise<void> {
    if (this.lifecycleValue !== 'running' || (this.dirty.size === 0 && !this.passRunning)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async pass(): Promise<void> {
    this.passRunning = true;
    try {
      await this.passOnce();
    } catch (err) {
      assertIsError(err);
      this.log.error({ err }, 'sync pass failed');
      this.scheduleRetry();
    } finally {
      this.passRunning = false;
      if (this.dirty.size === 0) {
        if (this.fullSyncPending && this.lifecycleValue === 'running') this.counters.lastFullSyncAt = Date.now();
        this.fullSyncPending = false;
        this.releaseIdleWaiters();
      }
    }
  }

  private async passOnce(): Promise<void> {
    const taken = new Map(this.dirty);
    this.dirty.clear();
    const plans = await this.planAll(taken);
    const batches = batchPlans(plans, this.options.budget.maxOpsPerMulti, this.options.budget.maxBytesPerMulti);
    const remaining = new Map<EntityKey, number>();
    for (const batch of batches) for (const key of batch.keys) remaining.set(key, (remaining.get(key) ?? 0) + 1);
    const planByKey = new Map(plans.map((p) => [p.key, p]));
    for (const [index, batch] of batches.entries()) {
      if (this.lifecycleValue !== 'running') return this.requeue(batches.slice(index).flatMap((b) => b.keys), taken);
      await this.bucket.take(batch.ops.length);
      const ok = await this.writeBatch(batch.ops, batch.keys, taken);
      if (!ok) continue;
      for (const key of batch.keys) {
        const left = (remaining.get(key) ?? 1) - 1;
        remaining.set(key, left);
        if (left === 0) this.settle(key, planByKey.get(key)!.after, taken);
      }
    }
    for (const plan of plans) if (plan.ops.length === 0) this.settle(plan.key, plan.after, taken);
    if (batches.length > 0 && this.dirty.size === 0) this.retryDelayMs = RETRY_BASE_MS;
  }

  /** Records an entity as at its target. */
  private settle(key: EntityKey, after: View, taken: ReadonlyMap<EntityKey, number>): void {
    this.mirror.set(key, after);
    const since = taken.get(key);
    if (since !== undefined && !this.dirty.has(key)) this.options.hooks?.onSynced?.(key, Date.now() - since);
  }

  private async planAll(taken: ReadonlyMap<EntityKey, number>): Promise<Planned[]> {
    const plans: Planned[] = [];
    await forEachLimit([...taken.keys()], LOAD_CONCURRENCY, async (key) => {
      const target = this.options.target(key);
      if (target.kind === 'keep') {
        if (target.recheckAt !== undefined) this.scheduleRecheck(key, target.recheckAt);
        return;
      }
      try {
        const view = this.mirror.get(key) ?? (await this.load(key));
        const path = this.pathOf(key);
        const acl = this.options.acl;
        plans.push({ key, ...(key.startsWith('uris:') ? planUris(path, view as UrisView, target, acl) : planNode(path, view as NodeView, target, acl)) });
      } catch (err) {
        assertIsError(err);
        this.fail(err, [key], taken);
      }
    });
    return plans;
  }

  /** Writes one batch; on failure drops the mirror of its entities and marks them dirty again. */
  private async writeBatch(ops: readonly MultiOp[], keys: readonly EntityKey[], taken: ReadonlyMap<EntityKey, number>): Promise<boolean> {
    try {
      await this.options.write(ops);
      this.counters.writes += ops.length;
      this.counters.batches++;
      this.counters.lastBatchAt = Date.now();
      this.options.hooks?.onBatch?.(ops);
      return true;
    } catch (err) {
      assertIsError(err);
      this.fail(err, keys, taken);
      return false;
    }
  }

  private fail(err: Error, keys: readonly EntityKey[], taken: ReadonlyMap<EntityKey, number>): void {
    const kind = isZkError(err) ? err.kind : 'other';
    this.counters.failures++;
    this.options.hooks?.onFailure?.(kind);
    for (const key of keys) this.mirror.delete(key);
    this.requeue(keys, taken);
    if (kind === 'notLeader') {
      this.log.warn('leadership lost: writes stop');
      this.pause();
      return;
    }
    this.log.warn({ err, kind, entities: keys.length }, 'sync write failed; re-reading and retrying');
    this.scheduleRetry();
  }

  private requeue(keys: readonly EntityKey[], taken: ReadonlyMap<EntityKey, number>): void {
    for (const key of keys) if (!this.dirty.has(key)) this.dirty.set(key, taken.get(key) ?? Date.now());
  }

  /** Retries dirty entities after a backoff (50 ms doubling to 5 s; reset after a clean pass). */
  private scheduleRetry(): void {
    if (this.retryTimer || this.lifecycleValue !== 'running') return;
    const delay = this.retryDelayMs * (0.8 + Math.random() * 0.4);
    this.retryDelayMs = Math.min(RETRY_CAP_MS, this.retryDelayMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.task.run();
    }, delay);
  }

  private scheduleRecheck(key: EntityKey, at: number): void {
    clearTimeout(this.rechecks.get(key));
    const timer = setTimeout(() => {
      this.rechecks.delete(key);
      this.markDirty(key);
    }, Math.max(0, at - Date.now()) + 5);
    timer.unref();
    this.rechecks.set(key, timer);
  }

  private pathOf(key: EntityKey): string {
    const colon = key.indexOf(':');
    const kind = key.slice(0, colon);
    const name = key.slice(colon + 1);
    if (kind === 'service') return servicePath(this.options.basePath, name);
    if (kind === 'cluster') return clusterPath(this.options.basePath, name);
    return urisPath(this.options.basePath, name);
  }

  /** Reads an entity's current state from ZooKeeper (bridge-owned persistent children only, for URIs). */
  private async load(key: EntityKey): Promise<View> {
    const path = this.pathOf(key);
    const session = this.options.session;
    if (!key.startsWith('uris:')) {
      const state = await session.read(path);
      return state.exists ? { exists: true, data: state.data.toString('utf8'), version: state.stat.version } : { exists: false };
    }
    let names: string[];
    try {
      names = (await session.children(path)).children;
    } catch (err) {
      if (isZkError(err, 'noNode')) return { parentExists: false, children: new Map() };
      throw err;
    }
    const children = new Map<string, { data: string; version: number }>();
    await Promise.all(
      names.filter(isBridgeChildName).map(async (name) => {
        const state = await session.read(`${path}/${name}`);
        // A server's own announcement is ephemeral: never ours, whatever its name.
        if (state.exists && state.stat.ephemeralOwner === 0n) children.set(name, { data: state.data.toString('utf8'), version: state.stat.version });
      }),
    );
    return { parentExists: true, children };
  }

  private clearTimers(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    for (const timer of this.rechecks.values()) clearTimeout(timer);
    this.rechecks.clear();
  }

  private releaseIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
