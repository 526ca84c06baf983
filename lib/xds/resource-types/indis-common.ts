/**
 * What rest.li's three `indis` resource types (D2 over xDS) share: the znode stat, JSON ↔
 * `google.protobuf.Struct`, the version string, and the decode path that names a resource by its
 * `Resource` wrapper.
 *
 * Public names (stable):
 * - `ZnodeStat` — the stat an observer holds (lib/zk's `Stat` is one; `ctime` optional).
 * - `D2Stat` — the decoded `indis.Stat` (bigint zxids and session id, as lib/zk's `Stat`).
 * - `D2NodeData` — a znode's data: its bytes (UTF-8 JSON) or its text.
 * - `zxidVersion(...zxids)`, `d2NodeVersion(stat)`, `d2UriMapVersion(parent, children)`.
 * - Internal to the resource types: `statObject`, `statOf`, `structObject`, `jsonOfStruct`,
 *   `parseNodeJson`, `decodeNamedByWrapper`, `setEntry`.
 *
 * Numbers (the decision the client adaptor relies on). A Struct holds every number as a double, so
 * the wire cannot tell `5` from `5.0`, and proto3 has no integer Value. We do not try to carry the
 * difference (rest.li's observer does not either). Decoding yields plain JS numbers, so an integral
 * double *is* an integer again (`Number.isInteger`), and a fraction stays a fraction. The adaptor
 * must hand the decoded objects to lib/d2's `parse*` functions as objects, never re-stringified:
 * for an object lib/d2 reads "an integral number counts as an integer and any number as a double"
 * (`json.ts`, `exactNumbers` off), so a cluster's `Integer` fields and its `Double` fields both read
 * as they did from ZooKeeper. What does not survive: the decimal spelling of an integral value inside
 * an opaque map (`"scope": 1.0` is written back as `1`), and integers beyond ±2^53 (as in Java's
 * `JsonFormat`). Non-finite numbers cannot be JSON and are rejected both ways.
 */
import type * as protobuf from 'protobufjs/light';
import { XdsError } from '../errors';
import type { JsonObject, JsonValue } from '../proto-json';
import { unwrapResource, type AnyMessage } from '../protos';
import { rootOf } from '../proto-roots';
import { invalid, type DecodeResult } from './resource-type';
import { RESOURCE_WRAPPER_TYPE_URL, type XdsTypeUrl } from './type-urls';

/** A znode's stat as the observer holds it; lib/zk's `Stat` is one (`ctime` unknown: sent as 0). */
export interface ZnodeStat {
  /** Zxid of the node's creation. */
  readonly czxid: bigint;
  /** Zxid of the last data change (the D2 property version). */
  readonly mzxid: bigint;
  /** Zxid of the last change to the children list. */
  readonly pzxid: bigint;
  /** Session owning an ephemeral node; 0n for a persistent one. */
  readonly ephemeralOwner: bigint;
  /** Creation time, epoch ms; 0 when unknown. */
  readonly ctime?: number;
  /** Time of the last data change, epoch ms. */
  readonly mtime: number;
  /** Data version. */
  readonly version: number;
  /** Children version. */
  readonly cversion: number;
  /** ACL version. */
  readonly aversion: number;
  /** Length of the data in bytes. */
  readonly dataLength: number;
  /** Number of children. */
  readonly numChildren: number;
}

/** A decoded `indis.Stat`: every field, unset ones 0 (assignable to lib/zk's `Stat`). */
export interface D2Stat extends ZnodeStat {
  /** Creation time, epoch ms (0 when the sender did not know it). */
  readonly ctime: number;
}

/** A znode's data: the bytes ZooKeeper holds (UTF-8 JSON for D2), or that text. */
export type D2NodeData = Uint8Array | string;

/**
 * The version string of the state these zxids describe: the largest, in decimal ('0' for none).
 * Zxids grow with every write to the ensemble, so any change of the state raises the largest of the
 * zxids that cover it, and the string never repeats an older state's.
 */
export function zxidVersion(...zxids: readonly bigint[]): string {
  let max = 0n;
  for (const z of zxids) if (z > max) max = z;
  return max.toString();
}

/** The version of a D2 node (service, cluster, symlink): its mzxid, as rest.li's ZooKeeper store uses it. */
export function d2NodeVersion(stat: Pick<ZnodeStat, 'mzxid'>): string {
  return zxidVersion(stat.mzxid);
}

/**
 * The version of a URI map: the parent's pzxid (a child created or deleted) and every child's mzxid
 * (a child's data changed). Without the parent, deleting the newest child would bring back an older
 * version string, so pass it whenever the observer has it.
 */
export function d2UriMapVersion(parent: Pick<ZnodeStat, 'pzxid'> | undefined, children: ReadonlyArray<{ readonly stat: Pick<ZnodeStat, 'mzxid'> }>): string {
  return zxidVersion(...(parent ? [parent.pzxid] : []), ...children.map((c) => c.stat.mzxid));
}

/**
 * `indis.Stat` as `packAny` takes it; int64s as decimal strings (exact, unlike numbers past 2^53).
 * Zero fields are left out, as proto3 encoders do (protobufjs would write a set 0): one URI map
 * carries a stat per host, to every subscriber.
 */
export function statObject(stat: ZnodeStat): Record<string, string | number> {
  const fields: Record<string, string | number> = {
    Czxid: stat.czxid.toString(),
    Mzxid: stat.mzxid.toString(),
    Ctime: String(stat.ctime ?? 0),
    Mtime: String(stat.mtime),
    Version: stat.version,
    Cversion: stat.cversion,
    Aversion: stat.aversion,
    EphemeralOwner: BigInt.asIntN(64, stat.ephemeralOwner).toString(),
    DataLength: stat.dataLength,
    NumChildren: stat.numChildren,
    Pzxid: stat.pzxid.toString(),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== 0 && v !== '0'));
}

/** An int64 as protobufjs decodes it (a Long when `long` is installed, else a number) → bigint. */
function int64(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'string') return BigInt(v);
  if (v !== null && typeof v === 'object' && 'low' in v && 'high' in v) {
    const { low, high } = v as { low: number; high: number };
    return BigInt.asIntN(64, (BigInt(high) << 32n) | BigInt(low >>> 0));
  }
  return 0n;
}

const int32 = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** The decoded stat; an absent stat reads as all zeros (rest.li's own tests send only `Mzxid`). */
export function statOf(message: Record<string, unknown> | null | undefined): D2Stat {
  const m = message ?? {};
  return {
    czxid: int64(m.Czxid),
    mzxid: int64(m.Mzxid),
    ctime: Number(int64(m.Ctime)),
    mtime: Number(int64(m.Mtime)),
    version: int32(m.Version),
    cversion: int32(m.Cversion),
    aversion: int32(m.Aversion),
    ephemeralOwner: int64(m.EphemeralOwner),
    dataLength: int32(m.DataLength),
    numChildren: int32(m.NumChildren),
    pzxid: int64(m.Pzxid),
  };
}

/** The names of `google.protobuf.Value`'s fields by number, in the root `packAny` encodes with. */
let valueFieldNames: Readonly<Record<number, string>> | undefined;

/**
 * Read by number, because the descriptors name them differently (protobufjs' bundled struct.proto
 * says `numberValue`, a descriptor generated with keepCase `number_value`).
 */
function valueField(id: 1 | 2 | 3 | 4 | 5 | 6): string {
  valueFieldNames ??= Object.fromEntries(rootOf('full').lookupType('google.protobuf.Value').fieldsArray.map((f) => [f.id, f.name]));
  return valueFieldNames[id] ?? '';
}

function valueObject(value: unknown, path: string): Record<string, unknown> {
  if (value === null) return { [valueField(1)]: 0 };
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new XdsError('validation', `${path} is ${value}, which JSON cannot hold`, { field: path });
      return { [valueField(2)]: value };
    case 'string':
      return { [valueField(3)]: value };
    case 'boolean':
      return { [valueField(4)]: value };
    case 'object':
      return Array.isArray(value)
        ? { [valueField(6)]: { values: value.map((v, i) => valueObject(v, `${path}[${i}]`)) } }
        : { [valueField(5)]: structObject(value as Record<string, unknown>, path) };
    default:
      throw new XdsError('validation', `${path} is a ${typeof value}, which JSON cannot hold`, { field: path });
  }
}

/** A JSON object as `google.protobuf.Struct`, in the form `packAny` takes. `path` names a bad value in errors. */
export function structObject(json: Readonly<Record<string, unknown>>, path = ''): { fields: Record<string, unknown> } {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) setEntry(fields, key, valueObject(value, `${path}.${key}`));
  return { fields };
}

/** `target[key] = value`, also for the key `__proto__` (an own property, as `JSON.parse` makes it). */
export function setEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A decoded Value (a protobufjs message: `kind` names the set field) as JSON. */
function jsonOfValue(message: Record<string, unknown>, path: string): JsonValue {
  const type = (message as { $type?: protobuf.Type }).$type;
  const kind = typeof message.kind === 'string' ? message.kind : '';
  const value = message[kind];
  switch (type?.fields[kind]?.id) {
    case 1:
      return null;
    case 2:
      if (typeof value !== 'number' || !Number.isFinite(value)) invalid(`${path} is ${String(value)}, which JSON cannot hold`);
      return value;
    case 3:
      return String(value);
    case 4:
      return Boolean(value);
    case 5:
      return jsonOfStruct(value as Record<string, unknown>, path);
    case 6:
      return ((value as { values?: Record<string, unknown>[] }).values ?? []).map((v, i) => jsonOfValue(v, `${path}[${i}]`));
    default:
      return invalid(`${path} is a Value with no kind set`);
  }
}

/** A decoded Struct (protobufjs message) as a JSON object; throws a ValidationIssue naming a bad value. */
export function jsonOfStruct(message: Record<string, unknown> | null | undefined, path = ''): JsonObject {
  const out: JsonObject = {};
  const fields = (message?.fields ?? {}) as Record<string, Record<string, unknown>>;
  for (const key of Object.keys(fields)) setEntry(out, key, jsonOfValue(fields[key], `${path}.${key}`));
  return out;
}

/** A D2 node's data as the JSON object it must hold; throws `XdsError` 'validation' naming `path`. */
export function parseNodeJson(path: string, data: D2NodeData): Record<string, unknown> {
  const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new XdsError('validation', `${path}: the node's data is not JSON (${e instanceof Error ? e.message : String(e)})`, { resourceName: path, cause: e });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new XdsError('validation', `${path}: the node's data is not a JSON object`, { resourceName: path });
  }
  return parsed as Record<string, unknown>;
}

/**
 * The decode path of the `indis` types. Their messages hold no name: the resource is named by its
 * `Resource` wrapper (rest.li's servers send every resource wrapped; ours must too), either still
 * around `any` or already taken off by the ADS stream (`wrapperName`). Every failure becomes
 * `{ ok: false }` with an `XdsError` 'validation', named when the name is known.
 */
export function decodeNamedByWrapper<V>(
  typeUrl: XdsTypeUrl,
  any: AnyMessage,
  wrapperName: string | undefined,
  decode: (inner: AnyMessage, name: string) => V,
): DecodeResult<V> {
  let name: string | undefined = wrapperName || undefined;
  try {
    let inner = any;
    if (any.type_url === RESOURCE_WRAPPER_TYPE_URL) {
      const unwrapped = unwrapResource(any);
      inner = unwrapped.any;
      name = unwrapped.name || name;
    }
    if (inner.type_url !== typeUrl) invalid(`wrong type ${inner.type_url}, expected ${typeUrl}`);
    if (!name) invalid('resource has no name (an indis resource is named by its Resource wrapper)');
    return { ok: true, name, value: decode(inner, name) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return {
      ok: false,
      ...(name ? { name } : {}),
      error: new XdsError('validation', `${name ? `${name}: ` : ''}${message}`, { typeUrl, resourceName: name, cause: e }),
    };
  }
}
