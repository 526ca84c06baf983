import { judgeRequest, viewPathFor, type ChangeRequest, type RequestRates } from '../requests';
import { formatLocalRejection, isOperatorError, notesBeforeSend, type OperatorConnections, type OperatorSettings, type SendableBody } from '../operator';
import { isZkError } from '../zk';
import { printJson, type CommandRuntime } from './command-context';
import { EXIT } from './errors';

/**
 * Judges the request against ZooKeeper before sending, when ZooKeeper is configured. True: send it.
 * False: it was refused (printed, exit code 1 set). ZooKeeper unreachable: a warning, then true.
 * What an applicable judgement holds worth telling (`notesBeforeSend`: a restore removing an
 * unreadable failout, a failout's projection from measured request `rates`) goes to stderr;
 * `--dry-run` shows both projections.
 */
export async function judgeBeforeSend(
  rt: CommandRuntime,
  connections: OperatorConnections,
  settings: OperatorSettings,
  sent: { readonly body: SendableBody; readonly request: ChangeRequest; readonly json?: boolean | undefined; readonly rates?: RequestRates | undefined },
  now: number,
): Promise<boolean> {
  const { body, request } = sent;
  if (!settings.zkConnect) return true;
  let judgement;
  try {
    judgement = await judgeRequest(await connections.zk(), settings.d2Base, request, now, { maxPeerLoadFactor: settings.maxPeerLoadFactor, viewPath: viewPathFor(settings.requestsBase) });
  } catch (err) {
    if (!isOperatorError(err, 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    rt.io.stderr(`could not check the request against ZooKeeper (${err instanceof Error ? err.message : String(err)}); sending it, the worker checks it again\n`);
    return true;
  }
  if (judgement.verdict === 'apply') {
    for (const line of notesBeforeSend(body, judgement, sent.rates)) rt.io.stderr(`${line}\n`);
    return true;
  }
  if (sent.json) printJson(rt.io, { requestId: body.requestId, sent: false, request: body, rejection: judgement.rejection });
  else rt.io.stdout(`${formatLocalRejection(body, judgement.rejection)}\n  nothing was sent; fix the request and send it again (add --force only to override peer-state checks)\n`);
  rt.setExit(EXIT.failed);
  return false;
}
