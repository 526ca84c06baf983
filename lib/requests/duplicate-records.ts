import type { ZkReader } from '../zk';
import { decodeRequestRecord, requestRecordPath, type RequestRecord } from './request-record';
import { isRequestError } from './errors';
import { outcomeOf, unreadableDuplicateOf, type Attempt, type DeliveryFields } from './request-outcome';
import { classifySessionError } from './session-errors';

/** Where the request records are read. */
export interface RecordLocation {
  readonly session: ZkReader;
  readonly requestsPath: string;
}

/** The record of a request id (or message id), or undefined when there is none; session errors classified. */
export async function readRecord(source: RecordLocation, id: string): Promise<RequestRecord | undefined> {
  try {
    const node = await source.session.read(requestRecordPath(source.requestsPath, id));
    return node.exists ? decodeRequestRecord(node.data) : undefined;
  } catch (e) {
    throw classifySessionError(e);
  }
}

/**
 * A redelivery, once its record's create failed on an existing node: the first delivery's record as
 * a `duplicate`, or `conflict` when the record is gone again. A record that exists but cannot be read
 * is a duplicate too (`unreadableRecord` says why): it was created with the change, so the request was
 * handled, and retrying could never read it either, only hold up the cluster's FIFO group until the
 * DLQ. `delivery` is what this delivery knows of itself, the outcome's stand-in record then.
 */
export async function duplicateOf(source: RecordLocation, id: string, delivery: DeliveryFields): Promise<Attempt> {
  let existing: RequestRecord | undefined;
  try {
    existing = await readRecord(source, id);
  } catch (e) {
    if (!isRequestError(e, 'corruptRecord')) throw e;
    return unreadableDuplicateOf(delivery, e.message);
  }
  // Deleted between our create and this read (an operator cleaning up): decide again.
  if (!existing) return 'conflict';
  return outcomeOf(existing, 'duplicate');
}

/** The duplicate when the request's record exists already (looked up before anything is judged), else undefined. */
export async function duplicateIfRecorded(source: RecordLocation, id: string, delivery: DeliveryFields): Promise<Attempt | undefined> {
  const existing = await source.session.read(requestRecordPath(source.requestsPath, id));
  if (existing.exists) return duplicateOf(source, id, delivery);
  return undefined;
}
