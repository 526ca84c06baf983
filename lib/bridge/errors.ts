import { types } from 'node:util';

/**
 * What went wrong in the bridge, as a caller branches on it:
 * - `config`: the configuration is invalid; `field` names the bad field (e.g. `services[1].name`).
 * - `mapping`: an xDS value cannot be expressed as D2 data (e.g. a cluster name that is no znode name).
 * - `sync`: a ZooKeeper write batch failed for a reason other than lost leadership.
 * - `notLeader`: a write was refused because this replica does not lead (fencing).
 * - `closed`: the bridge was stopped.
 * - `access`: the bridge refuses to write: it has no ZooKeeper credential, or its tree holds nodes
 *   anyone could change (docs/deployers.md "Access control"; `failout zk secure`, or `allowOpenAcl`).
 */
export type BridgeErrorKind = 'config' | 'mapping' | 'sync' | 'notLeader' | 'closed' | 'access';

/** Every error lib/bridge throws or reports. Branch on `kind`, never on `message`. */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  /** For `config`: the path of the offending field. */
  readonly field: string | undefined;

  constructor(
    readonly kind: BridgeErrorKind,
    message: string,
    options: { field?: string; cause?: unknown } = {},
  ) {
    super(options.field !== undefined ? `${options.field}: ${message}` : message, { cause: options.cause });
    this.field = options.field;
  }
}

/** True for a {@link BridgeError} of one of the given kinds (any kind when none is given). */
export function isBridgeError(error: unknown, ...kinds: BridgeErrorKind[]): error is BridgeError {
  return error instanceof BridgeError && (kinds.length === 0 || kinds.includes(error.kind));
}

/** Narrows `unknown` from a `catch` to `Error`, wrapping anything else (cross-realm safe). */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error) && !types.isNativeError(error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}
