import { judgeRequest, viewPathFor, type ChangeRequest, type RequestRates } from '../requests';
import { formatCapacity, formatLocalRejection, formatUnreadableFailout, isOperatorError, projectByRates, type OperatorConnections, type OperatorSettings, type SendableBody } from '../operator';
import { isZkError } from '../zk';
import { printJson, type CommandRuntime } from './command-context';
import { EXIT } from './errors';

/**
 * Judges the request against ZooKeeper before sending, when ZooKeeper is configured. True: send it.
 * False: it was refused (printed, exit code 1 set). ZooKeeper unreachable: a warning, then true.
 * With measured request `rates`, a failout's projection from them goes to stderr, with a warning when
 * a peer would pass the limit by them: the worker judges by host counts, so that alone does not stop
 * the request (`--dry-run` shows both; a rate measured in one second is no reason to refuse a failout
 * in an incident).
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
    // A restore of a failout no reader can read: say what it will do before it is sent.
    if (judgement.unreadableFailout !== undefined) rt.io.stderr(`${body.action} ${body.cluster} ${formatUnreadableFailout(judgement.unreadableFailout)}\n`);
    const byRates = judgement.capacity === undefined ? {} : projectByRates(judgement.capacity, sent.rates);
    if (byRates.ratesUnused !== undefined) rt.io.stderr(`request rates not used (${byRates.ratesUnused}); the worker judges by host counts\n`);
    const projection = byRates.capacityByRates;
    if (projection !== undefined) {
      rt.io.stderr(`${formatCapacity(projection)}\n`);
      const over = projection.peers.filter((p) => p.over).map((p) => p.cluster);
      if (over.length > 0) rt.io.stderr(`warning: by request rates ${over.join(', ')} would pass ×${projection.maxPeerLoadFactor}; the worker judges by host counts and will apply it (see --dry-run)\n`);
    }
    return true;
  }
  if (sent.json) printJson(rt.io, { requestId: body.requestId, sent: false, request: body, rejection: judgement.rejection });
  else rt.io.stdout(`${formatLocalRejection(body, judgement.rejection)}\n  nothing was sent; fix the request and send it again (add --force only to override peer-state checks)\n`);
  rt.setExit(EXIT.failed);
  return false;
}
