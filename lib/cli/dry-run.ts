import { judgeRequest, type ChangeRequest, type Rejection } from '../requests';
import type { ZkSession } from '../zk';
import { describeCluster, type ClusterStatus } from './cluster-status';
import type { CliSettings } from './settings';

/** What `--dry-run` found: the cluster before and after, or the rejection the worker would record. */
export type DryRunResult =
  | { readonly ok: true; readonly before: ClusterStatus; readonly after: ClusterStatus }
  | { readonly ok: false; readonly rejection: Rejection };

/**
 * Judges a request (already through the worker's schema: `validateLocally`) against the live ZooKeeper
 * state the way the worker would at this moment: read the cluster and its peers, `applyRequest`.
 * Writes nothing. The worker decides again when the request arrives; the state may have changed by then.
 */
export async function dryRun(session: ZkSession, settings: CliSettings, request: ChangeRequest, now: number): Promise<DryRunResult> {
  const judgement = await judgeRequest(session, settings.d2Base, request, now);
  if (judgement.verdict === 'reject') return { ok: false, rejection: judgement.rejection };
  return { ok: true, before: describeCluster(request.cluster, judgement.beforeText, now), after: describeCluster(request.cluster, judgement.afterText, now) };
}
