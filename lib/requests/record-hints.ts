import { isValidName } from './names';
import { cutText } from './rejection';
import { MAX_RECORDED_REQUEST_REASON, RECORD_ACTIONS, type RecordAction, type RequestRecord } from './request-record';
import type { ChangeRequest } from './schema';

/** Where a request came from. */
export interface RequestMeta {
  /** The SQS message id: the record's name when the request has no usable id. */
  readonly messageId: string;
}

/** What the record says of a request, as far as it is known. */
export interface Hints {
  readonly cluster: string | null;
  /** A fabric action's fabric. */
  readonly fabric?: string | undefined;
  readonly action: RecordAction | null;
  readonly requestedBy?: string | undefined;
  /** A guard's restore: the alarm that caused it. */
  readonly stoppedByAlarm?: string | undefined;
  /** The request's own reason, cut to the record's bound. */
  readonly requestReason?: string | undefined;
}

/** What the record says of a request naming a cluster. */
export function clusterHints(request: ChangeRequest): Hints {
  return {
    cluster: request.cluster,
    action: request.action,
    requestedBy: request.requestedBy,
    stoppedByAlarm: request.action === 'restore' ? request.stoppedByAlarm : undefined,
    requestReason: request.reason === undefined ? undefined : cutText(request.reason, MAX_RECORDED_REQUEST_REASON),
  };
}

/** What the record says of a request naming a fabric, not a cluster (a map change, a drain test's drill action, an evacuation). */
export function fabricHints(request: { readonly fabric: string; readonly action: RecordAction; readonly requestedBy?: string; readonly reason?: string }, stoppedByAlarm?: string): Hints {
  return {
    cluster: null,
    fabric: request.fabric,
    action: request.action,
    requestedBy: request.requestedBy,
    stoppedByAlarm,
    requestReason: request.reason === undefined ? undefined : cutText(request.reason, MAX_RECORDED_REQUEST_REASON),
  };
}

/** Cluster and action of a body that failed validation, when it names them plainly. */
export function hintsOf(body: string): Hints {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { cluster: null, action: null };
  }
  if (typeof json !== 'object' || json === null) return { cluster: null, action: null };
  const { cluster, action } = json as { cluster?: unknown; action?: unknown };
  return {
    cluster: typeof cluster === 'string' && isValidName(cluster) ? cluster : null,
    action: typeof action === 'string' && (RECORD_ACTIONS as readonly string[]).includes(action) ? (action as RecordAction) : null,
  };
}

/** The fields every record of a request carries, whatever became of it. */
export function recordBase(requestId: string, hints: Hints, meta: RequestMeta, now: number): Omit<RequestRecord, 'status' | 'clusterVersion'> {
  return {
    requestId,
    cluster: hints.cluster,
    ...(hints.fabric === undefined ? {} : { fabric: hints.fabric }),
    action: hints.action,
    appliedAt: now,
    messageId: meta.messageId,
    ...(hints.requestedBy === undefined ? {} : { requestedBy: hints.requestedBy }),
    ...(hints.stoppedByAlarm === undefined ? {} : { stoppedByAlarm: hints.stoppedByAlarm }),
    ...(hints.requestReason === undefined ? {} : { requestReason: hints.requestReason }),
  };
}
