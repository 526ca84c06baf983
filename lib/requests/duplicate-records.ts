import type { ZkReader } from '../zk';
import { decodeRequestRecord, requestRecordPath, type RequestRecord } from './request-record';
import { outcomeOf, type Attempt } from './request-outcome';
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
 * a `duplicate`, or `conflict` when the record is gone again.
 */
export async function duplicateOf(source: RecordLocation, id: string): Promise<Attempt> {
  const existing = await readRecord(source, id);
  // Deleted between our create and this read (an operator cleaning up): decide again.
  if (!existing) return 'conflict';
  return outcomeOf(existing, 'duplicate');
}

/** The duplicate when the request's record exists already (looked up before anything is judged), else undefined. */
export async function duplicateIfRecorded(source: RecordLocation, id: string): Promise<Attempt | undefined> {
  const existing = await source.session.read(requestRecordPath(source.requestsPath, id));
  if (existing.exists) return duplicateOf(source, id);
  return undefined;
}
