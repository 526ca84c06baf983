/**
 * Errors raised by lib/xds. Branch on `kind` (or `instanceof XdsError`), never on the message.
 *
 * Public names (stable; other lib/xds modules depend on them):
 * - `XdsErrorKind` — literal union of kinds. Only ever ADD kinds; never rename.
 * - `XdsError` — the one error class (`kind`, `name`, `cause`, optional `field`, `serverUri`,
 *   `resourceName`, `typeUrl`).
 * - `XdsErrorOptions` — constructor options.
 * - `assertIsError(e)` — narrows `unknown` from a catch to `Error`.
 * - `isXdsError(e, ...kinds)` — type guard.
 *
 * The kinds mirror grpc-go's `xdsresource.ErrorType` (errors.go): Connection, ResourceNotFound,
 * ResourceTypeUnsupported, StreamFailedAfterRecv, NACKed — plus our own.
 */
import { types } from 'node:util';

/** What went wrong, as a caller branches on it. */
export type XdsErrorKind =
  /** The bootstrap configuration is invalid; `field` names the bad field. */
  | 'bootstrap'
  /** ADS/LRS connectivity failure (gRFC A57: TRANSIENT_FAILURE or stream closed before a response). */
  | 'connection'
  /** The resource does not exist (does-not-exist timer fired, or SotW deletion for LDS/CDS). */
  | 'resourceNotFound'
  /** A type URL this library does not handle. */
  | 'resourceTypeUnsupported'
  /** The stream failed after at least one response: not a connectivity failure (gRFC A57). */
  | 'streamFailedAfterRecv'
  /** The client NACKed the resource (or the server reports a NACK). */
  | 'nacked'
  /** A resource failed validation; the message goes into the NACK's error_detail. */
  | 'validation'
  /** The object was closed. */
  | 'closed';

/** Optional context carried by an {@link XdsError}. */
export interface XdsErrorOptions {
  /** For 'bootstrap' (and 'validation'): the path of the bad field, e.g. `xds_servers[1].server_uri`. */
  field?: string;
  /** The xDS server the error is about. */
  serverUri?: string;
  /** The resource the error is about. */
  resourceName?: string;
  /** The resource type URL the error is about. */
  typeUrl?: string;
  /** The underlying error. */
  cause?: unknown;
}

/** Every error lib/xds rejects with or reports to watchers. */
export class XdsError extends Error {
  /** Always 'XdsError'. */
  override readonly name = 'XdsError';
  /** For 'bootstrap' / 'validation': the path of the offending field. */
  readonly field: string | undefined;
  /** The xDS server the error is about, when known. */
  readonly serverUri: string | undefined;
  /** The resource the error is about, when known. */
  readonly resourceName: string | undefined;
  /** The type URL the error is about, when known. */
  readonly typeUrl: string | undefined;

  constructor(
    /** What went wrong; branch on this, never on the message. */
    readonly kind: XdsErrorKind,
    message: string,
    options: XdsErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.field = options.field;
    this.serverUri = options.serverUri;
    this.resourceName = options.resourceName;
    this.typeUrl = options.typeUrl;
  }
}

/**
 * Narrows `unknown` from a `catch` to `Error`, wrapping anything else. Uses `isNativeError` as well as
 * `instanceof`, because errors from Node built-ins come from another realm under jest's VM sandbox.
 */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error) && !types.isNativeError(error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}

/** True for an {@link XdsError} of one of the given kinds (any kind when none is given). */
export function isXdsError(error: unknown, ...kinds: XdsErrorKind[]): error is XdsError {
  return error instanceof XdsError && (kinds.length === 0 || kinds.includes(error.kind));
}
