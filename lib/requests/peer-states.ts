import { clusterPath, isMalformed, parseClusterProperties, urisPath, type FailoutProperties } from '../d2/data';
import { isZkError, type ZkReader } from '../zk';
import type { PeerState } from './apply-request';

/**
 * Reads what `applyRequest` needs to know of each peer, in parallel: whether its cluster node exists,
 * how many hosts are announced under `/d2/uris/<peer>` (one child per host), and its own failout.
 * A peer whose cluster document cannot be read (a malformed failout makes it unreadable) counts as
 * existing and not failed out: readers ignore it too (they keep their last good state), so it cannot
 * steer traffic away.
 * ZooKeeper errors other than `noNode` propagate (the writer decides whether they are transient).
 */
export async function readPeerStates(session: ZkReader, d2Base: string, peers: readonly string[]): Promise<Map<string, PeerState>> {
  const entries = await Promise.all(peers.map(async (peer) => [peer, await readPeerState(session, d2Base, peer)] as const));
  return new Map(entries);
}

async function readPeerState(session: ZkReader, d2Base: string, peer: string): Promise<PeerState> {
  const [node, hostCount] = await Promise.all([session.read(clusterPath(d2Base, peer)), countHosts(session, d2Base, peer)]);
  if (!node.exists) return { exists: false, hostCount, failoutProperties: null };
  return { exists: true, hostCount, failoutProperties: failoutOf(node.data) };
}

async function countHosts(session: ZkReader, d2Base: string, peer: string): Promise<number> {
  try {
    return (await session.children(urisPath(d2Base, peer))).children.length;
  } catch (e) {
    if (isZkError(e, 'noNode')) return 0;
    throw e;
  }
}

function failoutOf(data: Buffer): FailoutProperties | null {
  try {
    return parseClusterProperties(data).failoutProperties;
  } catch (e) {
    if (isMalformed(e)) return null;
    throw e;
  }
}
