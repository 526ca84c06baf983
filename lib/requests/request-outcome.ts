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
  /**
   * The record as stored (for `duplicate`: the first delivery's record; when that cannot be read, a
   * stand-in of status `duplicate` with what this delivery knows, never stored: see `unreadableRecord`).
   */
  readonly record: RequestRecord;
  /**
   * For a `duplicate` whose stored record cannot be read (not JSON, not a record): why. Its existence
   * still says the request was handled (the record is created in the multi of the change), so the
   * redelivery is acknowledged, never retried into the DLQ; the handler warns and counts it.
   */
  readonly unreadableRecord?: string;
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

/** What a delivery knows of itself whatever became of it: the fields every record carries (`recordBase`). */
export type DeliveryFields = Pick<RequestRecord, 'requestId' | 'cluster' | 'fabric' | 'action' | 'appliedAt' | 'messageId'>;

/**
 * The outcome of a redelivery whose first record exists but cannot be read (`reason`): a `duplicate`
 * whose record is a stand-in built from this delivery (status `duplicate`, no version), never stored.
 */
export function unreadableDuplicateOf(delivery: DeliveryFields, reason: string): Omit<Outcome, 'attempts'> {
  const { requestId, cluster, fabric, action, appliedAt, messageId } = delivery;
  const record: RequestRecord = {
    requestId,
    status: 'duplicate',
    cluster,
    ...(fabric === undefined ? {} : { fabric }),
    action,
    appliedAt,
    clusterVersion: null,
    ...(messageId === undefined ? {} : { messageId }),
  };
  return { status: 'duplicate', requestId, cluster, record, unreadableRecord: reason };
}
