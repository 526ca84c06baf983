/**
 * Why a change request was refused for good. A rejection is recorded under the request's id (or the
 * SQS message id when the request has none) and the message is acknowledged: it never blocks the FIFO
 * group of its cluster and is never retried.
 */

/** Every permanent rejection reason, in the order the checks run. */
export const REJECTION_REASONS = [
  /** The body is larger than `maxBodyBytes`. */
  'oversize',
  /** The body is not JSON. */
  'badJson',
  /** The JSON breaks the version 1 schema; the message names every problem. */
  'badSchema',
  /** `cluster`, a peer or `requestId` is not a valid D2 name (a single znode name, bounded length). */
  'badName',
  /** A peer is the cluster itself. */
  'peerIsCluster',
  /** A peer is listed twice. */
  'duplicatePeer',
  /** More peers than `maxPeers`. */
  'tooManyPeers',
  /** A failout without `onlineAt` or `duration`. */
  'missingEnd',
  /** The window ends before it starts, or already ended, or both `onlineAt` and `duration` are given. */
  'badWindow',
  /** The window ends more than the configured maximum (default 72 h) ahead. */
  'windowTooLong',
  /** No `/d2/clusters/<cluster>` node. */
  'unknownCluster',
  /** The cluster's JSON cannot be read, so it cannot be rewritten safely. */
  'malformedCluster',
  /** A peer has no cluster node. Not overridden by `force`. */
  'unknownPeer',
  /** A peer is failed out itself at the time of application. Overridden by `force`. */
  'peerFailedOut',
  /** No peer has any announced host. Overridden by `force`. */
  'noPeerWithHosts',
] as const;

/** One of {@link REJECTION_REASONS}. */
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** A permanent refusal: the first reason found, and a message naming every problem. */
export interface Rejection {
  /** The reason of the first problem found. */
  readonly reason: RejectionReason;
  /** Human-readable, says what is wrong and where (`peers[1].cluster: ...`); problems joined by `; `. */
  readonly message: string;
  /** The request's id when it could be read (a valid name), so the rejection is recorded under it. */
  readonly requestId?: string;
}

/** A problem found by a check: its reason and what to tell the operator. */
export interface Problem {
  /** Which check failed. */
  readonly reason: RejectionReason;
  /** What is wrong and where, e.g. `peers[1].cluster: "x" is listed twice`. */
  readonly message: string;
}

/** Folds problems into one rejection: the first problem's reason, every message. */
export function rejectionOf(problems: readonly Problem[], requestId?: string): Rejection {
  const first = problems[0];
  if (!first) throw new Error('rejectionOf needs at least one problem');
  const message = problems.map((p) => p.message).join('; ');
  return requestId === undefined ? { reason: first.reason, message } : { reason: first.reason, message, requestId };
}
