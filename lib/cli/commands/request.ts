import { Command } from 'commander';
import { addOutputOptions, addConnectionOptions, outcomeExitCode, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { OperatorError, formatPruned, formatRecord, lookUpRecord, type ConnectionFlags } from '../../operator';
import { formatRemaining } from '../../text';

const EXAMPLES = `
Examples:
  failout request 6c1f0d0e-8a4b-4c0e-9a55-0b5e3f1c2d7a
  failout request 6c1f0d0e-8a4b-4c0e-9a55-0b5e3f1c2d7a --json
`;

type Flags = ConnectionFlags & { json?: boolean };

/**
 * `failout request <id>`: the recorded outcome of one request. Exit 1 when rejected, not (yet)
 * recorded, or pruned (records are kept for a retention; see lib/requests `record-retention.ts`).
 */
export function requestCommand(rt: CommandRuntime): Command {
  const command = new Command('request')
    .description('show the outcome the worker recorded for a request: applied, duplicate or rejected (with the reason)')
    .argument('<id>', 'the request id printed when it was sent');
  addOutputOptions(addConnectionOptions(command)).addHelpText('after', EXAMPLES);
  return command.action(async (id: string, flags: Flags) => {
    await withConnections(flags, rt.io, async (connections, settings) => {
      const lookup = await lookUpRecord(await connections.zk(), settings.requestsBase, id);
      if (lookup.state === 'pruned') {
        if (flags.json) printJson(rt.io, { requestId: id, outcome: null, pruned: true, madeAt: new Date(lookup.madeAt).toISOString(), pruneMark: lookup.pruneMark });
        else rt.io.stdout(`${formatPruned(id, lookup.madeAt, lookup.pruneMark)}\n`);
        rt.setExit(EXIT.failed);
        return;
      }
      if (lookup.state === 'absent') {
        if (flags.json) printJson(rt.io, { requestId: id, outcome: null });
        const kept = lookup.pruneMark ? `; records are kept ${formatRemaining(lookup.pruneMark.retentionMs)}, so an older one may have been pruned` : '';
        throw new OperatorError('rejected', `no record of request ${id} yet: it may still be queued or retrying (check the queue and its DLQ), or the id is wrong${kept}`);
      }
      const record = lookup.record;
      if (flags.json) printJson(rt.io, record);
      else rt.io.stdout(`${formatRecord(record)}\n`);
      rt.setExit(outcomeExitCode(record));
    });
  });
}
