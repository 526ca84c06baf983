/**
 * Typed reads of untrusted JSON that name the offending field (`xds_servers[1].server_uri`).
 *
 * The bootstrap used to be checked with zod; zod costs a process about 6 MiB of RSS at load, which
 * is a tenth of what the whole xDS client may use (bench/xds-throughput), for a dozen fields read once.
 * These readers do the same checks with the same field paths.
 */

/** A value at `field` is not what the reader expects. */
export class JsonFieldError extends Error {
  override readonly name = 'JsonFieldError';
  constructor(
    /** Path of the bad field, e.g. `xds_servers[1].server_uri`; '' for the root. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Reads the value at `field`; throws {@link JsonFieldError}. */
export type FieldReader<T> = (value: unknown, field: string) => T;

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function expected(what: string, value: unknown, field: string): never {
  throw new JsonFieldError(field, `expected ${what}, got ${kindOf(value)}`);
}

/** `parent.key` for a field path (no leading dot at the root). */
export const child = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);

/** A plain object. */
export const object: FieldReader<Record<string, unknown>> = (v, field) =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : expected('an object', v, field);

/** A string; `nonEmpty` rejects ''. */
export const string =
  (opts: { nonEmpty?: boolean } = {}): FieldReader<string> =>
  (v, field) => {
    if (typeof v !== 'string') return expected('a string', v, field);
    if (opts.nonEmpty && v.length === 0) throw new JsonFieldError(field, 'must not be empty');
    return v;
  };

/** A boolean. */
export const boolean: FieldReader<boolean> = (v, field) => (typeof v === 'boolean' ? v : expected('a boolean', v, field));

/** An integer > 0. */
export const positiveInteger: FieldReader<number> = (v, field) => {
  if (typeof v !== 'number') return expected('a number', v, field);
  if (!Number.isInteger(v) || v <= 0) throw new JsonFieldError(field, `expected a positive integer, got ${v}`);
  return v;
};

/** An array whose items `item` reads; `minItems` rejects shorter ones. */
export const array =
  <T>(item: FieldReader<T>, opts: { minItems?: number } = {}): FieldReader<T[]> =>
  (v, field) => {
    if (!Array.isArray(v)) return expected('an array', v, field);
    if (opts.minItems !== undefined && v.length < opts.minItems) {
      throw new JsonFieldError(field, `expected at least ${opts.minItems} item${opts.minItems === 1 ? '' : 's'}`);
    }
    return v.map((x, i) => item(x, `${field}[${i}]`));
  };

/** An object used as a map; `item` reads each value. */
export const record =
  <T>(item: FieldReader<T>): FieldReader<Record<string, T>> =>
  (v, field) =>
    Object.fromEntries(Object.entries(object(v, field)).map(([k, x]) => [k, item(x, child(field, k))]));

/** `obj[key]` read by `read`, or undefined when absent (undefined or null). */
export function optionalField<T>(obj: Record<string, unknown>, key: string, parent: string, read: FieldReader<T>): T | undefined {
  const v = obj[key];
  return v === undefined || v === null ? undefined : read(v, child(parent, key));
}

/** `obj[key]` read by `read`; absent is an error. */
export function requiredField<T>(obj: Record<string, unknown>, key: string, parent: string, read: FieldReader<T>): T {
  const v = obj[key];
  if (v === undefined || v === null) throw new JsonFieldError(child(parent, key), 'is required');
  return read(v, child(parent, key));
}

/** Rejects keys outside `allowed` (for our own sections, where a misspelling must not pass silently). */
export function onlyKeys(obj: Record<string, unknown>, allowed: readonly string[], field: string): void {
  const unknown = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new JsonFieldError(field, `unrecognized keys (${unknown.join(', ')}); allowed: ${allowed.join(', ')}`);
}
