import { isZkError, resolveAcl, type AclSource, type MultiOp, type ZkReader, type ZkWriter } from '../zk';
import { duplicateOf } from './duplicate-records';
import { decodeFailoutView, type FailoutView } from './failout-view';
import { rebaseView, type ViewRebase, type ViewWrite } from './judge-together';
import type { RequestLogger } from './logger';
import { recordBase, type Hints, type RequestMeta } from './record-hints';
import type { Rejection } from './rejection';
import { encodeRequestRecord, requestRecordPath, type RequestRecord } from './request-record';
import { outcomeOf, type Attempt } from './request-outcome';

/** Most rebases of one commit onto a view other writers keep changing, before judging again. */
const MAX_VIEW_REBASES = 20;

/** How a commit rebases its view op (a set, or a rejection's check) onto a view that moved. */
export interface ViewOpRebase {
  readonly path: string;
  readonly rebase: ViewRebase;
  readonly op: (version: number, next: FailoutView) => MultiOp;
}

/** Options of {@link RecordCommit}. Fixed after construction. */
export interface RecordCommitOptions {
  readonly session: ZkReader & ZkWriter;
  /** Parent of the request records. */
  readonly requestsPath: string;
  /** The ACL of created nodes and of the parents created for them. */
  readonly acl: AclSource;
  /** The view of open failouts: a failed op on it is the view's conflict, not the cluster's. */
  readonly viewPath: string | undefined;
  readonly log: RequestLogger;
  /** Epoch ms. */
  readonly clock: () => number;
}

/**
 * The exactly-once step (ARCHITECTURE.md "Change request"): a round's ops plus the create of its
 * request record as ONE multi, the failure classified by which op failed, never by message text.
 * Stateless between calls.
 */
export class RecordCommit {
  constructor(private readonly options: RecordCommitOptions) {}

  /**
   * Runs `ops` plus the record's create as one multi. A missing parent of a created node (the records'
   * or the drills') is created once; a version conflict or a vanished node is `conflict`; an existing
   * record is a `duplicate`.
   */
  async commit(ops: MultiOp[], record: RequestRecord, view?: ViewOpRebase): Promise<Attempt> {
    const { session, requestsPath, acl } = this.options;
    const recordPath = requestRecordPath(requestsPath, record.requestId);
    const all: MultiOp[] = [...ops, { op: 'create', path: recordPath, data: encodeRequestRecord(record), acl: resolveAcl(acl, recordPath) }];
    const createIndex = all.length - 1;
    const viewPath = this.options.viewPath;
    const viewIndex = all.findIndex((op) => op.path === viewPath);
    const parentsCreated = new Set<string>();
    for (let rebases = 0; ; ) {
      try {
        await session.multi(all);
        return outcomeOf(record, record.status);
      } catch (e) {
        // Only the view moved (another cluster's writer): keep the verdict when that change cannot touch it.
        if (view !== undefined && viewIndex >= 0 && rebases < MAX_VIEW_REBASES && isZkError(e, 'badVersion', 'nodeExists') && e.opIndex === viewIndex) {
          const op = await this.rebasedViewOp(view);
          if (op === undefined) return 'viewConflict';
          all[viewIndex] = op;
          rebases++;
          continue;
        }
        const failed = isZkError(e, 'noNode') && e.opIndex !== undefined ? all[e.opIndex] : undefined;
        if (failed?.op === 'create' && !parentsCreated.has(failed.path)) {
          // Every created node's parent at once (the record's and the view's, on a fresh ensemble): one retry, not one per parent.
          for (const op of all) {
            if (op.op !== 'create' || parentsCreated.has(op.path)) continue;
            parentsCreated.add(op.path);
            await session.ensurePath(op.path.slice(0, op.path.lastIndexOf('/')), acl);
          }
          continue;
        }
        if (isZkError(e, 'badVersion', 'noNode', 'nodeExists') && viewIndex >= 0 && e.opIndex === viewIndex) return 'viewConflict';
        if (isZkError(e, 'badVersion', 'noNode') && e.opIndex !== createIndex) return 'conflict';
        if (isZkError(e, 'nodeExists') && e.opIndex === createIndex) return duplicateOf(this.options, record.requestId, record);
        // A drill created by another writer between the read and this multi: decide again.
        if (isZkError(e, 'nodeExists')) return 'conflict';
        throw e;
      }
    }
  }

  /** Records a rejection (behind a version check of the cluster judged, when there is one). */
  reject(rejection: Rejection, hints: Hints, meta: RequestMeta, guard: { path: string; version: number } | undefined, extra: readonly MultiOp[] = [], rebase?: ViewOpRebase): Promise<Attempt> {
    const id = rejection.requestId ?? meta.messageId;
    const record: RequestRecord = {
      ...recordBase(id, hints, meta, this.options.clock()),
      status: 'rejected',
      reason: rejection.reason,
      message: rejection.message,
      clusterVersion: guard?.version ?? null,
    };
    this.options.log.debug('request rejected', { requestId: id, cluster: hints.cluster, reason: rejection.reason, problems: rejection.message });
    return this.commit([...(guard ? [{ op: 'check' as const, path: guard.path, version: guard.version }] : []), ...extra], record, rebase);
  }

  /** The view's write: a set at the version read, or a create when there was no node. */
  viewOps(view: ViewWrite | undefined): MultiOp[] {
    if (view === undefined) return [];
    if (view.version === undefined) return [{ op: 'create', path: view.path, data: view.data, acl: resolveAcl(this.options.acl, view.path) }];
    return [{ op: 'set', path: view.path, data: view.data, version: view.version }];
  }

  /** The view op again at the view's current version, or undefined when the change since may touch the verdict (judge again). */
  private async rebasedViewOp(view: ViewOpRebase): Promise<MultiOp | undefined> {
    const node = await this.options.session.read(view.path);
    if (!node.exists || node.data.length === 0) return undefined;
    let current: FailoutView;
    try {
      current = decodeFailoutView(node.data);
    } catch {
      return undefined;
    }
    const next = rebaseView(view.rebase, current);
    return next === undefined ? undefined : view.op(node.stat.version, next);
  }
}
