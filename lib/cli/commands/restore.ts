import { Command } from 'commander';
import { newRequestId } from '../../requests';
import { addConnectionOptions, withConnections, type CommandRuntime } from '../command-context';
import { addSendOptions, sendRequest, type SendOptions } from './send';
import { defaultRequester, validateLocally, buildRestoreBody, type ConnectionFlags } from '../../operator';
import { judgeBeforeSend } from '../judge-before-send';

const EXAMPLES = `
Examples:
  failout restore greetings-lor1
  failout restore greetings-lor1 --reason "INC-4711 resolved" --wait
`;

type Flags = SendOptions & ConnectionFlags & { reason?: string; by?: string; requestId?: string };

/** `failout restore <cluster>`: end a cluster's failout now. */
export function restoreCommand(rt: CommandRuntime): Command {
  const command = new Command('restore')
    .description("end a cluster's failout now: its traffic returns to it")
    .argument('<cluster>', 'the D2 cluster to restore')
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)');
  addConnectionOptions(addSendOptions(command)).addHelpText('after', EXAMPLES);
  return command.action(async (cluster: string, flags: Flags) => {
    const now = rt.io.now();
    const body = buildRestoreBody(cluster, flags, { requestId: flags.requestId ?? newRequestId(now), requestedBy: defaultRequester(rt.io.env) });
    // As for `out`: the worker's rules first (exit 2), then its judgement when ZooKeeper is configured.
    const request = validateLocally(body, now, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (!(await judgeBeforeSend(rt, connections, settings, { body, request, json: flags.json }, now))) return;
      return sendRequest(rt, connections, settings, body, flags);
    });
  });
}
