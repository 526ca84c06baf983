import { isZkError, type MultiOp } from '../zk';
import type { AttemptContext } from './attempt-context';
import { drainTestPrecheck, drainTestStartOps } from './drill-fabric';
import { duplicateIfRecorded } from './duplicate-records';
import type { EvacuationChangeRequest } from './evacuate-schema';
import { EvacuationWrites, type FinalStep, type StepOutcome } from './evacuation-writes';
import { fabricHints, recordBase, type RequestMeta } from './record-hints';
import type { RequestRecord } from './request-record';
import type { Attempt } from './request-outcome';

/**
 * One round of an `evacuate` or `restoreFabric` (evacuation-writes.ts): judged as one plan and
 * written in one multi with the record, or as an ordered plan whose last step creates the record.
 * A record already there makes it a duplicate before anything is judged.
 */
export async function evacuationAttempt(context: AttemptContext, request: EvacuationChangeRequest, meta: RequestMeta): Promise<Attempt> {
  const { session, drillsPath, records } = context;
  const now = context.clock();
  const hints = fabricHints(request, request.action === 'restoreFabric' ? request.stoppedByAlarm : undefined);
  const duplicate = await duplicateIfRecorded(context, request.requestId, recordBase(request.requestId, hints, meta, now));
  if (duplicate !== undefined) return duplicate;
  let alarmFields: { alarmsUnchecked?: true } = {};
  if (request.action === 'evacuate') {
    // A drain test's run (drill-fabric.ts): its drill must be this fabric's; refused, it is recorded skipped.
    const unknownDrill = await drainTestPrecheck({ session, drillsPath }, request);
    if (unknownDrill) return records.reject(unknownDrill, hints, meta, undefined);
    const alarms = await context.alarmCheck.evacuationVerdict(request);
    if (alarms.rejection) {
      const skipped = await drainTestStartOps({ session, drillsPath, now }, request, { rejection: alarms.rejection });
      return records.reject(alarms.rejection, hints, meta, undefined, skipped);
    }
    alarmFields = alarms.recordFields;
  }
  let outcome: Attempt | undefined;
  const run = async (ops: MultiOp[], final: FinalStep | undefined): Promise<StepOutcome> => {
    if (final === undefined) return planStep(context, ops);
    const record: RequestRecord = {
      ...recordBase(request.requestId, hints, meta, now),
      status: 'applied',
      clusterVersion: final.version,
      evacuation: final.write,
      ...(final.unchanged ? { unchanged: true as const } : {}),
      ...(final.forced === undefined ? {} : { forced: final.forced }),
      ...alarmFields,
    };
    const attempt = await records.commit(ops, record);
    if (attempt === 'conflict' || attempt === 'viewConflict') return attempt;
    outcome = attempt;
    return 'done';
  };
  const writes = new EvacuationWrites({ ...context.evacuations, run });
  const result = request.action === 'evacuate' ? await writes.evacuate(request, now) : await writes.restore(request, now);
  if (result.kind === 'reject') return records.reject(result.rejection, hints, meta, undefined, result.ops ?? []);
  const done = outcome as Exclude<Attempt, string> | undefined;
  if (result.kind !== 'done' || done === undefined) return result.kind === 'viewConflict' ? 'viewConflict' : 'conflict';
  context.log.info(request.action === 'evacuate' ? 'fabric evacuated' : 'fabric restored', { requestId: request.requestId, fabric: request.fabric, status: done.status, evacuation: done.record.evacuation });
  return done;
}

/** One step of an evacuation written as a plan (no record): `conflict` when a version moved, `viewConflict` when only the view did. */
async function planStep(context: AttemptContext, ops: MultiOp[]): Promise<StepOutcome> {
  const viewIndex = ops.findIndex((op) => op.path === context.judgeOptions.viewPath);
  for (let parents = false; ; parents = true) {
    try {
      await context.session.multi(ops);
      return 'ok';
    } catch (e) {
      if (!isZkError(e, 'badVersion', 'noNode', 'nodeExists')) throw e;
      const failed = e.opIndex === undefined ? undefined : ops[e.opIndex];
      // The evacuations' parent on a fresh ensemble: created once, then the step again.
      if (!parents && isZkError(e, 'noNode') && failed?.op === 'create') {
        await context.session.ensurePath(failed.path.slice(0, failed.path.lastIndexOf('/')), context.recordAcl);
        continue;
      }
      return e.opIndex !== undefined && e.opIndex === viewIndex ? 'viewConflict' : 'conflict';
    }
  }
}
