/**
 * LoadBalancerState over xDS sources tells the same ClusterChange sequence, and counts the same
 * unreadable documents, as over ZooKeeper for the same writes (house rule: the xDS-fed state passes
 * the ZooKeeper-fed one's cases). One scenario runs against the in-memory ZooKeeper and against a
 * fake XdsClient serving the same documents as `indis` resources (decoded JSON objects).
 */
import { LoadBalancerState, serializeClusterProperties, serializeServiceProperties, serializeUriProperties, xdsSources } from '../../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../../lib/d2/paths';
import { changeRecorder } from '../../helpers/cluster-changes';
import { clusterDoc, put, serviceDoc } from '../../helpers/d2';
import { FakeD2Xds } from '../../helpers/d2-xds-fake';
import { InMemoryZk } from '../../helpers/in-memory-zk';
import { capturingLogger } from '../../helpers/logging';

const BASE = '/d2';

/** The writes a scenario makes, as text (ZooKeeper holds text; the observer sends its JSON). */
interface World {
  readonly state: LoadBalancerState;
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
  settle(): Promise<void>;
  close(): void;
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

function zooKeeperWorld(): World {
  const zk = new InMemoryZk();
  const writer = zk.session();
  const state = new LoadBalancerState({ session: zk.session(), basePath: BASE, logger: capturingLogger().logger });
  return {
    state,
    write: (path, text) => put(writer, path, text),
    remove: (path) => writer.remove(path),
    settle: async () => {
      await zk.idle();
      await turns(3);
      await zk.idle();
    },
    close: () => state.close(),
  };
}

function xdsWorld(): World {
  const xds = new FakeD2Xds();
  const state = new LoadBalancerState({ sources: xdsSources(xds), basePath: BASE, logger: capturingLogger().logger });
  const uriPrefix = `${urisPath(BASE)}/`;
  return {
    state,
    write: (path, text) => {
      const json = JSON.parse(text) as Record<string, unknown>;
      if (path.startsWith(uriPrefix)) {
        const [cluster, child] = path.slice(uriPrefix.length).split('/');
        xds.putUri(`${uriPrefix}${cluster}`, child!, json);
      } else {
        xds.putNode(path, json);
      }
      return Promise.resolve();
    },
    remove: (path) => {
      if (path.startsWith(uriPrefix)) {
        const [cluster, child] = path.slice(uriPrefix.length).split('/');
        xds.removeUri(`${uriPrefix}${cluster}`, child!);
      } else {
        xds.removeNode(path);
      }
      return Promise.resolve();
    },
    settle: () => xds.idle(),
    close: () => state.close(),
  };
}

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
    const zk = zooKeeperWorld();
    const xds = xdsWorld();

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
    const xds = xdsWorld();

    await xds.state.listenToCluster('nowhere');

    expect(xds.state.isClusterLoaded('nowhere')).toBe(true);
    expect(xds.state.getClusterProperties('nowhere')).toBeUndefined();
    expect(xds.state.getUris('nowhere')).toBeUndefined();
    xds.close();
  });
});
