import { judgeEvacuation, viewPathFor, type EvacuateChangeRequest, type EvacuationPlan, type ForceOverride, type Rejection } from '../requests';
import type { ZkReader } from '../zk';
import type { OperatorSettings } from './settings';

/**
 * The operator's side of judging an evacuation (issue 23): the worker's own `judgeEvacuation` over
 * what ZooKeeper holds now, so `failout evacuate` (checks before sending, `--dry-run`) and the console
 * show the plan the worker would make, and refuse what it would refuse, without drifting from it.
 */

/**
 * What judging an evacuation found: the plan the worker would write (and, with `--force`, what force
 * overrode), or the rejection it would record, with the plan when it got that far (a plan over the
 * capacity guard is shown with the load it would put on each receiving cluster).
 */
export type EvacuationDryRun =
  | { readonly ok: true; readonly plan: EvacuationPlan; readonly forced?: readonly ForceOverride[] }
  | { readonly ok: false; readonly rejection: Rejection; readonly plan?: EvacuationPlan };

/** The settings judging reads: where D2, the view, the fabric maps and the evacuations live, and the capacity limit. */
export type EvacuationJudgeSettings = Pick<OperatorSettings, 'd2Base' | 'requestsBase' | 'fabricsBase' | 'evacuationsBase' | 'maxPeerLoadFactor'>;

/**
 * Judges an `evacuate` request (already through the worker's schema: `validateEvacuation`) against
 * the live ZooKeeper state as the worker would at `now`. Writes nothing; the worker judges again when
 * the request arrives, and the state may have changed by then.
 * @throws ZkError when ZooKeeper cannot be read.
 */
export async function dryRunEvacuation(session: ZkReader, settings: EvacuationJudgeSettings, request: EvacuateChangeRequest, now: number): Promise<EvacuationDryRun> {
  const judgement = await judgeEvacuation(session, settings.d2Base, request, now, {
    maxPeerLoadFactor: settings.maxPeerLoadFactor,
    viewPath: viewPathFor(settings.requestsBase),
    fabricsPath: settings.fabricsBase,
    evacuationsPath: settings.evacuationsBase,
  });
  if (judgement.verdict === 'reject') return judgement.plan === undefined ? { ok: false, rejection: judgement.rejection } : { ok: false, rejection: judgement.rejection, plan: judgement.plan };
  return judgement.forced === undefined ? { ok: true, plan: judgement.plan } : { ok: true, plan: judgement.plan, forced: judgement.forced };
}
