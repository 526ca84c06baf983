import { readEvacuations, type EvacuationPlan, type ForceOverride } from '../requests';
import type { ZkReader } from '../zk';
import type { OperatorSettings } from './settings';

/** Keys whose values move with the clock alone (a window given with `--for` starts when the worker applies it): not a change of plan. */
const CLOCK_KEYS: ReadonlySet<string> = new Set(['offlineAt', 'onlineAt', 'fullyOutAt']);

/** A plan as one string, without the times that move with the clock alone (compared, never parsed). */
function planFingerprint(plan: EvacuationPlan): string {
  return JSON.stringify(plan, (key, value: unknown) => (CLOCK_KEYS.has(key) ? undefined : value));
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
  if (node === undefined || planFingerprint(node.plan) === planFingerprint(shown)) return undefined;
  return { plan: node.plan, forced: node.forced };
}
