import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createLogger, type Logger } from '../logging';
import type { Lifecycle } from '../lifecycle';
import { CoalescingTask } from './coalescing-task';
import { assertIsError, isZkError, ZkError } from './errors';
import type { DataWatch } from './persistent-watch';
import type { SessionEvent, ZkSession } from './session';
import type { AclSource, MultiOp } from './types';

/** Options for {@link LeaderElection}. */
export interface LeaderElectionOptions {
  /** Parent node of the candidates' ephemeral sequential nodes, e.g. `/failout/bridge/leader`. */
  path: string;
  /** Written into the candidate node; `leaderId()` returns the leader's. */
  participantId: string;
  /**
   * Required, no default: the ACL of the candidate nodes and of `path` and its parents when missing
   * (the bridge passes its ACL policy). Deleting a candidate needs DELETE on `path`.
   */
  acl: AclSource;
  /** Default: a `leader-election` logger. */
  logger?: Logger;
}


/** Edge-triggered leadership events. */
export interface LeaderElectionEvents {
  /** This candidate became the leader. */
  leader: [];
  /** This candidate stopped leading: session suspended, lost or expired, candidate node gone, or election closed. */
  notLeader: [];
}

const SEQUENCE = /(\d{10})$/;

function sequenceOf(name: string): number {
  const match = SEQUENCE.exec(name);
  return match?.[1] ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}

/**
 * Leader election (Curator's LeaderLatch): every candidate creates an ephemeral sequential node under
 * `path`; the lowest leads; the others each watch their predecessor only (no herd). Node names carry a
 * per-candidate UUID so a create lost to a connection error can be found again (Curator's protection).
 *
 * Leadership is dropped on `suspended` (the session may be gone without us knowing) and re-checked on
 * reconnect. Writes that must only happen while leading go through {@link fencedMulti}: the multi
 * checks that our node still exists, so a leader whose session expired cannot write.
 *
 * The only way to give up candidacy is `close()`.
 */
export class LeaderElection extends EventEmitter<LeaderElectionEvents> {
  private lifecycleValue: Lifecycle = 'idle';
  private leading = false;
  private readonly prefix = `${randomUUID()}-n_`;
  /** Our node's full path while it exists. */
  private ownPath: string | undefined;
  private predecessorWatch: DataWatch | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly evaluator = new CoalescingTask({
    pass: () => this.evaluateSafely(),
    passWanted: () => this.lifecycleValue === 'running',
  });
  private readonly log: Logger;

  constructor(
    private readonly session: ZkSession,
    private readonly options: LeaderElectionOptions,
  ) {
    super();
    this.log = options.logger ?? createLogger('leader-election');
  }

  /** `idle` until {@link start}, `running` while a candidate, `closed` after {@link close}. */
  get lifecycle(): Lifecycle {
    return this.lifecycleValue;
  }

  /** True while this candidate leads. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Our candidate node, while it exists. */
  get nodePath(): string | undefined {
    return this.ownPath;
  }

  /** Joins the election. Resolves once our node exists and leadership was evaluated once. */
  async start(): Promise<void> {
    if (this.lifecycleValue !== 'idle') throw new ZkError('other', 'leader election cannot be started more than once');
    this.lifecycleValue = 'running';
    this.unsubscribe = this.session.on((event) => this.onSessionEvent(event));
    await this.session.ensurePath(this.options.path, this.options.acl);
    await this.evaluate();
  }

  /** Leaves the election: deletes our node, so the next candidate leads at once. */
  async close(): Promise<void> {
    if (this.lifecycleValue !== 'running') {
      this.lifecycleValue = 'closed';
      return;
    }
    this.lifecycleValue = 'closed';
    this.unsubscribe?.();
    this.predecessorWatch?.close();
    this.setLeader(false);
    const own = this.ownPath;
    this.ownPath = undefined;
    if (own) await this.session.remove(own).catch(() => undefined);
  }

  /** The participant id of the current leader, or undefined when nobody leads. */
  async leaderId(): Promise<string | undefined> {
    const candidates = await this.candidates();
    for (const name of candidates) {
      const state = await this.session.read(`${this.options.path}/${name}`);
      if (state.exists) return state.data.toString('utf8');
    }
    return undefined;
  }

  /**
   * The fencing operation to put first in a write multi: it fails the multi when our node is gone.
   * Throws `notLeader` when we do not lead right now.
   */
  fence(): MultiOp {
    if (!this.leading || !this.ownPath) throw new ZkError('notLeader', 'not the leader', { path: this.options.path });
    return { op: 'check', path: this.ownPath, version: -1 };
  }

  /** Runs `ops` atomically only while leading; a lost leadership fails with kind `notLeader`. */
  async fencedMulti(ops: readonly MultiOp[]): Promise<(string | undefined)[]> {
    const fence = this.fence();
    try {
      return (await this.session.multi([fence, ...ops])).slice(1);
    } catch (err) {
      if (isZkError(err, 'noNode') && err.opIndex === 0) {
        this.setLeader(false);
        throw new ZkError('notLeader', 'leadership lost (candidate node gone)', { path: fence.path, cause: err });
      }
      if (err instanceof ZkError && err.opIndex !== undefined) {
        throw new ZkError(err.kind, err.message, { path: err.path, code: err.code, opIndex: err.opIndex - 1, cause: err });
      }
      throw err;
    }
  }

  private onSessionEvent(event: SessionEvent): void {
    if (this.lifecycleValue !== 'running') return;
    if (event === 'suspended' || event === 'lost' || event === 'expired') {
      this.setLeader(false);
    } else if (event === 'reset') {
      // New session: our old node belongs to a dead session. Remove it rather than wait for the server
      // to expire it, then stand again.
      const stale = this.ownPath;
      this.ownPath = undefined;
      if (stale) void this.session.remove(stale).catch(() => undefined);
      void this.evaluate();
    } else if (event === 'connected') {
      void this.evaluate();
    }
  }

  /** Serial, coalesced re-evaluation (as persistent watches do). */
  private evaluate(): Promise<void> {
    return this.evaluator.run();
  }

  private async evaluateSafely(): Promise<void> {
    try {
      await this.evaluateOnce();
    } catch (err) {
      assertIsError(err);
      // Transient errors: the next `connected` / `reset` re-evaluates.
      if (!(err instanceof ZkError && err.transient)) this.log.error({ err, path: this.options.path }, 'leader election failed to evaluate');
    }
  }

  private async evaluateOnce(): Promise<void> {
    if (this.lifecycleValue !== 'running') return;
    let candidates = await this.candidates();
    const own = candidates.find((name) => name.startsWith(this.prefix));
    if (!own) {
      const data = Buffer.from(this.options.participantId, 'utf8');
      await this.session.create(`${this.options.path}/${this.prefix}`, data, { mode: 'ephemeralSequential', acl: this.options.acl });
      candidates = await this.candidates();
    }
    const index = candidates.findIndex((name) => name.startsWith(this.prefix));
    if (index < 0) {
      this.evaluator.requestRerun();
      return;
    }
    this.ownPath = `${this.options.path}/${candidates[index]}`;
    if (this.lifecycleValue !== 'running') return;
    if (index === 0) {
      this.predecessorWatch?.close();
      this.predecessorWatch = undefined;
      this.setLeader(this.session.state === 'connected');
      return;
    }
    this.setLeader(false);
    this.watchPredecessor(`${this.options.path}/${candidates[index - 1]}`);
  }

  private watchPredecessor(path: string): void {
    if (this.predecessorWatch?.path === path) return;
    this.predecessorWatch?.close();
    this.predecessorWatch = this.session.watchData(path, (state) => {
      if (!state.exists) void this.evaluate();
    });
  }

  private async candidates(): Promise<string[]> {
    const { children } = await this.session.children(this.options.path);
    return children.sort((a, b) => sequenceOf(a) - sequenceOf(b));
  }

  /** Edge-triggered: emits only when leadership actually changes. */
  private setLeader(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    this.emit(leading ? 'leader' : 'notLeader');
  }
}
