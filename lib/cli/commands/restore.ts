import { Command } from 'commander';
import { newRequestId } from '../../requests';
import { addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { addSendOptions, sendRequest, type SendOptions } from './send';
import { defaultRequester, evacuation, inputError, isOperatorError, validateLocally, buildRestoreBody, type ConnectionFlags, type OperatorConnections, type OperatorSettings } from '../../operator';
import { isZkError } from '../../zk';
import { EXIT } from '../errors';
import { judgeBeforeSend } from '../judge-before-send';
import { answeredFromRecord } from '../recorded-already';

const EXAMPLES = `
Examples:
  failout restore greetings-lor1
  failout restore greetings-lor1 --reason "INC-4711 resolved" --wait
  failout restore --fabric lor1 --wait      end the evacuation of lor1: stages return, last first
`;

type Flags = SendOptions & ConnectionFlags & { fabric?: string; reason?: string; by?: string; requestId?: string };

/** `failout restore <cluster>` / `failout restore --fabric <fabric>`: end a cluster's failout, or a fabric's evacuation, now. */
export function restoreCommand(rt: CommandRuntime): Command {
  const command = new Command('restore')
    .description("end a cluster's failout now: its traffic returns to it (--fabric: end a fabric's evacuation, stages in reverse order)")
    .argument('[cluster]', 'the D2 cluster to restore (or give --fabric)')
    .option('--fabric <fabric>', "end this fabric's evacuation instead: every stage returns, the last stage first, --restore-gap apart")
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)');
  addConnectionOptions(addSendOptions(command)).addHelpText('after', EXAMPLES);
  return command.action(async (cluster: string | undefined, flags: Flags) => {
    if (cluster !== undefined && flags.fabric !== undefined) throw inputError('give either a cluster or --fabric <fabric>, not both', 'fabric');
    if (cluster === undefined && flags.fabric === undefined) throw inputError('say what to restore: a cluster (failout restore greetings-lor1) or a fabric (failout restore --fabric lor1)', 'cluster');
    const now = rt.io.now();
    const context = { requestId: flags.requestId ?? newRequestId(now), requestedBy: defaultRequester(rt.io.env) };
    if (flags.fabric !== undefined) {
      const body = evacuation.buildRestoreFabricBody(flags.fabric, flags, context);
      // The worker's schema first (exit 2), then its one refusal of a restore: a name that is no fabric
      // and was never evacuated (a typo), judged as the console's Check judges it. Anything else is sent.
      evacuation.validateEvacuation(body, now, rt.io.env);
      await withConnections(flags, rt.io, async (connections, settings) => {
        if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
        if (await refusedBeforeSend(rt, connections, settings, body, { now, json: flags.json })) return;
        return sendRequest(rt, connections, settings, body, flags);
      });
      return;
    }
    const body = buildRestoreBody(cluster!, flags, context);
    // As for `out`: the worker's rules first (exit 2), then its judgement when ZooKeeper is configured.
    const request = validateLocally(body, now, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      if (!(await judgeBeforeSend(rt, connections, settings, { body, request, json: flags.json }, now))) return;
      return sendRequest(rt, connections, settings, body, flags);
    });
  });
}

/**
 * Whether the worker would refuse this `restoreFabric` as it stands in ZooKeeper now (`unknownFabric`:
 * no fabric of that name and never evacuated): printed, exit code 1, nothing sent. ZooKeeper not
 * configured, out of reach or refusing a read: not refused (the worker judges it when it arrives).
 */
async function refusedBeforeSend(rt: CommandRuntime, connections: OperatorConnections, settings: OperatorSettings, body: evacuation.RestoreFabricBody, options: { readonly now: number; readonly json?: boolean | undefined }): Promise<boolean> {
  if (!settings.zkConnect) return false;
  let judged;
  try {
    judged = await evacuation.judgeFabricBody(settings, rt.io.env, body, { now: options.now, session: await connections.zk() });
  } catch (err) {
    // A restore is never held back by a read that failed (out of reach, or a node this session may not read).
    if (!isOperatorError(err, 'unavailable') && !isZkError(err)) throw err;
    return false;
  }
  if (judged.kind !== 'rejected') return false;
  const rejection = { reason: judged.reason, message: judged.message, requestId: body.requestId };
  if (options.json) printJson(rt.io, { requestId: body.requestId, sent: false, request: body, rejection });
  else rt.io.stdout(`${evacuation.formatFabricRejection(body, rejection)}\n  nothing was sent; fix the request and send it again\n`);
  rt.setExit(EXIT.failed);
  return true;
}
