import { judgeRequest, type CapacityProjection, type ChangeRequest, type Rejection } from '../requests';
import type { ZkSession } from '../zk';
import { describeCluster, type ClusterStatus } from './cluster-status';
import type { CliSettings } from './settings';

/**
 * What `--dry-run` found: the cluster before and after (and a failout's load projection per peer), or
 * the rejection the worker would record.
 */
export type DryRunResult =
  | { readonly ok: true; readonly before: ClusterStatus; readonly after: ClusterStatus; readonly capacity?: CapacityProjection }
  | { readonly ok: false; readonly rejection: Rejection };

/**
 * Judges a request (already through the worker's schema: `validateLocally`) against the live ZooKeeper
 * state the way the worker would at this moment: read the cluster and its peers, `applyRequest`.
 * Writes nothing. The worker decides again when the request arrives; the state may have changed by then.
 */
export async function dryRun(session: ZkSession, settings: CliSettings, request: ChangeRequest, now: number): Promise<DryRunResult> {
  const judgement = await judgeRequest(session, settings.d2Base, request, now, { maxPeerLoadFactor: settings.maxPeerLoadFactor });
  if (judgement.verdict === 'reject') return { ok: false, rejection: judgement.rejection };
  const result = { ok: true, before: describeCluster(request.cluster, judgement.beforeText, now), after: describeCluster(request.cluster, judgement.afterText, now) } as const;
  return judgement.capacity === undefined ? result : { ...result, capacity: judgement.capacity };
}

/**
 * A failout's projection, one line per peer: hosts, load moved to it and the load factor against the
 * limit, marked when over (only a forced request gets that far). Load is in units of "one host's load
 * of the failed-out cluster", projected from host counts (no request rates: lib/requests `capacity.ts`).
 */
export function formatCapacity(capacity: CapacityProjection): string {
  const lines = capacity.peers.map((p) => {
    const factor = p.loadFactor === null ? 'no hosts, gets nothing' : `×${round(p.loadFactor)}${p.over ? ' OVER THE LIMIT (forced)' : ''}`;
    return `  ${p.cluster}: ${p.hosts} hosts, +${round(p.addedLoad)} hosts' load → ${factor}`;
  });
  return `peer load projection (from host counts; ${round(capacity.movedLoad)} hosts' load moves, limit ×${capacity.maxPeerLoadFactor}):\n${lines.join('\n')}`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
