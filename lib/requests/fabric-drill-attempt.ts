import type { AttemptContext } from './attempt-context';
import { fabricDrillEffectsOf } from './drill-fabric';
import type { FabricDrillChangeRequest } from './drill-schema';
import { fabricHints, recordBase, type RequestMeta } from './record-hints';
import type { RequestRecord } from './request-record';
import type { Attempt } from './request-outcome';

/**
 * One round of a drain test's drill action (`putDrill`, `deleteDrill`, `skipDrill` naming a fabric,
 * drill-fabric.ts): no cluster is judged; the drill node's change (or the refusal) and the record are
 * one multi. A definition's outcome and blocking alarms must exist, as a cluster drill's must.
 */
export async function fabricDrillAttempt(context: AttemptContext, request: FabricDrillChangeRequest, meta: RequestMeta): Promise<Attempt> {
  const { records } = context;
  const now = context.clock();
  const hints = fabricHints(request);
  let alarmFields: { alarmsUnchecked?: true } = {};
  if (request.action === 'putDrill') {
    const alarms = await context.alarmCheck.evacuationVerdict(request);
    if (alarms.rejection) return records.reject(alarms.rejection, hints, meta, undefined);
    alarmFields = alarms.recordFields;
  }
  const effectsContext = { session: context.session, d2BasePath: context.d2BasePath, drillsPath: context.drillsPath, fabricsPath: context.fabricsPath, maxWindowMs: context.maxWindowMs, acl: context.recordAcl, now };
  const effects = await fabricDrillEffectsOf(effectsContext, request);
  if (effects.rejection) return records.reject(effects.rejection, hints, meta, undefined);
  const record: RequestRecord = { ...recordBase(request.requestId, hints, meta, now), status: 'applied', clusterVersion: null, ...alarmFields };
  return records.commit([...effects.ops], record);
}
