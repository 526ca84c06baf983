import type { AttemptContext } from './attempt-context';
import { fabricEffectsOf } from './fabric-writes';
import type { FabricChangeRequest } from './fabric-schema';
import { fabricHints, recordBase, type RequestMeta } from './record-hints';
import type { RequestRecord } from './request-record';
import type { Attempt } from './request-outcome';

/**
 * One round of a fabric map change (fabric-writes.ts): no cluster is read or judged; the map's write
 * (or the refusal) and the record are one multi, so the request applies exactly once.
 */
export async function fabricAttempt(context: AttemptContext, request: FabricChangeRequest, meta: RequestMeta): Promise<Attempt> {
  const { records } = context;
  const now = context.clock();
  const hints = fabricHints(request);
  const effects = await fabricEffectsOf({ session: context.session, fabricsPath: context.fabricsPath, acl: context.recordAcl }, request);
  if (effects.rejection) return records.reject(effects.rejection, hints, meta, undefined, effects.ops);
  const record: RequestRecord = { ...recordBase(request.requestId, hints, meta, now), status: 'applied', clusterVersion: effects.version, ...(effects.unchanged ? { unchanged: true as const } : {}) };
  return records.commit([...effects.ops], record);
}
