import type { Stat as RawStat } from 'node-zookeeper-client';

/** A znode's metadata, with zxids as bigints so they compare. */
export interface Stat {
  /** Data version, for compare-and-set (`set(path, data, version)`). */
  readonly version: number;
  /** ACL version, for compare-and-set of the ACL (`setAcl(path, acl, aversion)`). */
  readonly aversion: number;
  /** Children version; bumps on every child create or delete. */
  readonly cversion: number;
  /** Zxid of the node's creation; tells a re-created node from the one before. */
  readonly czxid: bigint;
  /** Zxid of the last data change; D2 uses it as the property version. */
  readonly mzxid: bigint;
  /** Zxid of the last change to the children list. */
  readonly pzxid: bigint;
  /** Session id owning an ephemeral node, 0n for persistent nodes. */
  readonly ephemeralOwner: bigint;
  /** Length of the node's data in bytes. */
  readonly dataLength: number;
  /** Number of children. */
  readonly numChildren: number;
  /** Time of the last data change, epoch milliseconds (server clock). */
  readonly mtime: number;
  /**
   * Creation time, epoch milliseconds (server clock). Always set by a real session; optional so that
   * stats built by hand (tests, fakes) need not invent one. The D2 observer serves it as
   * `indis.Stat.Ctime`, which rest.li's clients read as the znode's.
   */
  readonly ctime?: number;
}

/** The state of one znode's data as a data watch delivers it. */
export type DataState =
  | {
      /** The node does not exist. */
      readonly exists: false;
    }
  | {
      /** The node exists. */
      readonly exists: true;
      /** The node's data (empty when it has none). */
      readonly data: Buffer;
      /** The node's stat as of this read. */
      readonly stat: Stat;
    };

/** The state of one znode's children as a children watch delivers it. */
export type ChildrenState =
  | {
      /** The node does not exist. */
      readonly exists: false;
    }
  | {
      /** The node exists. */
      readonly exists: true;
      /** Child names (not paths), sorted. */
      readonly children: readonly string[];
      /** The parent node's stat as of this read; `pzxid` orders children lists. */
      readonly stat: Stat;
    };

/** Node creation modes. */
export type CreateMode = 'persistent' | 'ephemeral' | 'persistentSequential' | 'ephemeralSequential';

/**
 * The ACL of created nodes: one list for every node, or a function of the path (an ACL policy such as
 * `policyAcl`), so that missing parents made along the way each get their own.
 */
export type AclSource = readonly AclEntry[] | ((path: string) => readonly AclEntry[]);

/** Options for `create` ({@link ZkWriter.create}, `ZkSession.create`). */
export interface CreateOptions {
  /** Default: `persistent`. */
  mode?: CreateMode;
  /**
   * Required, no default: the ACL of the node (and, with `parents`, of each missing parent). There is
   * no silent open ACL; pass `OPEN_ACL` explicitly where everyone may really change the node.
   */
  acl: AclSource;
  /** Create missing parents (persistent, empty, with `acl`). */
  parents?: boolean;
}

/** One operation of an atomic {@link ZkSession.multi}. `version` -1 matches any version. */
export type MultiOp =
  | {
      /** Fails the multi unless the node exists with data version `version`. */
      readonly op: 'check';
      /** The node to check. */
      readonly path: string;
      /** Expected data version; -1 only requires the node to exist. */
      readonly version: number;
    }
  | {
      /** Creates a node. */
      readonly op: 'create';
      /** The node to create; its parent must exist. */
      readonly path: string;
      /** Initial data. Default: empty. */
      readonly data?: Buffer;
      /** Default: `persistent`. */
      readonly mode?: CreateMode;
      /** Required, no default: the created node's ACL. */
      readonly acl: readonly AclEntry[];
    }
  | {
      /** Compare-and-set write of a node's data. */
      readonly op: 'set';
      /** The node to write. */
      readonly path: string;
      /** The new data. */
      readonly data: Buffer;
      /** Expected data version; -1 matches any. */
      readonly version: number;
    }
  | {
      /** Deletes a node (it must have no children). */
      readonly op: 'remove';
      /** The node to delete. */
      readonly path: string;
      /** Expected data version; -1 matches any. */
      readonly version: number;
    };

/** Permissions of an ACL entry, by name. */
export type Permission = 'read' | 'write' | 'create' | 'delete' | 'admin';

/** One ACL entry: `scheme` is `world`, `digest`, `ip` or `auth`. */
export interface AclEntry {
  /** What the entry grants. */
  readonly perms: readonly Permission[];
  /** Authentication scheme: `world`, `digest`, `ip` or `auth`. */
  readonly scheme: string;
  /** Who, in the scheme's terms: `anyone` for `world`, `user:base64(sha1(user:password))` for `digest` (see {@link digestId}). */
  readonly id: string;
}

/** A digest credential added to every session (and again after each new session). */
export interface DigestCredential {
  /** Digest user name. */
  readonly user: string;
  /** Digest password, in clear; ZooKeeper stores only its hash in ACLs. */
  readonly password: string;
}

function zxid(buffer: Buffer): bigint {
  return buffer.length >= 8 ? buffer.readBigInt64BE(0) : 0n;
}

/** Converts node-zookeeper-client's Buffer-based stat. */
export function toStat(raw: RawStat): Stat {
  return {
    version: raw.version,
    aversion: raw.aversion,
    cversion: raw.cversion,
    czxid: zxid(raw.czxid),
    mzxid: zxid(raw.mzxid),
    pzxid: zxid(raw.pzxid),
    ephemeralOwner: zxid(raw.ephemeralOwner),
    dataLength: raw.dataLength,
    numChildren: raw.numChildren,
    mtime: Number(zxid(raw.mtime)),
    ctime: Number(zxid(raw.ctime)),
  };
}
