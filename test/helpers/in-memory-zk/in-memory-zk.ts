/**
 * An in-memory ZooKeeper for unit tests: one znode tree (the "ensemble") and any number of client
 * sessions on it, each implementing lib/zk's ZkReader, ZkWriter and ZkWatcher with ZkSession's
 * semantics (see session.ts for the fault hooks, znode-tree.ts for the server rules, watch.ts for
 * how watches deliver). Never a ZooKeeper process: unit tests stay fast and deterministic.
 *
 * @example
 * ```ts
 * const zk = new InMemoryZk();
 * const session = zk.session({ credentials: [WRITER] });
 * session.failNext('connectionLoss', { op: 'multi' });
 * await zk.idle(); // every watch delivered what it will deliver
 * ```
 */
import { InMemoryZkSession, type InMemorySessionOptions, type ServerSide } from './session';
import { ZnodeTree } from './znode-tree';

/** Options of {@link InMemoryZk}. */
export interface InMemoryZkOptions {
  /** Server clock for `mtime` (epoch ms). Default `Date.now`. */
  readonly clock?: () => number;
}

/** The in-memory ensemble. */
export class InMemoryZk {
  /** The znode tree (for assertions that bypass sessions, e.g. `paths()`). */
  readonly tree: ZnodeTree;
  /** Watch read failures that a retry will not fix, and listener throws: what the real watch logs. */
  readonly watchErrors: { readonly path: string; readonly error: Error }[] = [];
  private nextSessionId = 0x1000n;
  private refreshing = 0;
  private readonly server: ServerSide;

  constructor(options: InMemoryZkOptions = {}) {
    this.tree = new ZnodeTree(options.clock ?? Date.now);
    this.server = {
      tree: this.tree,
      newSessionId: () => this.nextSessionId++,
      busy: (delta) => {
        this.refreshing += delta;
      },
      watchError: (error, path) => {
        this.watchErrors.push({ path, error });
      },
    };
  }

  /** A new session, connected at once. */
  session(options: InMemorySessionOptions = {}): InMemoryZkSession {
    return new InMemoryZkSession(this.server, options);
  }

  /**
   * Resolves once no watch of any session is re-reading for two turns of the event loop in a row (the
   * second turn lets a consumer's own setImmediate, such as the URI store's flush, run too).
   * @throws Error when watches keep re-reading for `maxTurns` turns (a feedback loop).
   */
  async idle(maxTurns = 1000): Promise<void> {
    let quiet = 0;
    for (let turn = 0; turn < maxTurns; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      quiet = this.refreshing === 0 ? quiet + 1 : 0;
      if (quiet >= 2) return;
    }
    throw new Error(`in-memory ZooKeeper still busy after ${maxTurns} turns`);
  }
}
