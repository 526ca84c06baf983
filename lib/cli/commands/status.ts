import { Command } from 'commander';
import { clusterPath } from '../../d2/data';
import { isZkError, type ZkSession } from '../../zk';
import { addOutputOptions, addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { readDrills } from './drill';
import { describeCluster, type ClusterStatus, OperatorError, formatClusterStatus, drillsBase, withDrills, type ConnectionFlags } from '../../operator';

const EXAMPLES = `
Examples:
  failout status                   every cluster: failed out or serving, windows, peers, who and why
  failout status greetings-lor1
  failout status --json | jq '.clusters[] | select(.state == "failed-out")'
`;

type Flags = ConnectionFlags & { json?: boolean };

/** `failout status [cluster]`: what ZooKeeper says now, per cluster. */
export function statusCommand(rt: CommandRuntime): Command {
  const command = new Command('status')
    .description('show, per cluster: failed out or not, the window, peers with weights, share of traffic, who and why')
    .argument('[cluster]', 'one cluster (default: all)');
  addOutputOptions(addConnectionOptions(command)).addHelpText('after', EXAMPLES);
  return command.action(async (cluster: string | undefined, flags: Flags) => {
    await withConnections(flags, rt.io, async (connections, settings) => {
      const session = await connections.zk();
      const now = rt.io.now();
      const names = cluster === undefined ? await listClusters(session, settings.d2Base) : [cluster];
      const statuses = await Promise.all(names.map((name) => readStatus(session, settings.d2Base, name, now)));
      const missing = statuses.findIndex((s) => s === undefined);
      if (missing >= 0) throw new OperatorError('rejected', `no cluster ${names[missing]} under ${clusterPath(settings.d2Base)}: check the name (failout status lists them all)`);
      const found = withDrills(statuses as ClusterStatus[], await readDrills(session, drillsBase(rt.io.env)), now);
      if (flags.json) printJson(rt.io, { at: new Date(now).toISOString(), clusters: found });
      else if (found.length === 0) rt.io.stdout(`no clusters under ${clusterPath(settings.d2Base)}\n`);
      else rt.io.stdout(`${found.map((s) => formatClusterStatus(s, now)).join('\n')}\n`);
      rt.setExit(EXIT.ok);
    });
  });
}

async function listClusters(session: ZkSession, base: string): Promise<string[]> {
  try {
    return [...(await session.children(clusterPath(base))).children].sort();
  } catch (err) {
    if (isZkError(err, 'noNode')) return [];
    throw err;
  }
}

async function readStatus(session: ZkSession, base: string, cluster: string, now: number): Promise<ClusterStatus | undefined> {
  let path: string;
  try {
    path = clusterPath(base, cluster);
  } catch {
    throw new OperatorError('input', `${JSON.stringify(cluster)} is not a valid cluster name`);
  }
  try {
    const { data } = await session.get(path);
    return describeCluster(cluster, data.toString('utf8'), now);
  } catch (err) {
    if (isZkError(err, 'noNode')) return undefined;
    throw err;
  }
}
