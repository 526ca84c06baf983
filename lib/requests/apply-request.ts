import type { ClusterProperties, FailoutPropertiesJson } from '../d2';
import { DEFAULT_PARTITION, parseFailoutConfig, type FailoutConfig } from '../failout';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import type { ChangeRequest, FailoutChangeRequest } from './schema';

/** What the writer knows of a peer cluster at the time of application. */
export interface PeerState {
  /** The peer has a cluster node. */
  readonly exists: boolean;
  /** Announced hosts of the peer (children of `/d2/uris/<peer>`). */
  readonly hostCount: number;
  /** The peer's own failout, when it has a readable one. */
  readonly failoutConfig: FailoutConfig | undefined;
}

/** The state `applyRequest` judges against. */
export interface ApplyContext {
  /** Epoch ms of application. */
  readonly now: number;
  /** The state of a peer; called for every peer of a failout. */
  readonly peers: (cluster: string) => PeerState;
}

/** The result of {@link applyRequest}. */
export type ApplyResult = { readonly ok: true; readonly props: ClusterProperties } | { readonly ok: false; readonly rejection: Rejection };

/**
 * The new cluster properties for a request, or why it cannot be applied. Pure: the same inputs give
 * the same answer, and nothing but `failoutProperties` changes (every other key, known or unknown,
 * is carried over by reference).
 *
 * - `restore` removes `failoutProperties` (a cluster that has none is restored again, harmlessly).
 * - `failout` replaces them with one redirect entry per peer and one bucket entry carrying the window,
 *   the request id, who and why. Unknown keys inside the old `failoutProperties` are kept.
 * - Checks at application time: the window has not ended; every peer exists (`unknownPeer`); unless
 *   `force`, no peer is failed out (`peerFailedOut`) and some peer has hosts (`noPeerWithHosts`).
 *   `force` overrides only these two peer-state checks: a peer that does not exist is always a typo.
 */
export function applyRequest(clusterProps: ClusterProperties, request: ChangeRequest, context: ApplyContext): ApplyResult {
  if (request.action === 'restore') return { ok: true, props: { ...clusterProps, failoutProperties: null } };
  const problems = [...windowProblems(request, context.now), ...peerProblems(request, context)];
  if (problems.length > 0) return { ok: false, rejection: rejectionOf(problems, request.requestId) };
  const failoutProperties = failoutPropertiesOf(request, clusterProps.failoutProperties);
  // Never write what the readers would refuse: every client would keep its last good state.
  parseFailoutConfig(request.cluster, failoutProperties);
  return { ok: true, props: { ...clusterProps, failoutProperties } };
}

function windowProblems(request: FailoutChangeRequest, now: number): Problem[] {
  if (request.onlineAt > now) return [];
  return [{ reason: 'badWindow', message: `onlineAt: ${new Date(request.onlineAt).toISOString()} passed before the request could be applied` }];
}

function peerProblems(request: FailoutChangeRequest, context: ApplyContext): Problem[] {
  const problems: Problem[] = [];
  let hosts = 0;
  request.peers.forEach((peer, i) => {
    const state = context.peers(peer.cluster);
    const field = `peers[${i}].cluster`;
    if (!state.exists) {
      problems.push({ reason: 'unknownPeer', message: `${field}: ${JSON.stringify(peer.cluster)} has no cluster node` });
      return;
    }
    hosts += state.hostCount;
    if (!request.force && state.failoutConfig?.isFailedOut(context.now)) {
      problems.push({ reason: 'peerFailedOut', message: `${field}: ${JSON.stringify(peer.cluster)} is failed out itself (force overrides)` });
    }
  });
  if (!request.force && hosts === 0 && !problems.some((p) => p.reason === 'unknownPeer')) {
    problems.push({ reason: 'noPeerWithHosts', message: 'peers: none has an announced host (force overrides)' });
  }
  // unknownPeer first: it is not overridable, so it is the one to fix first.
  return problems.sort((a, b) => rank(a) - rank(b));
}

function rank(problem: Problem): number {
  return problem.reason === 'unknownPeer' ? 0 : 1;
}

function failoutPropertiesOf(request: FailoutChangeRequest, previous: FailoutPropertiesJson | null): FailoutPropertiesJson {
  const bucket: Record<string, unknown> = {
    partition: DEFAULT_PARTITION,
    bucketOfflineRange: { from: request.buckets.from, to: request.buckets.to },
    offlineAt: request.offlineAt,
    onlineAt: request.onlineAt,
    requestId: request.requestId,
  };
  if (request.requestedBy !== undefined) bucket.requestedBy = request.requestedBy;
  if (request.reason !== undefined) bucket.reason = request.reason;
  const next: FailoutPropertiesJson = {
    failoutRedirectConfigs: request.peers.map((p) => ({ peer: p.cluster, weight: p.weight })),
    failoutBucketConfigs: [bucket],
  };
  if (previous?.extra !== undefined) next.extra = previous.extra;
  return next;
}
