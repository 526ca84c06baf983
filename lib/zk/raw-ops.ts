import { CreateMode as RawCreateMode, Exception, type ACL, type Client, type Event } from 'node-zookeeper-client';
import { fromRawAcl, resolveAcl, toRawAcl } from './acl';
import { toZkError, zkErrorFromCode, ZkError } from './errors';
import { toStat, type AclEntry, type CreateMode, type MultiOp, type Stat } from './types';

// Promise wrappers over one node-zookeeper-client Client. They know nothing about sessions being
// replaced; lib/zk/session.ts picks the client and these only translate callbacks and errors.

/** A watcher function as node-zookeeper-client calls it. */
export type RawWatcher = (event: Event) => void;

const MODES: Record<CreateMode, number> = {
  persistent: RawCreateMode.PERSISTENT,
  ephemeral: RawCreateMode.EPHEMERAL,
  persistentSequential: RawCreateMode.PERSISTENT_SEQUENTIAL,
  ephemeralSequential: RawCreateMode.EPHEMERAL_SEQUENTIAL,
};

const EMPTY = Buffer.alloc(0);

/** getData; rejects with kind `noNode` when absent. */
export function getData(client: Client, path: string, watcher?: RawWatcher): Promise<{ data: Buffer; stat: Stat }> {
  return new Promise((resolve, reject) => {
    const cb = (error: Error | Exception | null, data: Buffer | undefined, stat: Parameters<typeof toStat>[0]): void => {
      if (error) reject(toZkError(error, path));
      else resolve({ data: data ?? EMPTY, stat: toStat(stat) });
    };
    if (watcher) client.getData(path, watcher, cb);
    else client.getData(path, cb);
  });
}

/** exists; resolves undefined when absent. With a watcher, arms a data or an existence watch. */
export function exists(client: Client, path: string, watcher?: RawWatcher): Promise<Stat | undefined> {
  return new Promise((resolve, reject) => {
    const cb = (error: Error | Exception | null, stat: Parameters<typeof toStat>[0] | undefined): void => {
      if (error) reject(toZkError(error, path));
      else resolve(stat ? toStat(stat) : undefined);
    };
    if (watcher) client.exists(path, watcher, cb);
    else client.exists(path, cb);
  });
}

/** getChildren (sorted); rejects with kind `noNode` when absent. */
export function getChildren(client: Client, path: string, watcher?: RawWatcher): Promise<{ children: string[]; stat: Stat }> {
  return new Promise((resolve, reject) => {
    const cb = (error: Error | Exception | null, children: string[], stat: Parameters<typeof toStat>[0]): void => {
      if (error) reject(toZkError(error, path));
      else resolve({ children: [...children].sort(), stat: toStat(stat) });
    };
    if (watcher) client.getChildren(path, watcher, cb);
    else client.getChildren(path, cb);
  });
}

/** create; resolves the created path (with the sequence suffix for sequential modes). */
export function create(client: Client, path: string, data: Buffer | undefined, mode: CreateMode, acl: readonly AclEntry[]): Promise<string> {
  return new Promise((resolve, reject) => {
    client.create(path, data ?? EMPTY, toRawAcl(acl), MODES[mode], (error: Error | Exception | null, created: string) => {
      if (error) reject(toZkError(error, path));
      else resolve(created);
    });
  });
}

/** setData with a version check (-1: any version). */
export function setData(client: Client, path: string, data: Buffer, version: number): Promise<Stat> {
  return new Promise((resolve, reject) => {
    client.setData(path, data, version, (error: Error | Exception | null, stat: Parameters<typeof toStat>[0]) => {
      if (error) reject(toZkError(error, path));
      else resolve(toStat(stat));
    });
  });
}

/** getACL: the node's ACL and stat; rejects with `noNode`, or `noAuth` without READ or ADMIN permission. */
export function getAcl(client: Client, path: string): Promise<{ acl: AclEntry[]; stat: Stat }> {
  return new Promise((resolve, reject) => {
    client.getACL(path, (error: Error | Exception | null, acls: ACL[] | undefined, stat: Parameters<typeof toStat>[0]) => {
      if (error) reject(toZkError(error, path));
      else resolve({ acl: fromRawAcl(acls ?? []), stat: toStat(stat) });
    });
  });
}

/** setACL with an ACL-version check (-1: any); rejects with `noNode`, `badVersion` or `noAuth` (no ADMIN permission). */
export function setAcl(client: Client, path: string, acl: readonly AclEntry[], aclVersion: number): Promise<Stat> {
  return new Promise((resolve, reject) => {
    client.setACL(path, toRawAcl(resolveAcl(acl, path)), aclVersion, (error: Error | Exception | null, stat: Parameters<typeof toStat>[0]) => {
      if (error) reject(toZkError(error, path));
      else resolve(toStat(stat));
    });
  });
}

/** remove with a version check (-1: any version). */
export function remove(client: Client, path: string, version: number): Promise<void> {
  return new Promise((resolve, reject) => {
    client.remove(path, version, (error: Error | Exception | null) => {
      if (error) reject(toZkError(error, path));
      else resolve();
    });
  });
}

interface RawOpResult {
  type: number;
  err?: number;
  path?: string;
}

/**
 * An atomic multi. On failure, rejects with the failing operation's kind and `opIndex`
 * (ZooKeeper marks the ops after the failing one RUNTIME_INCONSISTENCY; the first non-OK is the cause).
 * Resolves the created paths by op index (undefined for non-create ops).
 */
export function multi(client: Client, ops: readonly MultiOp[]): Promise<(string | undefined)[]> {
  const tx = client.transaction();
  // Transaction.check/setData/remove do `version = version || -1`, turning version 0 into "any
  // version" and silently disabling compare-and-set on a node's first version. Put the real version
  // back on the op they just queued.
  const queued = (tx as unknown as { ops: { version?: number }[] }).ops;
  const pinVersion = (version: number): void => {
    const last = queued[queued.length - 1];
    if (last) last.version = version;
  };
  for (const op of ops) {
    switch (op.op) {
      case 'check':
        tx.check(op.path, op.version);
        pinVersion(op.version);
        break;
      case 'create':
        // No default: a multi create without an ACL (possible from untyped callers) fails before anything is sent.
        tx.create(op.path, op.data ?? EMPTY, toRawAcl(resolveAcl(op.acl, op.path)), MODES[op.mode ?? 'persistent']);
        break;
      case 'set':
        tx.setData(op.path, op.data, op.version);
        pinVersion(op.version);
        break;
      case 'remove':
        tx.remove(op.path, op.version);
        pinVersion(op.version);
        break;
    }
  }
  return new Promise((resolve, reject) => {
    tx.commit((error: Error | Exception | null, results: RawOpResult[] | undefined) => {
      if (!error) {
        resolve((results ?? []).map((r) => r.path));
        return;
      }
      const index = (results ?? []).findIndex((r) => r.err !== undefined && r.err !== 0);
      if (index < 0) {
        reject(toZkError(error));
        return;
      }
      const code = results?.[index]?.err ?? 0;
      reject(zkErrorFromCode(code, ops[index]?.path, index, error));
    });
  });
}

/** Rejects when `promise` takes longer than `ms`, as a ZkError of kind `timeout`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ZkError('timeout', `${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
