/**
 * What every resource type module provides, and the shared decode plumbing.
 *
 * Public names (stable):
 * - `DecodeResult<V>` — `{ ok: true, name, value } | { ok: false, name?, error: XdsError }` (StatusOr
 *   style, grpc-js-xds). `error.kind` is 'validation'; `error.message` goes into the NACK's
 *   error_detail.
 * - `XdsResourceType<K, V>` — `{ kind, typeUrl, decode(any), isEqual(a, b), allResourcesRequiredInSotW }`.
 * - `deepEqual(a, b)` — structural equality of plain decoded values.
 * - `ValidationIssue` / `invalid(...)`, `decodeWith(...)` — helpers for the per-type files.
 */
import { XdsError } from '../errors';
import { type AnyMessage, decodeAnyForClient, unwrapResource } from '../protos';
import type { ResourceKind, XdsTypeUrl } from './type-urls';

/** The outcome of decoding one resource from a DiscoveryResponse. */
export type DecodeResult<V> =
  | {
      /** The resource decoded and validated. */
      readonly ok: true;
      /** The resource name. */
      readonly name: string;
      /** The decoded, validated value. */
      readonly value: V;
    }
  | {
      /** The resource was rejected; the response is NACKed. */
      readonly ok: false;
      /** The resource name, when it could be read. */
      readonly name?: string;
      /** Kind 'validation'; its message goes into the NACK's error_detail. */
      readonly error: XdsError;
    };

/** One resource type: its URL, decoder/validator and SotW semantics. */
export interface XdsResourceType<K extends ResourceKind, V> {
  /** The short name of this type, e.g. 'listener'. */
  readonly kind: K;
  /** The type URL of this type, e.g. `type.googleapis.com/envoy.config.listener.v3.Listener`. */
  readonly typeUrl: XdsTypeUrl;
  /**
   * Decodes and validates one Any from a response: unwraps `envoy.service.discovery.v3.Resource`,
   * checks the type URL, decodes, validates. Never throws. `wrapperName` is the name the response's
   * `Resource` wrapper gave an already unwrapped `any` (the ADS stream unwraps first): the envoy types
   * name themselves and ignore it; rest.li's `indis` messages carry no name, so theirs is the wrapper's.
   */
  decode(any: AnyMessage, wrapperName?: string): DecodeResult<V>;
  /** Deep equality of decoded values, so an unchanged resource can be skipped. */
  isEqual(a: V, b: V): boolean;
  /**
   * True for LDS/CDS: a SotW response carries every resource, so a previously seen name that is
   * absent has been deleted (xds_protocol.rst, "Deleting Resources"). False for RDS/EDS.
   */
  readonly allResourcesRequiredInSotW: boolean;
}

/** Thrown inside validators; `decodeWith` turns it into `{ ok: false }`. */
export class ValidationIssue extends Error {
  /** Always 'ValidationIssue'. */
  override readonly name = 'ValidationIssue';
}

/** Throws a {@link ValidationIssue} (for use in validators: `cond || invalid('...')`). */
export function invalid(message: string): never {
  throw new ValidationIssue(message);
}

/** Structural equality over plain data (objects, arrays, primitives, Buffers). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  const ra = a as Record<string, unknown>;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && deepEqual(ra[k], rb[k]));
}

/**
 * The common decode path: unwrap, check type URL, unpack, then `validate(raw)` which returns the
 * resource name and value or throws a {@link ValidationIssue}. Every failure becomes `{ ok: false }`
 * with an `XdsError` of kind 'validation' naming the resource when known.
 */
export function decodeWith<V>(
  typeUrl: XdsTypeUrl,
  any: AnyMessage,
  nameOf: (raw: Record<string, unknown>) => string,
  validate: (raw: Record<string, unknown>) => V,
): DecodeResult<V> {
  let name: string | undefined;
  try {
    const inner = unwrapResource(any).any;
    if (inner.type_url !== typeUrl) invalid(`wrong type ${inner.type_url}, expected ${typeUrl}`);
    const raw = decodeAnyForClient(inner);
    name = nameOf(raw) || undefined;
    if (!name) invalid('resource has no name');
    return { ok: true, name, value: validate(raw) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const prefix = name ? `${name}: ` : '';
    return {
      ok: false,
      ...(name ? { name } : {}),
      error: new XdsError('validation', `${prefix}${message}`, { typeUrl, resourceName: name, cause: e }),
    };
  }
}

/** Reads a field of a decoded message as a plain record (or undefined when null/absent). */
export function rec(raw: unknown, key: string): Record<string, unknown> | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const v = (raw as Record<string, unknown>)[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Reads a repeated field (empty when absent). */
export function list(raw: Record<string, unknown> | undefined, key: string): Record<string, unknown>[] {
  const v = raw?.[key];
  return Array.isArray(v) ? (v as Record<string, unknown>[]) : [];
}

/** Reads a string field ('' when absent). */
export function str(raw: Record<string, unknown> | undefined, key: string): string {
  const v = raw?.[key];
  return typeof v === 'string' ? v : '';
}

/** Reads a `google.protobuf.UInt32Value` wrapper field; `fallback` when unset. */
export function u32(raw: Record<string, unknown> | undefined, key: string, fallback: number): number {
  const w = rec(raw, key);
  return w && typeof w.value === 'number' ? w.value : fallback;
}
