/**
 * Typed errors of lib/requests (house rule 6). Branch on `kind` or `instanceof`, never on messages.
 *
 * A request that can never succeed is not an error here: it is a {@link Rejection} (see
 * `rejection.ts`), recorded and acknowledged. Errors are what must NOT be acknowledged: the SQS message
 * stays on the queue, is retried, and finally lands in the DLQ.
 */

/**
 * - `transient`: retrying later may succeed (connection loss, expired session, CAS contention past
 *   the retry budget). Always a {@link TransientRequestError}.
 * - `notAuthorized`: ZooKeeper refused the write (`NO_AUTH`): the writer lacks the digest credential
 *   the cluster node's ACL asks for. A deployment fault; the message must not be lost, so it is not
 *   acknowledged either.
 * - `invalidConfig`: the environment configuration is missing or malformed; `variable` names it.
 * - `corruptRecord`: a request record in ZooKeeper is not a record this code wrote.
 * - `invalidArgument`: a caller passed something unusable (a request id that is no znode name).
 * - `access`: the writer refuses to start writing: ZooKeeper holds nodes of its tree that anyone could
 *   change, or it has no credential (docs/deployers.md "Access control"; `failout zk secure`, or
 *   `FAILOUT_ALLOW_OPEN_ACL=1`). Not acknowledged: the messages wait until the tree is secured.
 */
export type RequestErrorKind = 'transient' | 'notAuthorized' | 'invalidConfig' | 'corruptRecord' | 'invalidArgument' | 'access';

/** Why a {@link TransientRequestError} is transient. */
export type TransientReason = 'connectionLoss' | 'sessionExpired' | 'timeout' | 'sessionClosed' | 'retryBudgetSpent';

/** Optional details of a {@link RequestError}. */
export interface RequestErrorOptions {
  /** The underlying error; becomes the error's `cause`. */
  readonly cause?: unknown;
  /** The request concerned, when known. */
  readonly requestId?: string;
  /** The cluster concerned, when known. */
  readonly cluster?: string;
  /** For `invalidConfig`: the environment variable at fault. */
  readonly variable?: string;
}

/** The base error of lib/requests. */
export class RequestError extends Error {
  /** `RequestError`, or the subclass's name. */
  override readonly name: string = 'RequestError';
  /** The request concerned, when known. */
  readonly requestId: string | undefined;
  /** The cluster concerned, when known. */
  readonly cluster: string | undefined;
  /** For `invalidConfig`: the environment variable at fault. */
  readonly variable: string | undefined;

  constructor(
    /** What went wrong; branch on this. */
    readonly kind: RequestErrorKind,
    message: string,
    options: RequestErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.requestId = options.requestId;
    this.cluster = options.cluster;
    this.variable = options.variable;
  }
}

/**
 * A failure that a later delivery may not meet. The Lambda handler reports the record (and, with
 * `skipGroupOnError`, the rest of its FIFO group) as a batch item failure.
 */
export class TransientRequestError extends RequestError {
  /** Always `TransientRequestError`. */
  override readonly name = 'TransientRequestError';

  constructor(
    /** Why the failure is transient. */
    readonly reason: TransientReason,
    message: string,
    options: Omit<RequestErrorOptions, 'variable'> = {},
  ) {
    super('transient', message, options);
  }
}

/** True for a {@link RequestError}, optionally of one of the given kinds. */
export function isRequestError(error: unknown, ...kinds: RequestErrorKind[]): error is RequestError {
  return error instanceof RequestError && (kinds.length === 0 || kinds.includes(error.kind));
}

/** Narrows a caught value to `Error`, wrapping anything else. Use it first thing in every `catch`. */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}
