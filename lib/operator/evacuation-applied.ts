import { readEvacuations, type EvacuationPlan, type ForceOverride } from '../requests';
import type { ZkReader } from '../zk';
import { judgementFingerprint } from './judgement-fingerprint';
import type { OperatorSettings } from './settings';

/**
 * A plan's {@link judgementFingerprint}, with
 * only the receivers in `kept`, by name: the evacuation node keeps the most loaded of a large
 * plan's receivers (in load order), the plan shown before sending has them all (by name).
 */
function planFingerprint(plan: EvacuationPlan, kept: ReadonlySet<string>): string {
  const receivers = plan.receivers.filter((r) => kept.has(r.cluster)).sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  return judgementFingerprint({ ...plan, receivers });
}

/**
 * After the worker applied an evacuation: the plan it wrote (its evacuation node's, under the request's
 * id), when it differs from the plan `shown` before sending in anything but the times that move with the
 * clock (peers or weights by capacity, stages, the receivers' load: hosts came or went in between, and
 * the worker judged again). Undefined when it is the plan shown, or the node no longer holds this request.
 * @throws ZkError when ZooKeeper cannot be read.
 */
export async function appliedPlanIfChanged(
  session: Pick<ZkReader, 'children' | 'read'>,
  settings: Pick<OperatorSettings, 'evacuationsBase'>,
  sent: { readonly requestId: string; readonly fabric: string },
  shown: EvacuationPlan,
): Promise<{ readonly plan: EvacuationPlan; readonly forced?: readonly ForceOverride[] | undefined } | undefined> {
  const node = (await readEvacuations(session, settings.evacuationsBase)).find((n) => n.fabric === sent.fabric && n.requestId === sent.requestId);
  if (node === undefined) return undefined;
  const kept = new Set(node.plan.receivers.map((r) => r.cluster));
  if (planFingerprint(node.plan, kept) === planFingerprint(shown, kept)) return undefined;
  return { plan: node.plan, forced: node.forced };
}
