import type { MultiOp, ZkReader } from '../zk';
import { readDrillNode } from './drill-checks';
import { drillPath, encodeDrillNode, type DrillRun } from './drill-node';
import type { YieldedDrill } from './judge-together';

/**
 * The drill-node side of drills that give way to an operator's request (judge-together.ts): each run
 * becomes `replaced`, ended by the request, in the same multi that removes its windows from its
 * cluster, so a run is never left `running` in its node after its traffic came back. A drill node that
 * is gone or does not name the run is left alone (its cluster write still happens: the traffic matters).
 */
export async function yieldedDrillOps(session: ZkReader, drillsPath: string, yielded: readonly Pick<YieldedDrill, 'drill' | 'runId'>[], requestId: string, now: number): Promise<MultiOp[]> {
  const ops: MultiOp[] = [];
  for (const y of yielded) {
    let path: string;
    try {
      path = drillPath(drillsPath, y.drill);
    } catch {
      continue;
    }
    const { node, version } = await readDrillNode(session, path);
    const run = node?.runs.find((r) => r.runId === y.runId && r.status === 'running');
    // A drain test (a drill of a fabric) gives way one cluster at a time: the run goes on for the rest of its fabric.
    if (node === undefined || version === undefined || run === undefined || node.definition.fabric !== undefined) continue;
    const ended: DrillRun = { ...run, status: 'replaced', endedAt: now, endedBy: requestId, detail: `gave way to request ${requestId}, an operator's, which needed its cluster or its peers` };
    ops.push({ op: 'set', path, version, data: encodeDrillNode({ ...node, runs: node.runs.map((r) => (r === run ? ended : r)) }, now) });
  }
  return ops;
}
