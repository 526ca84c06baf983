import { isZkError, resolveAcl, type AclSource, type MultiOp, type ZkReader, type ZkWriter } from '../zk';
import { silentRequestLogger, type RequestLogger } from './logger';
import { isValidRequestId } from './names';
import { DEFAULT_RECORD_RETENTION, decodePruneMark, encodePruneMark, pruneMarkPath, readPruneMark, type RecordRetention } from './record-retention';
import { DEFAULT_REQUESTS_PATH } from './request-record';

/** Options of {@link RecordSweeper}. Fixed after construction. */
export interface RecordSweeperOptions extends Partial<RecordRetention> {
  /** A session that may create and delete children of the records' parent (the request writer's). */
  readonly session: ZkReader & ZkWriter;
  /** Required, no default: the ACL of the prune mark node (the writer's record ACL: it is one of them). */
  readonly acl: AclSource;
  /** Parent of the records. Default `/failout/requests`. */
  readonly requestsPath?: string;
  /** Epoch ms. Default `Date.now`. */
  readonly clock?: () => number;
  /** Where each sweep's figures go (info) and a foreign parent's data is reported (warn). Default silent. */
  readonly logger?: RequestLogger;
}

/** What one sweep did. */
export interface SweepResult {
  /** Records looked at (every child of the records' parent). */
  readonly examined: number;
  /** Records deleted by this sweep. */
  readonly deleted: number;
  /** False when the sweep stopped at `maxDeletes` (older records may remain; the mark did not move). */
  readonly complete: boolean;
  /** Records last written before this epoch ms were due. */
  readonly prunedBefore: number;
}

/** Records stat-ed (and deleted) at once: a pipeline deep enough to be quick, shallow enough to be polite. */
const CHUNK = 64;

/**
 * Prunes request records after the retention (see `record-retention.ts` for why a sweep and what the
 * prune mark means). It touches only the children of the records' parent whose names are request ids,
 * and the prune mark. A record's age is its znode's `mtime` (records are written once, so that is when
 * it was created, on the server's clock). Deletes are conditional on the version read, so a record
 * rewritten meanwhile survives; several workers may sweep at once (a delete that finds nothing is no
 * error, and the mark is set with compare-and-set).
 *
 * Concurrency: `lastSweep` and `running` change only on the event loop; one sweep runs at a time per
 * instance (`sweepIfDue` joins a running one).
 */
export class RecordSweeper {
  private readonly session: ZkReader & ZkWriter;
  private readonly acl: AclSource;
  private readonly requestsPath: string;
  private readonly retention: RecordRetention;
  private readonly clock: () => number;
  private readonly log: RequestLogger;
  private lastSweep: number | undefined;
  private running: Promise<SweepResult> | undefined;

  constructor(options: RecordSweeperOptions) {
    this.session = options.session;
    this.acl = options.acl;
    this.requestsPath = (options.requestsPath ?? DEFAULT_REQUESTS_PATH).replace(/\/+$/, '');
    this.retention = {
      retentionMs: options.retentionMs ?? DEFAULT_RECORD_RETENTION.retentionMs,
      intervalMs: options.intervalMs ?? DEFAULT_RECORD_RETENTION.intervalMs,
      maxDeletes: options.maxDeletes ?? DEFAULT_RECORD_RETENTION.maxDeletes,
    };
    this.clock = options.clock ?? Date.now;
    this.log = options.logger ?? silentRequestLogger;
  }

  /**
   * Sweeps when no sweep ran within `intervalMs`: neither this one (its own memory) nor another worker
   * (the prune mark's `sweptAt`, one read). Resolves undefined when it did not sweep.
   */
  async sweepIfDue(): Promise<SweepResult | undefined> {
    if (this.running) return this.running;
    const now = this.clock();
    if (this.lastSweep !== undefined && now - this.lastSweep < this.retention.intervalMs) return undefined;
    const mark = await readPruneMark(this.session, this.requestsPath);
    if (mark !== undefined && now - mark.sweptAt < this.retention.intervalMs) {
      this.lastSweep = mark.sweptAt;
      return undefined;
    }
    return this.sweep();
  }

  /** Sweeps now: deletes the records last written before `now - retentionMs`, then moves the prune mark. */
  sweep(): Promise<SweepResult> {
    this.running ??= this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweepOnce(): Promise<SweepResult> {
    const now = this.clock();
    const prunedBefore = now - this.retention.retentionMs;
    let children: string[];
    try {
      // Records only: the prune mark (and anything else that is no request id) is not the sweep's.
      children = (await this.session.children(this.requestsPath)).children.filter(isValidRequestId);
    } catch (e) {
      if (!isZkError(e, 'noNode')) throw e;
      children = [];
    }
    let deleted = 0;
    let complete = true;
    for (let i = 0; i < children.length && complete; i += CHUNK) {
      const paths = children.slice(i, i + CHUNK).map((name) => `${this.requestsPath}/${name}`);
      const stats = await Promise.all(paths.map((path) => this.session.exists(path)));
      const due = paths.flatMap((path, j) => {
        const stat = stats[j];
        return stat !== undefined && stat.mtime < prunedBefore ? [{ path, version: stat.version }] : [];
      });
      const room = this.retention.maxDeletes - deleted;
      if (due.length > room) complete = false;
      const removed = await Promise.all(due.slice(0, room).map((r) => this.remove(r.path, r.version)));
      deleted += removed.filter(Boolean).length;
    }
    if (complete) await this.markPruned(prunedBefore, now);
    this.lastSweep = now;
    this.log.info('request records swept', { examined: children.length, deleted, complete, prunedBefore });
    return { examined: children.length, deleted, complete, prunedBefore };
  }

  /** Deletes one record if it is still the version read; false when somebody else got there first. */
  private async remove(path: string, version: number): Promise<boolean> {
    try {
      await this.session.remove(path, version);
      return true;
    } catch (e) {
      if (isZkError(e, 'noNode', 'badVersion', 'notEmpty')) return false;
      throw e;
    }
  }

  /**
   * Replaces the prune mark: one multi of delete (at the version read) + create, so the mark is
   * write-once like a record and needs only the create and delete the writer has on the records'
   * parent. A concurrent sweeper's mark is as good: losing the race is no error.
   */
  private async markPruned(prunedBefore: number, now: number): Promise<void> {
    if (!(await this.session.exists(this.requestsPath))) return;
    const path = pruneMarkPath(this.requestsPath);
    const node = await this.session.read(path);
    // An unreadable mark is replaced: the name is reserved, nothing else writes it.
    const previous = node.exists ? decodePruneMark(node.data) : undefined;
    const mark = { prunedBefore: Math.max(prunedBefore, previous?.prunedBefore ?? prunedBefore), retentionMs: this.retention.retentionMs, sweptAt: now };
    const ops: MultiOp[] = [
      ...(node.exists ? [{ op: 'remove' as const, path, version: node.stat.version }] : []),
      { op: 'create', path, data: encodePruneMark(mark), acl: resolveAcl(this.acl, path) },
    ];
    try {
      await this.session.multi(ops);
    } catch (e) {
      if (!isZkError(e, 'badVersion', 'noNode', 'nodeExists')) throw e;
    }
  }
}
