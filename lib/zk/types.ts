import type { Stat as RawStat } from 'node-zookeeper-client';

/** A znode's metadata, with zxids as bigints so they compare. */
export interface Stat {
  /** Data version, for compare-and-set (`set(path, data, version)`). */
  readonly version: number;
  /** Children version; bumps on every child create or delete. */
  readonly cversion: number;
  readonly czxid: bigint;
  /** Zxid of the last data change; D2 uses it as the property version. */
  readonly mzxid: bigint;
  /** Zxid of the last change to the children list. */
  readonly pzxid: bigint;
  /** Session id owning an ephemeral node, 0n for persistent nodes. */
  readonly ephemeralOwner: bigint;
  readonly dataLength: number;
  readonly numChildren: number;
  readonly mtime: number;
}

/** The state of one znode's data as a data watch delivers it. */
export type DataState =
  | { readonly exists: false }
  | { readonly exists: true; readonly data: Buffer; readonly stat: Stat };

/** The state of one znode's children as a children watch delivers it. */
export type ChildrenState =
  | { readonly exists: false }
  | { readonly exists: true; readonly children: readonly string[]; readonly stat: Stat };

/** Node creation modes. */
export type CreateMode = 'persistent' | 'ephemeral' | 'persistentSequential' | 'ephemeralSequential';

/** One operation of an atomic {@link ZkSession.multi}. `version` -1 matches any version. */
export type MultiOp =
  | { readonly op: 'check'; readonly path: string; readonly version: number }
  | { readonly op: 'create'; readonly path: string; readonly data?: Buffer; readonly mode?: CreateMode; readonly acl?: readonly AclEntry[] }
  | { readonly op: 'set'; readonly path: string; readonly data: Buffer; readonly version: number }
  | { readonly op: 'remove'; readonly path: string; readonly version: number };

/** Permissions of an ACL entry, by name. */
export type Permission = 'read' | 'write' | 'create' | 'delete' | 'admin';

/** One ACL entry: `scheme` is `world`, `digest`, `ip` or `auth`. */
export interface AclEntry {
  readonly perms: readonly Permission[];
  readonly scheme: string;
  readonly id: string;
}

/** A digest credential added to every session (and again after each new session). */
export interface DigestCredential {
  readonly user: string;
  readonly password: string;
}

function zxid(buffer: Buffer): bigint {
  return buffer.length >= 8 ? buffer.readBigInt64BE(0) : 0n;
}

/** Converts node-zookeeper-client's Buffer-based stat. */
export function toStat(raw: RawStat): Stat {
  return {
    version: raw.version,
    cversion: raw.cversion,
    czxid: zxid(raw.czxid),
    mzxid: zxid(raw.mzxid),
    pzxid: zxid(raw.pzxid),
    ephemeralOwner: zxid(raw.ephemeralOwner),
    dataLength: raw.dataLength,
    numChildren: raw.numChildren,
    mtime: Number(zxid(raw.mtime)),
  };
}
