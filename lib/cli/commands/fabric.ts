import { Command } from 'commander';
import { escapeControlChars } from '../../text';
import { addConnectionOptions, addOutputOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import {
  buildDeleteFabricBody,
  buildPutFabricBody,
  defaultRequester,
  evacuation,
  isOperatorError,
  measureRequestRates,
  OperatorError,
  readFabrics,
  STATE_LABEL,
  type ConnectionFlags,
  type FabricsView,
  type OperatorConnections,
  type OperatorSettings,
  type RateFlags,
} from '../../operator';
import { judgeFabricChange, newRequestId } from '../../requests';
import { isZkError } from '../../zk';
import { addSendOptions, sendRequest, type SendOptions } from './send';
import { answeredFromRecord } from '../recorded-already';

const EXAMPLES = `
Examples:
  failout fabric list              every fabric: clusters, services, hosts, failed out; unassigned clusters
  failout fabric list --metrics greetings=http://10.0.0.7:9464/metrics --traffic-metric greetings_requests_total
  failout fabric show lor1         each cluster of lor1: service, hosts, state, candidate targets
  failout fabric show lor1 --json | jq '.fabric.clusters[] | select(.state == "failed-out")'
  failout fabric show lor1 --metrics greetings=http://10.0.0.7:9464/metrics --traffic-metric greetings_requests_total
  failout fabric put lor1 --cluster legacy-frontend-a=frontend:web --cluster payments-east-7=payments --wait
  failout fabric delete lor1 --wait

A cluster <service>-<fabric> of a service under /d2/services is in fabric <fabric> (greetings-lor1:
service greetings, fabric lor1; the longest service name wins); the service's clusters in the other
fabrics are its candidate targets. With --metrics (or FAILOUT_METRICS_URLS) and a traffic metric,
list also gives each fabric's requests/s and show each cluster's (two scrapes a second apart, as
failout out --dry-run).
A map node $FAILOUT_FABRICS_PATH/<fabric> (default /failout/fabrics)
places the clusters it names, over the rule. Clusters neither places are listed as unassigned.
put and delete change a map through the request queue, as every change: put replaces the whole map,
and is refused when another fabric's map already names one of its clusters (checked before sending,
with the worker's own rules: nothing is sent then).
`;

type Flags = ConnectionFlags & { json?: boolean };
type FabricView = FabricsView['fabrics'][number];

/** Subcommands inherit neither exitOverride nor the output hooks: set them on each. */
function wired(rt: CommandRuntime, command: Command): Command {
  return command
    .exitOverride()
    .showHelpAfterError('(add --help for usage and examples)')
    .configureOutput({ writeOut: (text) => rt.io.stdout(text), writeErr: (text) => rt.io.stderr(text) });
}

/** `failout fabric list|show`: the fabrics (named sets of clusters) as ZooKeeper holds them now. */
export function fabricCommand(rt: CommandRuntime): Command {
  const fabric = new Command('fabric').description('fabrics (data centers): their clusters, services, hosts, and which are failed out').addHelpText('after', EXAMPLES);
  for (const sub of [listCommand(rt), showCommand(rt), putCommand(rt), deleteCommand(rt)]) fabric.addCommand(wired(rt, sub));
  return fabric;
}

function listCommand(rt: CommandRuntime): Command {
  const command = new Command('list')
    .description('every fabric: clusters, services, hosts, failed out, and requests/s where measured; unassigned clusters and broken maps')
    .option('--metrics <service=url>', "a service instance's Prometheus text URL, for each fabric's requests/s (repeat; default $FAILOUT_METRICS_URLS)", collect)
    .option('--traffic-metric <name>', 'a counter of every request by target cluster (label cluster) that services export (default $FAILOUT_TRAFFIC_METRIC)');
  addOutputOptions(addConnectionOptions(command));
  return command.action(async (flags: Flags & RateFlags) => {
    await withConnections(flags, rt.io, async (connections, settings) => {
      const measured = await measureRequestRates(flags, rt.io.env);
      for (const warning of measured?.json.warnings ?? []) rt.io.stderr(`traffic: ${escapeControlChars(warning)}\n`);
      const rates = measured?.rates?.byCluster;
      const now = rt.io.now();
      const view = await readFabrics(await connections.zk(), settings, now);
      if (flags.json) {
        const fabrics = view.fabrics.map((f) => ({
          name: f.name,
          clusters: f.clusters.map((c) => c.cluster),
          services: f.services,
          hosts: f.hosts,
          failedOut: f.failedOut,
          ...(rates === undefined ? {} : { requestsPerSecond: round(fabricRate(f, rates)) }),
        }));
        printJson(rt.io, { at: new Date(now).toISOString(), ...view, fabrics, ...(measured === undefined ? {} : { traffic: measured.json }) });
      } else rt.io.stdout(formatFabricList(view, rates));
      rt.setExit(EXIT.ok);
    });
  });
}

/** The requests/s a fabric's clusters serve: the sum of their measured rates (a cluster with none counts 0). */
function fabricRate(fabric: FabricView, rates: ReadonlyMap<string, number>): number {
  return fabric.clusters.reduce((sum, c) => sum + (rates.get(c.cluster) ?? 0), 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function showCommand(rt: CommandRuntime): Command {
  const command = new Command('show')
    .description("one fabric's clusters: service, hosts, state (failed out, scheduled, serving), candidate targets, and requests/s where measured")
    .argument('<fabric>', 'the fabric (failout fabric list names them)')
    .option('--metrics <service=url>', "a service instance's Prometheus text URL, for each cluster's requests/s (repeat; default $FAILOUT_METRICS_URLS)", collect)
    .option('--traffic-metric <name>', 'a counter of every request by target cluster (label cluster) that services export (default $FAILOUT_TRAFFIC_METRIC)');
  addOutputOptions(addConnectionOptions(command));
  return command.action(async (name: string, flags: Flags & RateFlags) => {
    await withConnections(flags, rt.io, async (connections, settings) => {
      const measured = await measureRequestRates(flags, rt.io.env);
      for (const warning of measured?.json.warnings ?? []) rt.io.stderr(`traffic: ${escapeControlChars(warning)}\n`);
      const now = rt.io.now();
      const view = await readFabrics(await connections.zk(), settings, now);
      const fabric = view.fabrics.find((f) => f.name === name);
      // The fabric's own map when it does not decode: said, whether the rule still gives the fabric or not.
      const brokenMap = view.brokenMaps.find((b) => b.fabric === name);
      if (fabric === undefined) {
        if (brokenMap !== undefined) throw new OperatorError('rejected', `no fabric named ${JSON.stringify(name)}: its map does not decode (${brokenMap.problem}), and no cluster is named <service>-${name} after a service (failout fabric list shows the fabrics)`);
        const known = view.fabrics.length === 0 ? 'there are none yet (no cluster is named <service>-<fabric> after a service, and no fabric map exists)' : `the fabrics are ${view.fabrics.map((f) => f.name).join(', ')}`;
        throw new OperatorError('rejected', `no fabric named ${JSON.stringify(name)}: ${known} (failout fabric list shows them)`);
      }
      const rates = measured?.rates?.byCluster;
      if (flags.json) printJson(rt.io, { at: new Date(now).toISOString(), fabric, ...(brokenMap === undefined ? {} : { brokenMap }), ...(measured === undefined ? {} : { traffic: measured.json }) });
      else rt.io.stdout(`${formatFabricShow(fabric, rates)}${brokenMap === undefined ? '' : `  the map of fabric ${safe(brokenMap.fabric)} does not decode (left out: the rule applies to its clusters): ${safe(brokenMap.problem)}\n`}`);
      rt.setExit(EXIT.ok);
    });
  });
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

type SendFlags = SendOptions & ConnectionFlags & { requestId?: string; reason?: string; by?: string };

function putCommand(rt: CommandRuntime): Command {
  const command = new Command('put')
    .description("write (or replace) a fabric's map: the clusters it places in the fabric, over the naming rule")
    .argument('<fabric>', 'the fabric')
    .option('--cluster <cluster=service[:tier]>', 'a cluster of the map, the service it serves and its tier (repeat)', collect)
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)');
  addConnectionOptions(addSendOptions(command));
  return command.action(async (fabric: string, flags: SendFlags & { cluster?: string[] }) => {
    const now = rt.io.now();
    const body = buildPutFabricBody(fabric, flags, { requestId: flags.requestId ?? newRequestId(now), requestedBy: defaultRequester(rt.io.env) });
    // The worker's schema and the map's rules first: a map it can only reject is never sent (exit 2).
    const request = evacuation.validateFabricChange(body, now, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      if (!(await judgeMapBeforeSend(rt, connections, settings, { body, request, json: flags.json }))) return;
      await sendRequest(rt, connections, settings, body, flags);
    });
  });
}

/**
 * Judges a map change against the maps in ZooKeeper before sending, with the worker's own check
 * (`judgeFabricChange`), when ZooKeeper is configured. True: send it. False: refused (printed with the
 * worker's reason, exit code 1, nothing sent). ZooKeeper out of reach: a warning, then true (the
 * worker checks it again when it arrives).
 */
async function judgeMapBeforeSend(
  rt: CommandRuntime,
  connections: OperatorConnections,
  settings: OperatorSettings,
  sent: { readonly body: ReturnType<typeof buildPutFabricBody>; readonly request: Parameters<typeof judgeFabricChange>[1]; readonly json?: boolean | undefined },
): Promise<boolean> {
  if (!settings.zkConnect) return true;
  let rejection;
  try {
    rejection = await judgeFabricChange({ session: await connections.zk(), fabricsPath: settings.fabricsBase }, sent.request);
  } catch (err) {
    if (!isOperatorError(err, 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    rt.io.stderr(`could not check the map against ZooKeeper (${err instanceof Error ? err.message : String(err)}); sending it, the worker checks it again\n`);
    return true;
  }
  if (rejection === undefined) return true;
  if (sent.json) printJson(rt.io, { requestId: sent.body.requestId, sent: false, request: sent.body, rejection });
  else rt.io.stdout(`${evacuation.formatFabricRejection(sent.body, rejection)}\n  nothing was sent; fix the map (or change that fabric's map first) and put it again\n`);
  rt.setExit(EXIT.failed);
  return false;
}

function deleteCommand(rt: CommandRuntime): Command {
  const command = new Command('delete')
    .description("delete a fabric's map (its clusters follow the naming rule again)")
    .argument('<fabric>', 'the fabric')
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)');
  addConnectionOptions(addSendOptions(command));
  return command.action(async (fabric: string, flags: SendFlags) => {
    const body = buildDeleteFabricBody(fabric, flags, { requestId: flags.requestId ?? newRequestId(rt.io.now()), requestedBy: defaultRequester(rt.io.env) });
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      await sendRequest(rt, connections, settings, body, flags);
    });
  });
}

/** A value from data as the terminal may show it (issue 14): control characters as escapes. */
const safe = (text: string): string => escapeControlChars(text);

/**
 * The `fabric list` text: one row per fabric (with `rates`, the requests/s its clusters serve, as
 * measured by target cluster), then what belongs to none and what could not be read.
 */
export function formatFabricList(view: FabricsView, rates?: ReadonlyMap<string, number>): string {
  const lines: string[] = [];
  if (view.fabrics.length === 0) lines.push('no fabrics: no cluster is named <service>-<fabric> after a service under /d2/services, and no fabric map places one');
  else {
    const rows = view.fabrics.map((f) => [safe(f.name), String(f.clusters.length), String(f.services.length), String(f.hosts), ...(rates === undefined ? [] : [fabricRate(f, rates).toFixed(1)]), String(f.failedOut)]);
    lines.push(...table(['FABRIC', 'CLUSTERS', 'SERVICES', 'HOSTS', ...(rates === undefined ? [] : ['REQ/S']), 'FAILED OUT'], rows));
  }
  if (view.unassigned.length > 0) {
    lines.push('', 'unassigned (no service name prefixes them as <service>-<fabric>, no fabric map names them):');
    lines.push(...view.unassigned.map((u) => `  ${safe(u.cluster)}  ${u.hosts} hosts  ${STATE_LABEL[u.state]}`));
  }
  if (view.brokenMaps.length > 0) {
    lines.push('', 'broken fabric maps (left out: the rule applies to their clusters):');
    lines.push(...view.brokenMaps.map((b) => `  ${safe(b.fabric)}: ${safe(b.problem)}`));
  }
  if (view.conflicts.length > 0) {
    lines.push('', 'clusters several fabric maps name (each stays in the first):');
    lines.push(...view.conflicts.map((c) => `  ${safe(c.cluster)}: ${c.fabrics.map(safe).join(', ')} (in ${safe(c.kept)})`));
  }
  if (view.missing.length > 0) {
    lines.push('', 'fabric maps name clusters D2 does not have:');
    lines.push(...view.missing.map((m) => `  ${safe(m.fabric)}: ${safe(m.cluster)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** The `fabric show` text: a summary line, then one row per cluster. */
export function formatFabricShow(fabric: FabricView, rates?: ReadonlyMap<string, number>): string {
  const services = `${fabric.services.length} ${fabric.services.length === 1 ? 'service' : 'services'}${fabric.services.length === 0 ? '' : ` (${fabric.services.map(safe).join(', ')})`}`;
  const lines = [`fabric ${safe(fabric.name)}: ${fabric.clusters.length} clusters, ${services}, ${fabric.hosts} hosts, ${fabric.failedOut} failed out`];
  if (fabric.clusters.length === 0) {
    lines.push('  no cluster: its map names only clusters D2 does not have (failout fabric list shows them)');
    return `${lines.join('\n')}\n`;
  }
  const tiers = fabric.clusters.some((c) => c.tier !== undefined);
  const header = ['CLUSTER', 'SERVICE', ...(tiers ? ['TIER'] : []), 'HOSTS', ...(rates === undefined ? [] : ['REQ/S']), 'STATE', 'SOURCE', 'TARGETS'];
  const rows = fabric.clusters.map((c) => [
    safe(c.cluster),
    safe(c.service),
    ...(tiers ? [safe(c.tier ?? '-')] : []),
    String(c.hosts),
    ...(rates === undefined ? [] : [(rates.get(c.cluster) ?? 0).toFixed(1)]),
    STATE_LABEL[c.state],
    c.source,
    c.targets.length === 0 ? 'none (no cluster of the service in another fabric)' : c.targets.map((t) => `${safe(t.cluster)} (${safe(t.fabric)})`).join(', '),
  ]);
  lines.push(...table(header, rows));
  for (const c of fabric.clusters.filter((c) => c.problem !== undefined)) lines.push(`  ${safe(c.cluster)}: ${safe(c.problem ?? '')}`);
  return `${lines.join('\n')}\n`;
}

/** Left-aligned columns two spaces apart; the last column is not padded. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)];
}
