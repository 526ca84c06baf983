import { isZkError, type ZkReader, type ZkSession } from '../zk';
import { decodeRequestRecord, isRequestError, lookUpRequestRecord, requestRecordPath, type RecordLookup, type RequestRecord } from '../requests';
import { OperatorError, assertIsError, inputError } from './errors';

/**
 * Reading request records (`/failout/requests/<requestId>`, written by the request worker in the same
 * ZooKeeper multi as the change it records, pruned after a retention).
 */

/**
 * What is known of a request's record: found, pruned (its id says it was made before the last prune
 * mark), or absent. @throws OperatorError `usage` for an id that is no record name, `unavailable` when
 * ZooKeeper does not answer or the node is not a record.
 */
export function lookUpRecord(session: ZkSession, base: string, requestId: string): Promise<RecordLookup> {
  return withCliErrors(base, requestId, () => lookUpRequestRecord(session, base, requestId));
}

/** The record of a request, or undefined when there is none (yet, or any more). Errors as {@link lookUpRecord}'s. */
export function readRequestRecord(session: Pick<ZkReader, 'read'>, base: string, requestId: string): Promise<RequestRecord | undefined> {
  return withCliErrors(base, requestId, async () => {
    const node = await session.read(requestRecordPath(base, requestId));
    return node.exists ? decodeRequestRecord(node.data) : undefined;
  });
}

/** Runs a record read, turning what it throws into what the operator should do. */
async function withCliErrors<T>(base: string, requestId: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    assertIsError(err);
    if (isRequestError(err, 'invalidArgument')) throw inputError(`${JSON.stringify(requestId)} is not a request id: ${err.message}`);
    if (isRequestError(err, 'corruptRecord')) {
      throw new OperatorError('unavailable', `the record of ${requestId} under ${base} cannot be read (${err.message}); it was not written by this request worker`, { cause: err });
    }
    if (isZkError(err) && err.transient) throw new OperatorError('unavailable', `ZooKeeper did not answer reading ${base}/${requestId}: try again, or check ZK_CONNECT / --zk`, { cause: err });
    throw err;
  }
}

/**
 * Polls for a request's record until it appears or `timeoutMs` passes (undefined then). Polling, not a
 * watch: one `get` every `pollMs` is cheap, and survives reconnects with no bookkeeping.
 *
 * `ids` are the names the record may have, in order: the request id, then the SQS message id (the
 * worker records under the message id a body whose request id it cannot read, so `--wait` finds
 * the outcome of any request it sent).
 *
 * A record that is there but cannot be read (not one this worker wrote: a hand edit) ends the wait
 * at once: no later read can tell more, and the worker acknowledges a delivery that finds it as a
 * duplicate, writing nothing.
 * @throws OperatorError `unavailable` saying so, or when ZooKeeper still does not answer at the deadline.
 */
export async function waitForRequestRecord(
  session: Pick<ZkReader, 'read'>,
  base: string,
  ids: readonly string[],
  options: { timeoutMs: number; pollMs?: number },
): Promise<RequestRecord | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    for (const id of ids) {
      const record = await readRequestRecord(session, base, id).catch((err: unknown) => {
        if (err instanceof OperatorError && isRequestError(err.cause, 'corruptRecord')) {
          throw new OperatorError(
            'unavailable',
            `the record of request ${id} under ${base} cannot be read (${err.cause.message}): it was not written by this request worker, so no outcome can be read from it. ` +
              'A delivery of the request that finds it is acknowledged as a duplicate and applies nothing (the worker counts UnreadableRecord); ' +
              'see what is applied with failout status, and send the change again with a new request id if it is still needed',
            { cause: err.cause },
          );
        }
        // A blip while waiting is not the request's outcome: keep waiting until the deadline.
        if (err instanceof OperatorError && err.kind === 'unavailable' && Date.now() < deadline) return undefined;
        throw err;
      });
      if (record) return record;
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}
