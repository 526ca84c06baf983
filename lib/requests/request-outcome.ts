import type { RejectionReason } from './rejection';
import type { RequestRecord, RequestStatus } from './request-record';

/** What became of one request; the message can be acknowledged. */
export interface Outcome {
  readonly status: RequestStatus;
  /** For `rejected` (and a duplicate of a rejected request): why. */
  readonly reason?: RejectionReason;
  /** The record's name: the request id, or the SQS message id. */
  readonly requestId: string;
  readonly cluster: string | null;
  /** The record as stored (for `duplicate`: the first delivery's record). */
  readonly record: RequestRecord;
  /** Attempts made (more than 1 after CAS conflicts). */
  readonly attempts: number;
}

/**
 * What one round of a request came to. `conflict`: the cluster (or a drill) changed under the
 * attempt; `viewConflict`: only the view of open failouts did, because a writer of another cluster
 * involved in the verdict got there first.
 */
export type Attempt = Omit<Outcome, 'attempts'> | 'conflict' | 'viewConflict';

/** The outcome a stored record stands for, reported with `status` (a redelivery's is `duplicate`). */
export function outcomeOf(record: RequestRecord, status: RequestStatus): Omit<Outcome, 'attempts'> {
  return {
    status,
    ...(record.reason === undefined ? {} : { reason: record.reason }),
    requestId: record.requestId,
    cluster: record.cluster,
    record,
  };
}
