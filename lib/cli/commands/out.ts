import { Command, Option } from 'commander';
import { newRequestId } from '../../requests';
import { addConnectionOptions, defaultRequester, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { formatClusterStatus } from '../format';
import { buildFailoutBody, type OutOptions } from '../request-body';
import type { ConnectionFlags } from '../settings';
import { dryRun, formatCapacity } from '../dry-run';
import { judgeBeforeSend, validateLocally } from '../local-check';
import { addSendOptions, sendRequest, type SendOptions } from './send';

const EXAMPLES = `
Examples:
  failout out greetings-lor1 --peer greetings-lva1:2 --peer greetings-ltx1 --for 2h --reason INC-4711
  failout out greetings-lor1 --peer greetings-lva1 --until 2026-11-30T18:00:00Z --share 50 --wait
  failout out greetings-lor1 --peer greetings-lva1 --at +15m --for 90m --buckets 0-9 --dry-run
  failout out greetings-lor1 --peer greetings-lva1 --for 2h --ramp 10%:5m,50%:10m,100%
  failout out greetings-lor1 --peer greetings-lva1 --for 2h --stop-alarm greetings-lva1-errors
`;

type Flags = OutOptions & SendOptions & ConnectionFlags & { dryRun?: boolean; requestId?: string };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `failout out <cluster> …`: fail a cluster out to its peers for a window. */
export function outCommand(rt: CommandRuntime): Command {
  const command = new Command('out')
    .description("fail a cluster out: send (a share of) its traffic to peers for a time window")
    .argument('<cluster>', 'the D2 cluster to fail out')
    .option('--peer <cluster[:weight]>', 'a peer that takes the traffic, with a positive integer weight (default 1); repeat or comma-separate', collect)
    .addOption(new Option('--for <duration>', 'how long, from when the worker applies it (90m, 2h, 1h30m, PT2H)').conflicts('until'))
    .addOption(new Option('--until <time>', 'when it ends (2026-11-30T18:00:00Z, +2h)').conflicts('for'))
    .option('--at <time>', 'when it starts (default: when applied; 2026-11-30T16:00:00Z, +15m)')
    .addOption(new Option('--share <pct>', 'percentage of traffic to move, 1-100 (default 100)').conflicts('buckets'))
    .addOption(new Option('--buckets <a-b>', 'bucket range to move, within 0-99').conflicts('share'))
    .option('--ramp <steps>', 'move in steps: cumulative % of the moved range (--share/--buckets, default all), each but the last with how long it holds (10%:5m,50%:10m,100%)')
    .option('--stop-alarm <name>', 'a CloudWatch alarm that ends the failout when it goes to ALARM (the guard restores the cluster); repeat for several, at most 5', collect)
    .option('--reason <text>', 'why (an incident id), recorded with the failout')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)')
    .option('--force', 'override the peer-state checks (peer failed out, peer without hosts)')
    .option('--dry-run', 'validate against the current ZooKeeper state; send nothing');
  addConnectionOptions(addSendOptions(command)).addHelpText('after', EXAMPLES);
  return command.action(async (cluster: string, flags: Flags) => {
    const now = rt.io.now();
    const body = buildFailoutBody(cluster, flags, { requestId: flags.requestId ?? newRequestId(now), now, requestedBy: defaultRequester(rt.io.env) });
    // The worker's schema and rules first: a request it can only reject is never sent (exit 2).
    const request = validateLocally(body, now, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (!flags.dryRun) {
        if (!(await judgeBeforeSend(rt, connections, settings, { body, request, json: flags.json }, now))) return;
        return sendRequest(rt, connections, settings, body, flags);
      }
      const result = await dryRun(await connections.zk(), settings, request, now);
      if (flags.json) printJson(rt.io, { dryRun: true, request: body, ...result });
      else if (result.ok) {
        const projection = result.capacity === undefined ? '' : `${formatCapacity(result.capacity)}\n`;
        rt.io.stdout(`dry run: request would be applied; nothing was sent. ${cluster} would then be:\n${formatClusterStatus(result.after, now)}\n${projection}`);
      }
      else rt.io.stdout(`dry run: request would be REJECTED: ${result.rejection.reason} — ${result.rejection.message}\nnothing was sent\n`);
      rt.setExit(result.ok ? EXIT.ok : EXIT.failed);
    });
  });
}
