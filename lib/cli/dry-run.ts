import { serializeClusterProperties } from '../d2/data';
import { judgeRequest, parseChangeRequest, type Rejection } from '../requests';
import type { ZkSession } from '../zk';
import { describeCluster, type ClusterStatus } from './cluster-status';
import type { RequestBody } from './request-body';
import type { CliSettings } from './settings';

/** What `--dry-run` found: the cluster before and after, or the rejection the worker would record. */
export type DryRunResult =
  | { readonly ok: true; readonly before: ClusterStatus; readonly after: ClusterStatus }
  | { readonly ok: false; readonly rejection: Rejection };

/**
 * Judges a request against the live ZooKeeper state the way the worker would at this moment: parse and
 * normalise (lib/requests schema, default limits), read the cluster and its peers, `applyRequest`.
 * Writes nothing. The worker decides again when the request arrives; the state may have changed by then.
 */
export async function dryRun(session: ZkSession, settings: CliSettings, body: RequestBody, now: number): Promise<DryRunResult> {
  const parsed = parseChangeRequest(body, { now });
  if (!parsed.ok) return parsed;
  const judgement = await judgeRequest(session, settings.d2Base, parsed.request, now);
  if (judgement.verdict === 'reject') return { ok: false, rejection: judgement.rejection };
  const cluster = parsed.request.cluster;
  return { ok: true, before: describeCluster(cluster, judgement.beforeText, now), after: describeCluster(cluster, serializeClusterProperties(judgement.after), now) };
}
