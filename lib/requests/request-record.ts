import { z } from 'zod';
import { RequestError } from './errors';
import { nameProblem } from './names';
import { REJECTION_REASONS, type RejectionReason } from './rejection';

/**
 * The request record (ARCHITECTURE.md "Request record"): `/failout/requests/<requestId>`, created in
 * the same ZooKeeper multi as the cluster write it reports, so it exists exactly when the effect does.
 * Rejections are recorded too, under the request id or, when the request has no usable id, the SQS
 * message id. The writer never stores `duplicate`; it is what a second delivery is answered with.
 */

/** Default parent of the records. */
export const DEFAULT_REQUESTS_PATH = '/failout/requests';

/** What happened to a request. */
export type RequestStatus = 'applied' | 'rejected' | 'duplicate';

/** One request record. */
export interface RequestRecord {
  /** The request's id, or the SQS message id for a rejection without a usable request id; the record's node name. */
  readonly requestId: string;
  /** `applied` or `rejected` (`duplicate` is never stored). */
  readonly status: RequestStatus;
  /** For `rejected`: why. */
  readonly reason?: RejectionReason;
  /** For `rejected`: what to tell the operator (every problem named). */
  readonly message?: string;
  /** The cluster, or null when the body did not say (bad JSON). */
  readonly cluster: string | null;
  /** `failout` or `restore`, or null when the body did not say. */
  readonly action: 'failout' | 'restore' | null;
  /** Epoch ms at which the writer decided. */
  readonly appliedAt: number;
  /** For `applied`: the cluster node's data version the write produced; for `rejected`: the version judged, or null. */
  readonly clusterVersion: number | null;
  /** The SQS message that carried the request. */
  readonly messageId?: string;
  /** Who asked, when the request said. */
  readonly requestedBy?: string;
}

const recordSchema = z.object({
  requestId: z.string().min(1),
  status: z.enum(['applied', 'rejected', 'duplicate']),
  reason: z.enum(REJECTION_REASONS).optional(),
  message: z.string().optional(),
  cluster: z.string().nullable(),
  action: z.enum(['failout', 'restore']).nullable(),
  appliedAt: z.number(),
  clusterVersion: z.number().int().nullable(),
  messageId: z.string().optional(),
  requestedBy: z.string().optional(),
});

/** `<base>/<id>`; `base` defaults to `/failout/requests`. @throws RequestError `invalidArgument` for an id that is no znode name. */
export function requestRecordPath(base: string = DEFAULT_REQUESTS_PATH, id: string): string {
  const problem = nameProblem(id, 'request id');
  if (problem) throw new RequestError('invalidArgument', problem.message, { requestId: id });
  return `${base.replace(/\/+$/, '')}/${id}`;
}

/** The record as stored: compact JSON, UTF-8. */
export function encodeRequestRecord(record: RequestRecord): Buffer {
  return Buffer.from(JSON.stringify(record), 'utf8');
}

/** Reads a stored record. @throws RequestError `corruptRecord` naming every problem. */
export function decodeRequestRecord(data: Buffer | string): RequestRecord {
  let json: unknown;
  try {
    json = JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch (e) {
    throw new RequestError('corruptRecord', 'request record is not JSON', { cause: e });
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`).join('; ');
    throw new RequestError('corruptRecord', `request record is malformed: ${problems}`);
  }
  return stripUndefined(parsed.data);
}

function stripUndefined(record: z.output<typeof recordSchema>): RequestRecord {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as unknown as RequestRecord;
}
