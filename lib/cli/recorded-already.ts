import { isRequestError, type RequestRecord } from '../requests';
import { isZkError } from '../zk';
import { formatPruned, formatRecord, isOperatorError, lookUpRecord, waitForRequestRecord, type OperatorConnections, type OperatorSettings } from '../operator';
import { outcomeExitCode, printJson, type CommandRuntime } from './command-context';
import { EXIT } from './errors';

/** A body the CLI is about to judge and send: its id, its action and what it names (a cluster or a fabric). */
interface SubjectBody {
  readonly requestId: string;
  readonly action: string;
  readonly cluster?: string;
  readonly fabric?: string;
}

/** `failout greetings-lor1`, `evacuate fabric lor1`: as {@link formatRecord} names a record's request. */
function bodySubject(body: SubjectBody): string {
  return body.cluster !== undefined ? `${body.action} ${body.cluster}` : `${body.action} fabric ${body.fabric ?? ''}`;
}

function recordSubject(record: RequestRecord): string {
  return `${record.action ?? 'request'} ${record.cluster ?? (record.fabric === undefined ? '' : `fabric ${record.fabric}`)}`.trimEnd();
}

/**
 * Before judging and sending a request whose id the operator gave (`--request-id`, a resend): when
 * ZooKeeper already holds that id's record, the worker would acknowledge the message as a duplicate
 * and change nothing, whatever the body now says. So the CLI neither judges the new body (its plan
 * would never be applied) nor sends it: it prints the record's outcome as a duplicate's, says when the
 * record is of another request than this one, and sets the exit code (the record's for a resend of
 * the same action on the same cluster or fabric; 1 when the record is of another request, since what
 * was shown is not what happened). An id made before the last prune mark whose record is gone
 * (pruned after the retention) is refused, exit 1: the worker would find no record and apply it again,
 * and `--request-id` promises at most once. True: answered, stop. False: no record (or not looked up:
 * no id given, no ZooKeeper, ZooKeeper out of reach), go on.
 * @throws OperatorError `unavailable` when the record is there but cannot be read (as `--wait` says it).
 */
export async function answeredFromRecord(
  rt: CommandRuntime,
  connections: OperatorConnections,
  settings: OperatorSettings,
  sent: { readonly body: SubjectBody; readonly givenId: string | undefined; readonly json?: boolean | undefined; readonly dryRun?: boolean | undefined },
): Promise<boolean> {
  // A fresh id has no record; only a given one can.
  if (sent.givenId === undefined || !settings.zkConnect) return false;
  const { body } = sent;
  let record: RequestRecord | undefined;
  try {
    record = await waitForRequestRecord(await connections.zk(), settings.requestsBase, [body.requestId], { timeoutMs: 0 });
  } catch (err) {
    if (isOperatorError(err) && isRequestError(err.cause, 'corruptRecord')) throw err;
    if (!isOperatorError(err, 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    rt.io.stderr(`could not look up a record of request ${body.requestId} (${err instanceof Error ? err.message : String(err)}); the worker answers a resend from its record\n`);
    return false;
  }
  if (record === undefined) return answeredAsPruned(rt, connections, settings, sent);
  const same = recordSubject(record) === bodySubject(body);
  if (sent.json) printJson(rt.io, { ...(sent.dryRun ? { dryRun: true } : {}), requestId: body.requestId, sent: false, duplicate: true, request: body, outcome: record });
  else {
    const other = same ? '' : `  its record is of ${recordSubject(record)}, not of this ${bodySubject(body)}: to send this one, leave out --request-id (or give a new id)\n`;
    rt.io.stdout(`request ${body.requestId} has a record already: sending it again would be a duplicate, which changes nothing; nothing was sent\n${formatRecord(record)}\n${other}`);
  }
  rt.setExit(same ? outcomeExitCode(record) : EXIT.failed);
  return true;
}

/** The pruned case of {@link answeredFromRecord}: true (answered, exit 1) when the id's record was pruned. */
async function answeredAsPruned(
  rt: CommandRuntime,
  connections: OperatorConnections,
  settings: OperatorSettings,
  sent: { readonly body: SubjectBody; readonly json?: boolean | undefined; readonly dryRun?: boolean | undefined },
): Promise<boolean> {
  const { body } = sent;
  let lookup;
  try {
    lookup = await lookUpRecord(await connections.zk(), settings.requestsBase, body.requestId);
  } catch (err) {
    if (!isOperatorError(err, 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    rt.io.stderr(`could not tell whether request ${body.requestId} was pruned (${err instanceof Error ? err.message : String(err)})\n`);
    return false;
  }
  if (lookup.state !== 'pruned') return false;
  if (sent.json) {
    printJson(rt.io, { ...(sent.dryRun ? { dryRun: true } : {}), requestId: body.requestId, sent: false, pruned: true, madeAt: new Date(lookup.madeAt).toISOString(), pruneMark: lookup.pruneMark, request: body, outcome: null });
  } else {
    rt.io.stdout(
      `${formatPruned(body.requestId, lookup.madeAt, lookup.pruneMark)}\n` +
        `  the worker would find no record of it, so sending it again could apply it a second time; nothing was sent. To send this ${bodySubject(body)}, leave out --request-id (or give a new id)\n`,
    );
  }
  rt.setExit(EXIT.failed);
  return true;
}
