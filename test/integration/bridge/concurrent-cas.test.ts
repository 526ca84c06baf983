import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import type { ClusterLbPolicy } from '../../../lib/xds/resource-types';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { isZkError, type ZkSession } from '../../../lib/zk';
import { bridgeConfig, paths, readNode, startBridge, stopBridges, worldSnapshot, type World } from '../../helpers/bridge';
import { startXdsServer } from '../../helpers/xds-chain';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// The bridge and the request worker both write /d2/clusters/<cluster>, each with compare-and-set on
// the znode version, each keeping what the other owns. Here the worker is simulated by a CAS
// read-modify-write loop over failoutProperties, racing a bridge that rewrites the same node.

const POLICIES: ClusterLbPolicy[] = ['ROUND_ROBIN', 'LEAST_REQUEST', 'RING_HASH'];

function world(lbPolicy: ClusterLbPolicy): World {
  return {
    services: [{ name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] }],
    clusters: [{ name: 'greetings-lor1', endpoints: [{ address: '10.0.0.1', port: 80 }], lbPolicy }],
  };
}

/** One worker write: appends a bucket config with `requestId`, retrying on badVersion. Returns the attempts. */
async function workerWrite(session: ZkSession, path: string, requestId: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const { data, stat } = await session.get(path);
    const props = parseClusterProperties(data);
    const failout = props.failoutProperties ?? { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [] };
    const next = { ...props, failoutProperties: { ...failout, buckets: [...failout.buckets, { partition: 'main', requestId }] } };
    try {
      await session.set(path, Buffer.from(serializeClusterProperties(next)), stat.version);
      return attempt;
    } catch (err) {
      if (!isZkError(err, 'badVersion')) throw err;
    }
  }
}

describe('bridge concurrent compare-and-set with the request worker', () => {
  let xds: XdsManagementServer;
  let base: string;

  beforeEach(async () => {
    xds = await startXdsServer();
    base = uniqueBase('bridge');
  });

  afterEach(async () => {
    await stopBridges();
    await xds.close();
    await closeSessions();
  });

  it('never loses a failoutProperties write while the bridge rewrites the cluster node', async () => {
    // Prepare
    xds.setSnapshot('*', worldSnapshot('0', world('ROUND_ROBIN')));
    const { bridge } = await startBridge(bridgeConfig([xds.uri], ['greetings'], base));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    const worker = await openSession();
    const path = paths.cluster(base, 'greetings-lor1');
    const rounds = 40;

    // Act: the control plane flips the lb policy while the worker appends bucket configs
    const flipping = (async () => {
      for (let i = 1; i <= rounds; i++) {
        xds.setSnapshot('*', worldSnapshot(String(i), world(POLICIES[i % POLICIES.length]!)));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const attempts: number[] = [];
    for (let i = 0; i < rounds - 1; i++) attempts.push(await workerWrite(worker, path, `req-${i}`));
    await flipping;
    const racedPolicy = POLICIES[rounds % POLICIES.length]!;
    await eventually(async () => parseClusterProperties(Buffer.from((await readNode(worker, path))!.data)).properties['xds.lbPolicy'] === racedPolicy, 10_000, 'raced policy');
    // Then one meeting that does not depend on timing: the worker writes after the bridge's last write,
    // so the bridge's next compare-and-set carries a stale version whatever the machine's load.
    attempts.push(await workerWrite(worker, path, `req-${rounds - 1}`));
    const finalPolicy = POLICIES[(rounds + 1) % POLICIES.length]!;
    xds.setSnapshot('*', worldSnapshot(String(rounds + 1), world(finalPolicy)));
    await eventually(async () => parseClusterProperties(Buffer.from((await readNode(worker, path))!.data)).properties['xds.lbPolicy'] === finalPolicy, 10_000, 'final policy');

    // Assess: every worker write is there, and the bridge's last value too
    const props = parseClusterProperties(Buffer.from((await readNode(worker, path))!.data));
    const ids = props.failoutProperties?.buckets.map((b) => b.requestId);
    expect(ids).toEqual(Array.from({ length: rounds }, (_, i) => `req-${i}`));
    expect(props.failoutProperties?.redirects).toEqual([{ peer: 'greetings-lva1', weight: 1 }]);
    expect(props.properties['xds.lbPolicy']).toBe(finalPolicy);
    expect(bridge.syncStats().writes).toBeGreaterThan(3);
    // The bridge's CAS did meet the worker's writes (badVersion), and re-merged instead of overwriting.
    expect(bridge.syncStats().failures).toBeGreaterThan(0);
    await worker.removeRecursive(base).catch(() => undefined);
  });
});
