import type { MultiOp } from '../zk';
import type { AttemptContext } from './attempt-context';
import { yieldedDrillOps } from './drill-yield';
import { isDrillAction } from './drill-rules';
import { drillEffectsOf, drillFailoutPrecheck } from './drill-writes';
import { encodeFailoutView, type FailoutView } from './failout-view';
import { judgeRequest } from './judge-request';
import { clusterHints, recordBase, type RequestMeta } from './record-hints';
import { cutText } from './rejection';
import { MAX_RECORDED_UNREADABLE_FAILOUT, type RequestRecord } from './request-record';
import type { Attempt } from './request-outcome';
import type { ChangeRequest } from './schema';

/**
 * One read-decide-write round of a request naming a cluster: guard rails and the judge, then the
 * cluster's write, its drills' and the view's, and the record as one multi; `conflict` when the
 * cluster changed under it.
 */
export async function clusterAttempt(context: AttemptContext, request: ChangeRequest, meta: RequestMeta): Promise<Attempt> {
  const { session, records } = context;
  const now = context.clock();
  const hints = clusterHints(request);
  // Drills (drill-writes.ts): their node changes ride in the same multi as the cluster's and the record's.
  const drills = { session, d2BasePath: context.d2BasePath, drillsPath: context.drillsPath, acl: context.recordAcl, now };
  if (request.action === 'failout') {
    const unknownDrill = await drillFailoutPrecheck(drills, request);
    if (unknownDrill) return records.reject(unknownDrill, hints, meta, undefined);
  }
  const alarms = await context.alarmCheck.verdict(request, drills);
  if (alarms.rejection) return records.reject(alarms.rejection, hints, meta, undefined, alarms.ops);
  const judgement = await judgeRequest(session, context.d2BasePath, request, now, context.judgeOptions);
  const effects = await drillEffectsOf(drills, request, judgement);
  if (judgement.verdict === 'reject') {
    const guard = judgement.version === undefined ? undefined : { path: judgement.path, version: judgement.version };
    // A verdict reached on the view (stranding, capacity) holds only while the view does.
    const check = judgement.viewCheck;
    const viewCheck: MultiOp[] = check === undefined ? [] : [{ op: 'check', path: check.path, version: check.version }];
    const rebase = check?.rebase === undefined ? undefined : { path: check.path, rebase: check.rebase, op: (version: number): MultiOp => ({ op: 'check', path: check.path, version }) };
    return records.reject(judgement.rejection, hints, meta, guard, [...viewCheck, ...effects.ops], rebase);
  }
  const { path, version } = judgement;
  if (effects.rejection) return records.reject(effects.rejection, hints, meta, { path, version });
  if (judgement.unchanged) {
    // Nothing to change: recorded (behind a check of the version judged) so it stays exactly once and
    // `--wait` finds it, but not written, which would bump the version and wake every watcher.
    // A drill action changes its drill, never the cluster: not "unchanged" (that says a restore found nothing to do).
    const unchanged = isDrillAction(request) ? {} : { unchanged: true as const };
    const record: RequestRecord = { ...recordBase(request.requestId, hints, meta, now), status: 'applied', clusterVersion: version, ...unchanged, ...alarms.recordFields };
    return records.commit([{ op: 'check', path, version }, ...effects.ops], record);
  }
  const record: RequestRecord = {
    ...recordBase(request.requestId, hints, meta, now),
    status: 'applied',
    clusterVersion: version + 1,
    ...alarms.recordFields,
    ...(judgement.forced === undefined ? {} : { forced: judgement.forced }),
    // A restore that removed a failout no reader could read: the record says so, and why.
    ...(judgement.unreadableFailout === undefined ? {} : { unreadableFailout: cutText(judgement.unreadableFailout, MAX_RECORDED_UNREADABLE_FAILOUT) }),
  };
  const data = Buffer.from(judgement.afterText, 'utf8');
  // Judged together (issue 21): drills that give way lose their windows, and the view of open
  // failouts changes, in the same multi as the cluster: a writer of another cluster that judged
  // against the old view fails its view check and judges again.
  const yielded = judgement.yielded ?? [];
  const yieldedOps: MultiOp[] = yielded.map((y) => ({ op: 'set', path: y.path, data: Buffer.from(y.afterText, 'utf8'), version: y.version }));
  const yieldedDrills = yielded.length === 0 ? [] : await yieldedDrillOps(session, context.drillsPath, yielded, request.requestId, now);
  const view = judgement.view;
  const rebase = view?.rebase === undefined ? undefined : { path: view.path, rebase: view.rebase, op: (version: number, next: FailoutView): MultiOp => ({ op: 'set', path: view.path, data: encodeFailoutView(next), version }) };
  return records.commit([{ op: 'check', path, version }, { op: 'set', path, data, version }, ...yieldedOps, ...records.viewOps(view), ...effects.ops, ...yieldedDrills], record, rebase);
}
