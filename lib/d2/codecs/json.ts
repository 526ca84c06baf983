/**
 * Reading helpers shared by the cluster, service and URI codecs.
 *
 * They mirror how rest.li reads: Jackson's untyped parse, then a cast per key, where a missing or null
 * optional key takes its default and a value of the wrong JSON type is an error. Every failure is a
 * `malformed` {@link D2Error} naming the field.
 */

import { D2Error, assertIsError, malformed, type D2Entity, type D2MalformedError } from '../errors';
import { MAX_JSON_DEPTH, copyLiteralKind, defineEntry, isDecimalLiteral, parseJsonText } from './json-text';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** How the document was given, which decides how precisely numbers can be checked. */
interface Source {
  readonly entity: D2Entity;
  /**
   * True for JSON text, where `5` and `5.0` can be told apart (see `json-text.ts`). False for an
   * already-parsed object: there an integral number counts as an integer and any number as a double.
   */
  readonly exactNumbers: boolean;
}

/**
 * Runs a codec's reader so that it throws only `malformed` D2Errors, whatever goes wrong inside.
 * @param input - UTF-8 bytes, JSON text, or an already-parsed plain object.
 */
export function decodeDocument<T>(input: unknown, entity: D2Entity, read: (root: ObjectReader) => T): T {
  try {
    return read(readDocument(input, entity));
  } catch (e) {
    assertIsError(e);
    if (e instanceof D2Error) {
      throw e;
    }
    throw malformed(entity, '', `could not be read: ${e.message}`, e);
  }
}

/**
 * Like {@link decodeDocument}, for the value of one member given on its own (a cluster's
 * `failoutProperties`, say): the value is read as if it sat under `key` in an otherwise empty document,
 * so `read` uses the same getters and every error names `key…` as it would inside the whole document.
 * @param input - UTF-8 bytes, JSON text, or an already-parsed JSON value of any type.
 */
export function decodeMember<T>(input: unknown, entity: D2Entity, key: string, read: (parent: ObjectReader) => T): T {
  try {
    const { value, exactNumbers } = readJson(input, entity, key);
    const parent: Record<string, unknown> = {};
    defineEntry(parent, key, value);
    return read(new ObjectReader({ entity, exactNumbers }, parent, ''));
  } catch (e) {
    assertIsError(e);
    if (e instanceof D2Error) {
      throw e;
    }
    throw malformed(entity, key, `could not be read: ${e.message}`, e);
  }
}

function readDocument(input: unknown, entity: D2Entity): ObjectReader {
  const { value: root, exactNumbers } = readJson(input, entity, '');
  if (!isJsonObject(root)) {
    throw malformed(entity, '', 'must be a JSON object');
  }
  return new ObjectReader({ entity, exactNumbers }, root, '');
}

/** Parses text or bytes, or checks and copies an already-parsed value; `path` names it in errors. */
function readJson(input: unknown, entity: D2Entity, path: string): { value: unknown; exactNumbers: boolean } {
  if (typeof input === 'string' || input instanceof Uint8Array) {
    const text =
      typeof input === 'string'
        ? input
        : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
    try {
      return { value: parseJsonText(text), exactNumbers: true };
    } catch (e) {
      assertIsError(e);
      throw malformed(entity, path, `is not valid JSON (${e.message})`, e);
    }
  }
  try {
    return { value: cloneJson(input, 0), exactNumbers: false };
  } catch (e) {
    if (!(e instanceof NotJson)) throw e;
    // The copy builds no paths (every client reads every version); the failure's path is found again.
    const bad = findNotJson(input, path, 0);
    throw malformed(entity, bad?.path ?? path, bad?.problem ?? e.message);
  }
}

/** Thrown by {@link cloneJson} for a value JSON cannot hold; {@link findNotJson} then says where. */
class NotJson extends Error {}

/** Why `value` is not JSON as a leaf or container (not looking inside), or undefined when it may be. */
function notJsonProblem(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `is ${value}, which JSON cannot hold`;
  if (typeof value !== 'object' || depth >= MAX_JSON_DEPTH) return 'is not a JSON value';
  if (Array.isArray(value)) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto !== Object.prototype && proto !== null ? 'is not a plain JSON object' : undefined;
}

/**
 * Deep-copies an already-parsed value, checking that it is JSON: the model must not alias the caller's
 * objects, and a function or NaN must fail here rather than in the writer. `undefined` members are dropped.
 * @throws NotJson, without a path ({@link findNotJson} finds it).
 */
function cloneJson(value: unknown, depth: number): unknown {
  const problem = notJsonProblem(value, depth);
  if (problem !== undefined) throw new NotJson(problem);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    // A hole stays a hole, as Array.prototype.map leaves it.
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) copy[i] = cloneJson(value[i], depth + 1);
    return copy;
  }
  const object = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const member = object[key];
    if (member !== undefined) defineEntry(copy, key, cloneJson(member, depth + 1));
  }
  return copy;
}

/** The first value {@link cloneJson} refuses, in its order, with its path and problem; undefined when none. */
function findNotJson(value: unknown, path: string, depth: number): { path: string; problem: string } | undefined {
  const problem = notJsonProblem(value, depth);
  if (problem !== undefined) return { path, problem };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = i in value ? findNotJson(value[i], `${path}[${i}]`, depth + 1) : undefined;
      if (bad) return bad;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      const bad = member === undefined ? undefined : findNotJson(member, fieldPath(path, key), depth + 1);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** Whether a plain object has any key (without building the list of keys). */
export function hasOwnKeys(object: Record<string, unknown>): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Path of a schema key: `a.b`. */
export function fieldPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Path of a map entry or other user-chosen key: `a["http://h:1"]`. */
export function entryPath(path: string, key: string): string {
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * Typed access to the members of one JSON object, each failure naming `path.key`. "Optional" getters
 * return the default when the key is absent or null; "required" ones fail then.
 */
export class ObjectReader {
  /** {@link path} once built; a nested object's is built only when asked for. */
  private pathText: string | undefined;

  /**
   * @param pathOrKey - the root's path (`''`); for a nested object (`parent` given), the key it sits
   * under in `parent`: its path is built only when asked for (an error to report), since every client
   * reads every write of every cluster it follows and almost none of them has one.
   * @param as - whether `pathOrKey` is a schema key (`a.b`) or a map entry (`a["k"]`).
   * @param index - the object's index in the list under that key, or -1.
   */
  constructor(
    private readonly source: Source,
    /** The object being read. */
    readonly object: Record<string, unknown>,
    private readonly pathOrKey: string,
    private readonly parent?: ObjectReader,
    private readonly as: 'field' | 'entry' = 'field',
    private readonly index = -1,
  ) {
    if (parent === undefined) this.pathText = pathOrKey;
  }

  /** Path of this object in the document; `''` for the root. */
  get path(): string {
    if (this.pathText === undefined) {
      const parent = this.parent!.path;
      const path = this.as === 'field' ? fieldPath(parent, this.pathOrKey) : entryPath(parent, this.pathOrKey);
      this.pathText = this.index < 0 ? path : `${path}[${this.index}]`;
    }
    return this.pathText;
  }

  /** True when the document was JSON text, so number literal kinds are known (see {@link isDecimal}). */
  get exactNumbers(): boolean {
    return this.source.exactNumbers;
  }

  /** The member's value; `undefined` when absent (inherited properties do not count). */
  raw(key: string): unknown {
    // Most keys asked for are absent: undefined needs no ownership check (every read asks every key).
    const value = this.object[key];
    return value === undefined || Object.hasOwn(this.object, key) ? value : undefined;
  }

  /** True when the member is present and not null. */
  has(key: string): boolean {
    const value = this.raw(key);
    return value !== undefined && value !== null;
  }

  /** True when the object has no members at all. */
  isEmpty(): boolean {
    return !hasOwnKeys(this.object);
  }

  /** The member's keys, in document order. */
  keys(): string[] {
    return Object.keys(this.object);
  }

  /** Builds the error for a member, by schema key (`dotted`) or by map key (`entry`). */
  fail(key: string, problem: string, as: 'field' | 'entry' = 'field'): D2MalformedError {
    const path = as === 'field' ? fieldPath(this.path, key) : entryPath(this.path, key);
    return malformed(this.source.entity, path, problem);
  }

  /** A string; fails when absent, null or another type. */
  requiredString(key: string): string {
    const value = this.raw(key);
    if (typeof value === 'string') {
      return value;
    }
    throw this.fail(key, value === undefined || value === null ? 'is missing or null' : 'must be a string');
  }

  /** A string, or `fallback` when absent or null. */
  optionalString<D extends string | null>(key: string, fallback: D): string | D {
    return this.has(key) ? this.requiredString(key) : fallback;
  }

  /** A strict JSON boolean; a string such as `"true"` fails, as rest.li's Boolean cast does. */
  optionalBoolean(key: string, fallback: boolean): boolean {
    const value = this.raw(key);
    if (value === undefined || value === null) {
      return fallback;
    }
    if (typeof value !== 'boolean') {
      throw this.fail(key, 'must be a JSON boolean');
    }
    return value;
  }

  /** A strict JSON boolean that must be present. */
  requiredBoolean(key: string): boolean {
    if (!this.has(key)) {
      throw this.fail(key, 'is missing or null');
    }
    return this.optionalBoolean(key, false);
  }

  /** Any JSON number (rest.li's `Number` cast). */
  requiredNumber(key: string): number {
    const value = this.raw(key);
    if (typeof value === 'number') {
      return value;
    }
    throw this.fail(key, value === undefined || value === null ? 'is missing or null' : 'must be a number');
  }

  /** A Java Integer: a number literal without fraction or exponent, in 32-bit range. */
  requiredInt32(key: string): number {
    const value = this.requiredNumber(key);
    if (this.isDecimal(key) || !Number.isInteger(value)) {
      throw this.fail(key, 'must be a JSON integer (no decimal point or exponent)');
    }
    if (value < INT32_MIN || value > INT32_MAX) {
      throw this.fail(key, 'must fit in a 32-bit integer');
    }
    return value;
  }

  /** A Java Integer (see {@link requiredInt32}), or `fallback` when absent or null. */
  optionalInt32(key: string, fallback: number): number {
    return this.has(key) ? this.requiredInt32(key) : fallback;
  }

  /** A Java Double: a number literal with a decimal point or exponent (`1` fails, `1.0` works). */
  requiredDouble(key: string): number {
    const value = this.requiredNumber(key);
    if (this.exactNumbers && !this.isDecimal(key)) {
      throw this.fail(key, 'must be a number with a decimal point (1.0, not 1)');
    }
    return value;
  }

  /** Whether the member was written as a decimal literal; always false for already-parsed input. */
  isDecimal(key: string): boolean {
    return this.exactNumbers && isDecimalLiteral(this.object, key);
  }

  /** A nested object, or null when absent or null. */
  optionalObject(key: string): ObjectReader | null {
    const value = this.raw(key);
    if (value === undefined || value === null) {
      return null;
    }
    if (!isJsonObject(value)) {
      throw this.fail(key, 'must be a JSON object');
    }
    return new ObjectReader(this.source, value, key, this);
  }

  /** A nested object that must be present. */
  requiredObject(key: string): ObjectReader {
    const reader = this.optionalObject(key);
    if (reader === null) {
      throw this.fail(key, 'is missing or null');
    }
    return reader;
  }

  /** A map entry (user-chosen key) that must hold an object. */
  entryObject(key: string): ObjectReader {
    const value = this.raw(key);
    if (!isJsonObject(value)) {
      throw this.fail(key, 'must be a JSON object', 'entry');
    }
    return new ObjectReader(this.source, value, key, this, 'entry');
  }

  /** An opaque map, `{}` when absent or null. The parsed object itself is returned, not a copy. */
  map(key: string): Record<string, unknown> {
    return this.optionalObject(key)?.object ?? {};
  }

  /** An opaque map, or null when absent or null. */
  nullableMap(key: string): Record<string, unknown> | null {
    return this.optionalObject(key)?.object ?? null;
  }

  /** An opaque list, or null when absent or null. */
  nullableList(key: string): unknown[] | null {
    const value = this.raw(key);
    if (value === undefined || value === null) {
      return null;
    }
    if (!Array.isArray(value)) {
      throw this.fail(key, 'must be a JSON array');
    }
    return value;
  }

  /** An opaque list, `[]` when absent or null. */
  list(key: string): unknown[] {
    return this.nullableList(key) ?? [];
  }

  /** A list of strings, `[]` when absent or null. */
  stringList(key: string): string[] {
    const list = this.list(key);
    list.forEach((item, i) => {
      if (typeof item !== 'string') {
        throw malformed(this.source.entity, `${fieldPath(this.path, key)}[${i}]`, 'must be a string');
      }
    });
    return list as string[];
  }

  /** A list of objects, `[]` when absent or null. */
  objectList(key: string): ObjectReader[] {
    return this.list(key).map((item, i) => {
      if (!isJsonObject(item)) {
        throw malformed(this.source.entity, `${fieldPath(this.path, key)}[${i}]`, 'must be a JSON object');
      }
      return new ObjectReader(this.source, item, key, this, 'field', i);
    });
  }

  /**
   * Like {@link extra}, but undefined when every key is known: no object is made for the common case
   * (a failout entry has no unknown keys, and every client reads every failout write).
   */
  unknownKeys(known: ReadonlySet<string>): Record<string, unknown> | undefined {
    for (const key in this.object) {
      if (Object.hasOwn(this.object, key) && !known.has(key)) return this.extra(known);
    }
    return undefined;
  }

  /**
   * The members whose keys are not in `known`, in a new object, for the model's `extra`. Values are
   * shared with the parsed document, and number literal kinds are carried over for the writer.
   */
  extra(known: ReadonlySet<string>): Record<string, unknown> {
    const extra: Record<string, unknown> = {};
    // for…in, not Object.keys: no array per object, and every client reads every write.
    for (const key in this.object) {
      if (Object.hasOwn(this.object, key) && !known.has(key)) {
        defineEntry(extra, key, this.object[key]);
        copyLiteralKind(this.object, key, extra, key);
      }
    }
    return extra;
  }

}
