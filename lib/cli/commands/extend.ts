import { Command, Option } from 'commander';
import { newRequestId } from '../../requests';
import { addConnectionOptions, withConnections, type CommandRuntime } from '../command-context';
import { addSendOptions, sendRequest, type SendOptions } from './send';
import { adjust, defaultRequester, validateLocally, type ConnectionFlags } from '../../operator';
import { judgeBeforeSend } from '../judge-before-send';
import { answeredFromRecord } from '../recorded-already';

const EXAMPLES = `
Examples:
  failout extend greetings-lor1 --for 1h --wait
  failout extend greetings-lor1 --until 2026-11-30T20:00:00Z --reason "INC-4711 still open"
`;

type Flags = SendOptions & ConnectionFlags & { for?: string; until?: string; reason?: string; by?: string; force?: boolean; requestId?: string };

/** `failout extend <cluster>`: move the end of a cluster's active failout (every window of it), nothing else. */
export function extendCommand(rt: CommandRuntime): Command {
  const command = new Command('extend')
    .description("move the end of a cluster's active failout; peers, shares and ramp steps stay as they are")
    .argument('<cluster>', 'the failed-out D2 cluster')
    .addOption(new Option('--for <duration>', 'the new end, from when the worker applies it (1h, 90m, PT1H)').conflicts('until'))
    .addOption(new Option('--until <time>', 'the new end (2026-11-30T20:00:00Z, +1h)').conflicts('for'))
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)')
    .option('--force', 'override the peer-state checks, the capacity guard and the stranding check (recorded with the request)');
  addConnectionOptions(addSendOptions(command)).addHelpText('after', EXAMPLES);
  return command.action(async (cluster: string, flags: Flags) => {
    const now = rt.io.now();
    const body = adjust.buildExtendBody(cluster, flags, { requestId: flags.requestId ?? newRequestId(now), now, requestedBy: defaultRequester(rt.io.env) });
    // As for `out`: the worker's rules first (exit 2), then its judgement when ZooKeeper is configured.
    const request = validateLocally(body, now, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      if (!(await judgeBeforeSend(rt, connections, settings, { body, request, json: flags.json }, now))) return;
      return sendRequest(rt, connections, settings, body, flags);
    });
  });
}
