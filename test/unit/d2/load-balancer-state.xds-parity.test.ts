/**
 * LoadBalancerState over xDS sources tells the same ClusterChange sequence, and counts the same
 * unreadable documents, as over ZooKeeper for the same writes (house rule: the xDS-fed state passes
 * the ZooKeeper-fed one's cases). One scenario runs against the in-memory ZooKeeper and against a
 * fake XdsClient serving the same documents as `indis` resources (decoded JSON objects).
 */
import { serializeClusterProperties, serializeServiceProperties, serializeUriProperties } from '../../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../../lib/d2/paths';
import { changeRecorder } from '../../helpers/cluster-changes';
import { clusterDoc, serviceDoc } from '../../helpers/d2';
import { xdsWorld, zooKeeperWorld, type D2World as World } from '../../helpers/d2-worlds';

const BASE = '/d2';

const cluster = (name: string, v: string): [string, string] => [clusterPath(BASE, name), serializeClusterProperties(clusterDoc(name, { properties: { v } }))];
const uri = (name: string, child: string, host: string, weight = 1): [string, string] => [
  `${urisPath(BASE, name)}/${child}`,
  serializeUriProperties({ clusterName: name, partitionDesc: { [host]: { 0: weight } }, uriSpecificProperties: {} }),
];

/** The scenario: every ClusterChange kind, an unreadable cluster and an unreadable announcement among good ones. */
async function run(world: World): Promise<{ events: string[]; malformed: { clusters: number; uris: number } }> {
  const listener = changeRecorder();
  world.state.registerClusterListener(listener);
  const step = async (action: () => Promise<unknown>): Promise<void> => {
    await action();
    await world.settle();
  };
  await step(() => world.write(servicePath(BASE, 'greetings'), serializeServiceProperties(serviceDoc('greetings', 'c1'))));
  await step(() => world.write(...cluster('c1', '1')));
  await step(() => world.write(...uri('c1', 'h1', 'http://h1:80')));
  await step(() => world.state.listenToService('greetings'));
  await step(() => world.write(...cluster('c1', '2')));
  await step(() => world.write(...uri('c1', 'h2', 'http://h2:80', 2)));
  await step(() => world.write(clusterPath(BASE, 'c1'), '{"clusterName": 7}'));
  await step(() => world.write(`${urisPath(BASE, 'c1')}/h3`, '{"clusterName":"c1","partitionDesc":"nope"}'));
  await step(() => world.remove(`${urisPath(BASE, 'c1')}/h1`));
  await step(() => world.state.listenToCluster('c2'));
  await step(() => world.write(...cluster('c2', '1')));
  await step(() => world.write(...uri('c2', 'h1', 'http://c2-h1:80')));
  await step(() => world.remove(clusterPath(BASE, 'c1')));
  await step(() => world.write(...cluster('c1', '3')));
  const stats = world.state.stats();
  return { events: [...listener.events], malformed: { clusters: stats.clusters.malformed, uris: stats.uris.malformed } };
}

describe('LoadBalancerState over xDS sources', () => {
  it('tells the same cluster changes and counts the same unreadable documents as over ZooKeeper', async () => {
    // Prepare
    const zk = zooKeeperWorld(BASE);
    const xds = xdsWorld(BASE);

    // Act
    const overZooKeeper = await run(zk);
    const overXds = await run(xds);
    zk.close();
    xds.close();

    // Assess
    expect(overXds).toEqual(overZooKeeper);
    expect(overZooKeeper.events).toEqual([
      'properties:c1:v=1',
      'uris:c1:http://h1:80*1',
      'properties:c1:v=2',
      'uris:c1:http://h1:80*1,http://h2:80*2',
      'malformed:c1',
      'uris:c1:http://h2:80*2',
      'properties:c2:v=1',
      'uris:c2:http://c2-h1:80*1',
      'removed:c1',
      'properties:c1:v=3',
    ]);
    expect(overZooKeeper.malformed).toEqual({ clusters: 1, uris: 1 });
  });

  it('resolves listenToCluster for a cluster that does not exist, as over ZooKeeper', async () => {
    const xds = xdsWorld(BASE);

    await xds.state.listenToCluster('nowhere');

    expect(xds.state.isClusterLoaded('nowhere')).toBe(true);
    expect(xds.state.getClusterProperties('nowhere')).toBeUndefined();
    expect(xds.state.getUris('nowhere')).toBeUndefined();
    xds.close();
  });
});
