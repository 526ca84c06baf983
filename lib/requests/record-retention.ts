import { z } from 'zod';
import type { ZkReader } from '../zk';
import { decodeRequestRecord, requestRecordPath, type RequestRecord } from './request-record';
import { requestIdTime } from './request-id';

/**
 * Request records are kept for a retention, then pruned by the worker's own sweep (issue 14;
 * `record-sweeper.ts`). Why a sweep and not ZooKeeper TTL nodes: TTL nodes need the server's
 * `zookeeper.extendedTypesEnabled` (off by default, and a deployment D2 may share with rest.li services
 * would have to turn it on), node-zookeeper-client 1.1.3 cannot create them (no `createTTL` op), and
 * a TTL node cannot be part of the one multi that writes a request's effect and its record.
 *
 * Pruned or never written? Each complete sweep leaves a prune mark, the node `.prune-mark` among the
 * records (`/failout/requests/.prune-mark`): every record last written before `prunedBefore` is gone.
 * It is write-once like a record (a new mark replaces the old one in one multi of delete + create), so
 * the writer needs no more than it has for records: create and delete on their parent. Its name can
 * never be a request id: request ids may not start with a dot (`names.ts`). A request id that
 * carries its time (the CLI's UUIDv7, `request-id.ts`) and was made before the mark, and has no record,
 * was pruned: or never processed before the retention ran out (a dead-lettered request looks the same;
 * after 30 days its outcome is unknown either way). Any other id without a record is just absent.
 */

const DAY = 86_400_000;

/** Retention of request records and how the sweep runs. */
export interface RecordRetention {
  /** How long a record is kept after it was written. Default 30 days. */
  readonly retentionMs: number;
  /** Least time between two sweeps (by any worker: the prune mark says when the last ran). Default 1 h. */
  readonly intervalMs: number;
  /** Most records one sweep deletes; a sweep that stops early does not move the prune mark. Default 1000. */
  readonly maxDeletes: number;
}

/** Defaults of {@link RecordRetention}. */
export const DEFAULT_RECORD_RETENTION: RecordRetention = Object.freeze({ retentionMs: 30 * DAY, intervalMs: 3_600_000, maxDeletes: 1000 });

/** The prune mark's node name among the records; no request id can have it. */
export const PRUNE_MARK_NODE = '.prune-mark';

/** `<requestsPath>/.prune-mark`. */
export function pruneMarkPath(requestsPath: string): string {
  return `${requestsPath.replace(/\/+$/, '')}/${PRUNE_MARK_NODE}`;
}

/** What a complete sweep leaves in the prune mark node. */
export interface PruneMark {
  /** Epoch ms: every record last written before it has been deleted. */
  readonly prunedBefore: number;
  /** The retention the sweep ran with. */
  readonly retentionMs: number;
  /** Epoch ms of the sweep (the worker's clock). */
  readonly sweptAt: number;
}

const markSchema = z.strictObject({
  prunedBefore: z.number().int(),
  retentionMs: z.number().int().positive(),
  sweptAt: z.number().int(),
});

/** The prune mark as stored: compact JSON. */
export function encodePruneMark(mark: PruneMark): Buffer {
  return Buffer.from(JSON.stringify({ prunedBefore: mark.prunedBefore, retentionMs: mark.retentionMs, sweptAt: mark.sweptAt }), 'utf8');
}

/** The prune mark in a mark node's data, or undefined when it is not one (empty, not JSON, wrong shape). */
export function decodePruneMark(data: Buffer): PruneMark | undefined {
  if (data.length === 0) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = markSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** The prune mark under `requestsPath`, or undefined (no complete sweep yet). */
export async function readPruneMark(session: ZkReader, requestsPath: string): Promise<PruneMark | undefined> {
  const node = await session.read(pruneMarkPath(requestsPath));
  return node.exists ? decodePruneMark(node.data) : undefined;
}

/** What is known of a request's record: found, pruned (see the module doc), or absent. */
export type RecordLookup =
  | {
      /** The record exists. */
      readonly state: 'found';
      /** The record as stored. */
      readonly record: RequestRecord;
    }
  | {
      /** No record, and the id says the request was made before the last prune mark. */
      readonly state: 'pruned';
      /** When the request id says it was made. */
      readonly madeAt: number;
      /** The mark that says so. */
      readonly pruneMark: PruneMark;
    }
  | {
      /** No record: not processed yet, a wrong id, or an id without a time that may have been pruned. */
      readonly state: 'absent';
      /** The last complete sweep's mark, when there was one (to say how long records are kept). */
      readonly pruneMark: PruneMark | undefined;
    };

/**
 * Looks a request's record up and, when there is none, tells pruned from absent (module doc).
 * @throws RequestError `invalidArgument` for an id that is no record name, `corruptRecord` for a node
 *   this code did not write; ZooKeeper errors propagate.
 */
export async function lookUpRequestRecord(session: ZkReader, requestsPath: string, id: string): Promise<RecordLookup> {
  const node = await session.read(requestRecordPath(requestsPath, id));
  if (node.exists) return { state: 'found', record: decodeRequestRecord(node.data) };
  const pruneMark = await readPruneMark(session, requestsPath);
  const madeAt = requestIdTime(id);
  if (pruneMark !== undefined && madeAt !== undefined && madeAt < pruneMark.prunedBefore) return { state: 'pruned', madeAt, pruneMark };
  return { state: 'absent', pruneMark };
}
