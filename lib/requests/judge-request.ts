import { BUCKETS, clusterPath, parseClusterProperties, serializeClusterProperties, type ClusterProperties } from '../d2/data';
import { isZkError, type ZkReader } from '../zk';
import { applyRequest, type PeerState } from './apply-request';
import { DEFAULT_MAX_PEER_LOAD_FACTOR, projectPeerLoad, type CapacityProjection } from './capacity';
import { assertIsError } from './errors';
import { countEligibleHosts, readPeerStates } from './peer-states';
import { rejectionOf, type Rejection } from './rejection';
import type { ChangeRequest } from './schema';

/**
 * What a request would do to the live state right now:
 * - `apply`: the cluster node at `version` (its text and properties), the properties to write, and
 *   their text as the cluster codec writes it (checked by the codec: what every reader accepts);
 * - `reject`: the rejection, and the cluster node's version when there is one (the writer records the
 *   rejection behind a check of that version, so the verdict is tied to the state it was reached on).
 */
export type Judgement =
  | {
      readonly verdict: 'apply';
      readonly path: string;
      readonly version: number;
      readonly beforeText: string;
      readonly after: ClusterProperties;
      /** `after` as the cluster codec writes it: the data of the cluster node's `setData`. */
      readonly afterText: string;
      /** A failout's capacity projection per peer (shown by `--dry-run`; within the limit, or `force`). */
      readonly capacity?: CapacityProjection;
      /** Nothing to write (a restore of a serving cluster): the writer records the request without a `setData`. */
      readonly unchanged?: true;
    }
  | {
      readonly verdict: 'reject';
      readonly path: string;
      readonly version: number | undefined;
      readonly rejection: Rejection;
      /** For `insufficientPeerCapacity`: the projection that refused it (shown by `--dry-run`). */
      readonly capacity?: CapacityProjection;
    };

/** Deployment settings of the judge, the same for the worker and the CLI. */
export interface JudgeOptions {
  /** Largest load factor a failout may give a peer (`MAX_PEER_LOAD_FACTOR`); default {@link DEFAULT_MAX_PEER_LOAD_FACTOR}. */
  readonly maxPeerLoadFactor?: number;
}

const NO_PEER: PeerState = { exists: false, hostCount: 0, failoutProperties: null };

/**
 * Judges a parsed request against ZooKeeper as the worker does before writing: read the cluster
 * (unknown → `unknownCluster`, unreadable → `malformedCluster`), read the peers' states, `applyRequest`,
 * then, for a failout, the capacity guard (`insufficientPeerCapacity` unless `force`, lib/requests
 * `capacity.ts`), and write the result with the cluster codec. Writes nothing; shared by the request writer and the
 * CLI (its checks before sending, and `--dry-run`) so they cannot drift.
 *
 * Never throws for the request's sake (issue 14): whatever cannot be judged or written (a window the
 * codec refuses, a name no path can hold) is an `unjudgeable` rejection, recorded and acknowledged
 * like any other, instead of an error that SQS would retry into the DLQ while the rest of the
 * cluster's FIFO group waits. Only ZooKeeper's own errors propagate (the writer classifies them).
 */
export async function judgeRequest(session: ZkReader, d2BasePath: string, request: ChangeRequest, now: number, options: JudgeOptions = {}): Promise<Judgement> {
  let path = `${d2BasePath}/clusters/${request.cluster}`;
  let version: number | undefined;
  try {
    path = clusterPath(d2BasePath, request.cluster);
    const node = await session.read(path);
    if (!node.exists) {
      const rejection = rejectionOf([{ reason: 'unknownCluster', message: `cluster: ${JSON.stringify(request.cluster)} has no node at ${path}` }], request.requestId);
      return { verdict: 'reject', path, version: undefined, rejection };
    }
    version = node.stat.version;
    let props: ClusterProperties;
    try {
      props = parseClusterProperties(node.data);
    } catch (e) {
      assertIsError(e);
      return { verdict: 'reject', path, version, rejection: rejectionOf([{ reason: 'malformedCluster', message: `${path}: ${e.message}` }], request.requestId) };
    }
    const peers = request.action === 'failout' ? await readPeerStates(session, d2BasePath, request.peers.map((p) => p.cluster)) : new Map<string, PeerState>();
    const result = applyRequest(props, request, { now, peers: (c) => peers.get(c) ?? NO_PEER });
    if (!result.ok) return { verdict: 'reject', path, version, rejection: result.rejection };
    let capacity: CapacityProjection | undefined;
    if (request.action === 'failout') {
      // After applyRequest: unknown peers and "no peer with hosts" are the clearer answers, and come first.
      capacity = projectPeerLoad({
        cluster: request.cluster,
        clusterHosts: await countEligibleHosts(session, d2BasePath, request.cluster, props),
        movedFraction: (request.buckets.to - request.buckets.from + 1) / BUCKETS,
        peers: request.peers.map((p) => ({ cluster: p.cluster, weight: p.weight, hosts: (peers.get(p.cluster) ?? NO_PEER).hostCount })),
        maxPeerLoadFactor: options.maxPeerLoadFactor ?? DEFAULT_MAX_PEER_LOAD_FACTOR,
      });
      if (!request.force && capacity.problems.length > 0) return { verdict: 'reject', path, version, rejection: rejectionOf(capacity.problems, request.requestId), capacity };
    }
    const afterText = serializeClusterProperties(result.props);
    const applied = { verdict: 'apply' as const, path, version, beforeText: node.data.toString('utf8'), after: result.props, afterText, ...(result.unchanged ? { unchanged: true as const } : {}) };
    return capacity === undefined ? applied : { ...applied, capacity };
  } catch (e) {
    assertIsError(e);
    if (isZkError(e)) throw e;
    const rejection = rejectionOf([{ reason: 'unjudgeable', message: `could not be judged: ${e.message}` }], request.requestId);
    return { verdict: 'reject', path, version, rejection };
  }
}
