/**
 * D2 symlinks (`$` clusters) in LoadBalancerState, over ZooKeeper and over xDS alike (house rule: the
 * xDS-fed state passes the ZooKeeper-fed one's cases): a service whose cluster is `$greetingsMaster`
 * reads the cluster and the hosts its links point at, follows a re-pointed link, reads a link to a
 * missing node as removed, and keeps the last good state over a cycle (reported as malformed); an
 * unreadable write of the target node is told to the `$` name's listeners as `malformed`, as it is
 * for a cluster followed by its own name.
 */
import { serializeClusterProperties, serializeServiceProperties, serializeUriProperties } from '../../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../../lib/d2/paths';
import { changeRecorder, type ChangeRecorder } from '../../helpers/cluster-changes';
import { clusterDoc, serviceDoc } from '../../helpers/d2';
import { xdsWorld, zooKeeperWorld, type D2World as World } from '../../helpers/d2-worlds';

const BASE = '/d2';
const LINK = '$greetingsMaster';

const cluster = (name: string, v: string): [string, string] => [clusterPath(BASE, name), serializeClusterProperties(clusterDoc(name, { properties: { v } }))];
const uri = (name: string, host: string): [string, string] => [`${urisPath(BASE, name)}/h1`, serializeUriProperties({ clusterName: name, partitionDesc: { [host]: { 0: 1 } }, uriSpecificProperties: {} })];

/** Records `world`'s cluster changes; `step` acts and waits for everything it caused. Greetings on LINK and lor1 are written. */
async function recordedWorld(world: World): Promise<{ listener: ChangeRecorder; step: (action: () => Promise<unknown>) => Promise<void> }> {
  const listener = changeRecorder();
  world.state.registerClusterListener(listener);
  const step = async (action: () => Promise<unknown>): Promise<void> => {
    await action();
    await world.settle();
  };
  await step(() => world.write(servicePath(BASE, 'greetings'), serializeServiceProperties(serviceDoc('greetings', LINK))));
  await step(() => world.write(...cluster('lor1', '1')));
  return { listener, step };
}

async function run(world: World): Promise<{ events: string[]; kept: unknown; malformed: number; end: unknown }> {
  const { listener, step } = await recordedWorld(world);
  await step(() => world.write(...uri('lor1', 'http://lor1:80')));
  await step(() => world.write(...cluster('lva1', '1')));
  await step(() => world.write(...uri('lva1', 'http://lva1:80')));
  await step(() => world.link(clusterPath(BASE, LINK), clusterPath(BASE, 'lor1')));
  await step(() => world.link(urisPath(BASE, LINK), urisPath(BASE, 'lor1')));
  await step(() => world.state.listenToService('greetings'));
  await step(() => world.write(...cluster('lor1', '2')));
  // Re-pointed: the master moves to lva1.
  await step(() => world.link(clusterPath(BASE, LINK), clusterPath(BASE, 'lva1')));
  await step(() => world.link(urisPath(BASE, LINK), urisPath(BASE, 'lva1')));
  await step(() => world.write(...cluster('lor1', '3'))); // no longer followed: nothing heard
  // A cycle through a second link: malformed, lva1's state kept.
  await step(() => world.link(clusterPath(BASE, '$other'), clusterPath(BASE, LINK)));
  await step(() => world.link(clusterPath(BASE, LINK), clusterPath(BASE, '$other')));
  const kept = world.state.getClusterProperties(LINK)?.properties.v;
  // Back to a good chain (the same target: nothing to tell), then to a node that does not exist.
  await step(() => world.link(clusterPath(BASE, LINK), clusterPath(BASE, 'lva1')));
  await step(() => world.link(clusterPath(BASE, LINK), clusterPath(BASE, 'nowhere')));
  const end = world.state.getClusterProperties(LINK);
  return { events: [...listener.events], kept, malformed: world.state.stats().clusters.malformed, end };
}

describe('LoadBalancerState with D2 symlinks', () => {
  it('resolves a $ cluster to its target, follows a re-pointed link, keeps the last good over a cycle and reads a missing target as removed, over ZooKeeper and xDS alike', async () => {
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
    expect(overZooKeeper).toEqual({
      events: [
        `properties:${LINK}:v=1`,
        `uris:${LINK}:http://lor1:80*1`,
        `properties:${LINK}:v=2`,
        `properties:${LINK}:v=1`,
        `uris:${LINK}:http://lva1:80*1`,
        `malformed:${LINK}`,
        `removed:${LINK}`,
      ],
      kept: '1',
      malformed: 1,
      end: undefined,
    });
  });

  it('tells a malformed write of the target node under the $ name that follows it, reporting the document once, over ZooKeeper and xDS alike', async () => {
    // Prepare
    const runBadWrite = async (world: World): Promise<{ events: string[]; kept: unknown; malformed: number }> => {
      const { listener, step } = await recordedWorld(world);
      await step(() => world.link(clusterPath(BASE, LINK), clusterPath(BASE, 'lor1')));
      await step(() => world.state.listenToService('greetings'));

      // Act: the node the link points at gets a write no reader can parse
      await step(() => world.write(clusterPath(BASE, 'lor1'), '{"clusterName": 7}'));
      const kept = world.state.getClusterProperties(LINK)?.properties.v;
      return { events: [...listener.events], kept, malformed: world.state.stats().clusters.malformed };
    };
    const reported: string[] = [];
    const zk = zooKeeperWorld(BASE, (entity, name) => reported.push(`zk ${entity}:${name}`));
    const xds = xdsWorld(BASE, (entity, name) => reported.push(`xds ${entity}:${name}`));

    // Act
    const overZooKeeper = await runBadWrite(zk);
    const overXds = await runBadWrite(xds);
    zk.close();
    xds.close();

    // Assess: listeners of $greetingsMaster hear it (FailoutClient counts it under that name); the document is reported once
    expect(overXds).toEqual(overZooKeeper);
    expect(overZooKeeper).toEqual({ events: [`properties:${LINK}:v=1`, `malformed:${LINK}`], kept: '1', malformed: 1 });
    expect(reported).toEqual(['zk cluster:lor1', 'xds cluster:lor1']);
  });
});
