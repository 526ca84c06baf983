import { Command } from 'commander';
import { clusterPath, followLinks, isSymlinkName } from '../../d2/data';
import { escapeControlChars } from '../../text';
import { isZkError, type ZkSession } from '../../zk';
import { addOutputOptions, addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { readDrills } from './drill';
import { describeCluster, evacuation, type ClusterStatus, OperatorError, formatClusterStatus, drillsBase, isOperatorError, withDrills, type ConnectionFlags } from '../../operator';

const EXAMPLES = `
Examples:
  failout status                   every cluster by fabric: failed out or serving, windows, peers, who and why; open evacuations
  failout status greetings-lor1
  failout status --json | jq '.clusters[] | select(.state == "failed-out")'
  failout status --json | jq '.evacuations[] | select(.open)'
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
      // A `$` node is a D2 symlink, not a cluster: listed apart, and one asked for shows the cluster it leads to.
      const listed = cluster === undefined ? await listClusters(session, settings.d2Base) : [];
      const links = await Promise.all(listed.filter(isSymlinkName).map((name) => readLink(session, settings.d2Base, name)));
      const link = cluster !== undefined && isSymlinkName(cluster) ? await readLink(session, settings.d2Base, cluster) : undefined;
      if (link !== undefined && link.target === null) throw new OperatorError('rejected', `${cluster!} is a D2 symlink that leads to no cluster (${link.problem ?? 'a link or its target is missing'})`);
      const names = cluster === undefined ? listed.filter((name) => !isSymlinkName(name)) : [link?.target ?? cluster];
      const statuses = await Promise.all(names.map((name) => readStatus(session, settings.d2Base, name, now)));
      const missing = statuses.findIndex((s) => s === undefined);
      if (missing >= 0) throw new OperatorError('rejected', `no cluster ${names[missing]} under ${clusterPath(settings.d2Base)}: check the name (failout status lists them all)`);
      const drills = await readDrills(session, drillsBase(rt.io.env));
      for (const u of drills.unreadable) rt.io.stderr(`warning: drill ${escapeControlChars(u.name)} cannot be read: ${escapeControlChars(u.problem)} (its cluster's drill is not shown)\n`);
      const found = withDrills(statuses as ClusterStatus[], drills.drills, now);
      const fabrics = await readFabricSide(rt, session, settings, now);
      // Shown for one cluster: only its fabric's evacuations.
      const mine = (e: { readonly fabric: string }): boolean => cluster === undefined || e.fabric === fabrics?.fabricOf.get(names[0]!);
      const evacuations = (fabrics?.evacuations ?? []).filter(mine);
      const unreadableEvacuations = (fabrics?.unreadable ?? []).filter(mine);
      const linkLine = link === undefined ? '' : `${escapeControlChars(cluster!)} → ${escapeControlChars(link.target!)} (a D2 symlink)\n`;
      if (flags.json) {
        const clusters = found.map((s) => ({ ...s, fabric: fabrics?.fabricOf.get(s.cluster) ?? null }));
        const linked = cluster === undefined ? { links: links.map(({ name, target }) => ({ name, target })) } : link === undefined ? {} : { link: { name: cluster, target: link.target } };
        printJson(rt.io, { at: new Date(now).toISOString(), clusters, evacuations, unreadableEvacuations, unreadableDrills: drills.unreadable, ...linked });
      } else if (found.length === 0) rt.io.stdout(`no clusters under ${clusterPath(settings.d2Base)}\n${formatLinks(links)}`);
      else if (cluster !== undefined) rt.io.stdout(`${linkLine}${formatOne(found[0]!, { evacuations, unreadable: unreadableEvacuations }, now)}\n`);
      else rt.io.stdout(`${formatByFabric(found, fabrics?.fabricOf ?? new Map(), { evacuations, unreadable: unreadableEvacuations }, now)}${formatLinks(links)}`);
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

/** A `$` node of the cluster directory and the cluster its links lead to (null: none; `problem` says why when the chain is broken). */
interface LinkStatus {
  readonly name: string;
  readonly target: string | null;
  readonly problem?: string;
}

async function readLink(session: ZkSession, base: string, name: string): Promise<LinkStatus> {
  const resolution = await followLinks((path) => session.read(path), clusterPath(base), name);
  if (resolution.kind === 'resolved') return { name, target: resolution.name };
  return resolution.kind === 'broken' ? { name, target: null, problem: resolution.reason } : { name, target: null };
}

/** The links after the clusters: a `$` node is no cluster, so it is neither serving nor malformed. */
function formatLinks(links: readonly LinkStatus[]): string {
  if (links.length === 0) return '';
  const lines = links.map((l) => `  ${escapeControlChars(l.name)} → ${l.target === null ? `no cluster (${escapeControlChars(l.problem ?? 'a link or its target is missing')})` : escapeControlChars(l.target)}`);
  return `\nD2 symlinks (failout status <link> shows the cluster it leads to):\n${lines.join('\n')}\n`;
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
    // A node this session may not read is shown as such; the other clusters still are.
    if (isZkError(err, 'noAuth')) return describeCluster(cluster, err, now);
    throw err;
  }
}

/**
 * Which fabric each cluster is in and the evacuations, or undefined (said on stderr) when a setting
 * keeps them from being read, or an evacuation node this session may not read (noAuth): `failout
 * status` still shows the clusters, ungrouped.
 */
async function readFabricSide(rt: CommandRuntime, session: ZkSession, settings: Parameters<typeof evacuation.readEvacuationStatus>[1], now: number): Promise<evacuation.EvacuationStatus | undefined> {
  try {
    return await evacuation.readEvacuationStatus(session, settings, now);
  } catch (err) {
    if (isOperatorError(err, 'input')) rt.io.stderr(`warning: clusters not grouped by fabric: ${err.message}\n`);
    else if (isZkError(err, 'noAuth')) rt.io.stderr(`warning: clusters not grouped by fabric, evacuations not shown: no READ permission for this session on ${err.path ?? 'a node'} (${err.message})\n`);
    else throw err;
    return undefined;
  }
}

/** The evacuations `failout status` shows: those that decode, and those that do not (the worker treats them as open). */
interface ShownEvacuations {
  readonly evacuations: readonly evacuation.EvacuationSummary[];
  readonly unreadable: readonly evacuation.UnreadableEvacuation[];
}

/**
 * The lines of a fabric's evacuations worth showing: each open one, each one a restore ended whose
 * stages are still coming home (clusters still failed out by it), and each one that cannot be read.
 */
function evacuationLines(shown: ShownEvacuations, fabric: string | undefined, now: number): string[] {
  const of = (e: { readonly fabric: string }): boolean => fabric === undefined || e.fabric === fabric;
  return [
    ...shown.unreadable.filter(of).map((e) => evacuation.formatUnreadableEvacuationLine(e)),
    ...shown.evacuations.filter((e) => (e.open || e.backAt !== undefined) && of(e)).map((e) => evacuation.formatEvacuationLine(e, now)),
  ];
}

/** One cluster, with a line for its fabric's open evacuation (or one that cannot be read). */
function formatOne(status: ClusterStatus, shown: ShownEvacuations, now: number): string {
  return [formatClusterStatus(status, now), ...evacuationLines(shown, undefined, now).map((line) => `  fabric   ${line}`)].join('\n');
}

/**
 * Every cluster under a heading per fabric (fabrics by name, each with its open evacuation and one
 * that cannot be read), then the clusters in no fabric; with no fabric at all, the clusters as they
 * always were listed.
 */
function formatByFabric(found: readonly ClusterStatus[], fabricOf: ReadonlyMap<string, string>, shown: ShownEvacuations, now: number): string {
  const groups = new Map<string, ClusterStatus[]>();
  const none: ClusterStatus[] = [];
  for (const status of found) {
    const fabric = fabricOf.get(status.cluster);
    if (fabric === undefined) none.push(status);
    else groups.set(fabric, [...(groups.get(fabric) ?? []), status]);
  }
  const blocks = (list: readonly ClusterStatus[]): string[] => list.map((s) => formatClusterStatus(s, now));
  // Evacuations of fabrics none of whose clusters are listed (their map deleted since) still show.
  const orphans = evacuationLines({ evacuations: shown.evacuations.filter((e) => !groups.has(e.fabric)), unreadable: shown.unreadable.filter((e) => !groups.has(e.fabric)) }, undefined, now);
  if (groups.size === 0) return `${[...orphans, ...blocks(none)].join('\n')}\n`;
  const sections = [...groups.keys()].sort().map((fabric) => {
    const list = groups.get(fabric)!;
    const heading = `fabric ${escapeControlChars(fabric)}: ${list.length} ${list.length === 1 ? 'cluster' : 'clusters'}`;
    const lines = evacuationLines(shown, fabric, now).map((line) => `  ${line}`);
    return [heading, ...lines, ...blocks(list)].join('\n');
  });
  if (none.length > 0) sections.push([`in no fabric: ${none.length} ${none.length === 1 ? 'cluster' : 'clusters'}`, ...blocks(none)].join('\n'));
  return `${[...orphans, ...sections].join('\n\n')}\n`;
}
