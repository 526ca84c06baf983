import { z } from 'zod';
import { RequestError } from './errors';
import { requestIdProblem } from './names';
import { cutText, REJECTION_REASONS, type RejectionReason } from './rejection';

/**
 * The request record (ARCHITECTURE.md "Request record"): `/failout/requests/<requestId>`, created in
 * the same ZooKeeper multi as the cluster write it reports, so it exists exactly when the effect does.
 * Rejections are recorded too, under the request id or, when the request has no usable id, the SQS
 * message id. The writer never stores `duplicate`; it is what a second delivery is answered with.
 */

/** Default parent of the records. */
export const DEFAULT_REQUESTS_PATH = '/failout/requests';

/**
 * Largest encoded record, in bytes (issue 14): far below ZooKeeper's packet limit (jute.maxbuffer,
 * 1 MB), so a rejection is always recordable, and small enough that a busy month of records stays
 * small. The message is what gives way (see {@link encodeRequestRecord}).
 */
export const MAX_RECORD_BYTES = 4096;

/** Every action a record may name. */
export const RECORD_ACTIONS = ['failout', 'restore', 'extend', 'rampHold', 'rampResume', 'rampAdvance', 'amend', 'putDrill', 'deleteDrill', 'skipDrill', 'putFabric', 'deleteFabric', 'evacuate', 'restoreFabric'] as const;

/** One of {@link RECORD_ACTIONS}. */
export type RecordAction = (typeof RECORD_ACTIONS)[number];

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
  /** For a fabric action (`putFabric`, `deleteFabric`): the fabric whose map it changes (`cluster` is null). */
  readonly fabric?: string;
  /** The cluster, or null when the body did not say (bad JSON) or the request names none (a fabric action). */
  readonly cluster: string | null;
  /** The action (`failout`, `restore`, `extend`, a ramp action or `amend`, a drill or fabric action), or null when the body did not say. */
  readonly action: RecordAction | null;
  /** Epoch ms at which the writer decided. */
  readonly appliedAt: number;
  /** For `applied`: the cluster node's data version the write produced (a fabric action's: the map node's, null when removed); for `rejected`: the version judged, or null. */
  readonly clusterVersion: number | null;
  /** The SQS message that carried the request. */
  readonly messageId?: string;
  /** Who asked, when the request said. */
  readonly requestedBy?: string;
  /** For `applied`: true when there was nothing to write (a restore of a serving cluster); `clusterVersion` is the version found. */
  readonly unchanged?: true;
  /** For a guard's `restore`: the stop alarm whose ALARM state caused it. */
  readonly stoppedByAlarm?: string;
  /**
   * For an applied `restore`: the cluster's `failoutProperties` did not read (another tool wrote them;
   * D2 clients kept their last good failout), so the restore removed them, every other member kept.
   * The cluster codec's error, cut to {@link MAX_RECORDED_UNREADABLE_FAILOUT} characters.
   */
  readonly unreadableFailout?: string;
  /**
   * The request's own `reason` (why the operator asked: an incident id, a change ticket), cut to
   * {@link MAX_RECORDED_REQUEST_REASON} characters; only from a request that passed the schema (so it
   * holds no control characters). Not to be confused with `reason`, a rejection's.
   */
  readonly requestReason?: string;
  /**
   * Present when the request had `force` (issue 21 audit): the checks it overrode, each of
   * {@link FORCE_OVERRIDES}; empty when force was given but nothing needed overriding.
   */
  readonly forced?: readonly ForceOverride[];
  /**
   * For `applied`: the request named alarms (stop alarms, a drill's alarms) but the alarm source could
   * not be read, so they were not checked (issue 21: an unreadable source blocks no request). Absent
   * when they were checked, when the request named none, or when the worker has no alarm source.
   */
  readonly alarmsUnchecked?: true;
  /**
   * For an applied `evacuate` or `restoreFabric` (issue 23): how it was written. `multi`: one multi
   * over every cluster, the view, the evacuation node and this record (clients never saw half of it);
   * `plan`: it did not fit one multi (`multiBytes` over the budget), so the evacuation node recorded the
   * plan and the worker wrote it in `steps` ordered multis.
   */
  readonly evacuation?: EvacuationWrite;
}

/** How an evacuation action was written (the record's `evacuation`). */
export interface EvacuationWrite {
  readonly mode: 'multi' | 'plan';
  /** Clusters written. */
  readonly clusters: number;
  readonly stages: number;
  /** Bytes of the one multi it would take (all its ops' data and paths). */
  readonly multiBytes: number;
  /** For `plan`: multis written. */
  readonly steps?: number;
}

/** What `force` can override: peer-state checks (`peerFailedOut`, `noPeerWithHosts`), the capacity guard, and stranding another failout. */
export const FORCE_OVERRIDES = ['peerState', 'capacity', 'stranding'] as const;

/** One of {@link FORCE_OVERRIDES}. */
export type ForceOverride = (typeof FORCE_OVERRIDES)[number];

/** Most characters of an unreadable failout's error a record keeps (`unreadableFailout`). */
export const MAX_RECORDED_UNREADABLE_FAILOUT = 256;

/** Most characters of a request's reason a record keeps: the history's "why", not an archive. */
export const MAX_RECORDED_REQUEST_REASON = 256;

const recordSchema = z.object({
  requestId: z.string().min(1),
  status: z.enum(['applied', 'rejected', 'duplicate']),
  reason: z.enum(REJECTION_REASONS).optional(),
  message: z.string().optional(),
  cluster: z.string().nullable(),
  fabric: z.string().optional(),
  action: z.enum(RECORD_ACTIONS).nullable(),
  appliedAt: z.number(),
  clusterVersion: z.number().int().nullable(),
  messageId: z.string().optional(),
  requestedBy: z.string().optional(),
  unchanged: z.literal(true).optional(),
  stoppedByAlarm: z.string().optional(),
  unreadableFailout: z.string().optional(),
  requestReason: z.string().optional(),
  forced: z.array(z.enum(FORCE_OVERRIDES)).optional(),
  alarmsUnchecked: z.literal(true).optional(),
  evacuation: z
    .object({ mode: z.enum(['multi', 'plan']), clusters: z.number().int(), stages: z.number().int(), multiBytes: z.number().int(), steps: z.number().int().optional() })
    .optional(),
});

/** `<base>/<id>`; `base` defaults to `/failout/requests`. @throws RequestError `invalidArgument` for an id that is no znode name. */
export function requestRecordPath(base: string = DEFAULT_REQUESTS_PATH, id: string): string {
  const problem = requestIdProblem(id, 'request id');
  if (problem) throw new RequestError('invalidArgument', problem.message, { requestId: id });
  return `${base.replace(/\/+$/, '')}/${id}`;
}

/**
 * The record as stored: compact JSON, UTF-8, at most {@link MAX_RECORD_BYTES}. A record that would be
 * larger has its `message` cut (marked `… (N characters cut)`), then, if it still does not fit, its
 * `requestedBy` dropped; the other fields are bounded names, numbers and enums.
 */
export function encodeRequestRecord(record: RequestRecord): Buffer {
  const whole = encode(record);
  if (whole.length <= MAX_RECORD_BYTES) return whole;
  const { requestedBy: _dropped, ...withoutRequester } = record;
  const fitted = withMessageCut(record) ?? withMessageCut(withoutRequester);
  if (fitted) return fitted;
  throw new RequestError('invalidArgument', `the request record of ${record.requestId} does not fit in ${MAX_RECORD_BYTES} bytes`, { requestId: record.requestId });
}

/** The record with its message cut to the longest prefix that fits, or undefined when even none fits. */
function withMessageCut(record: RequestRecord): Buffer | undefined {
  const message = record.message ?? '';
  const cut = (keep: number): Buffer => encode(record.message === undefined ? record : { ...record, message: cutText(message, keep) });
  if (cut(0).length > MAX_RECORD_BYTES) return undefined;
  // Binary search for the longest prefix: a message's bytes per character vary (1 to 6 in JSON).
  let fits = 0;
  let tooLong = message.length + 1;
  while (tooLong - fits > 1) {
    const mid = Math.floor((fits + tooLong) / 2);
    if (cut(mid).length <= MAX_RECORD_BYTES) fits = mid;
    else tooLong = mid;
  }
  return cut(fits);
}

function encode(record: RequestRecord): Buffer {
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
