import { isZkError, type ZkSession } from '../zk';
import { decodeRequestRecord, requestRecordPath, type RequestRecord } from '../requests';
import { CliError, assertIsError, usageError } from './errors';

/**
 * Reading request records (`/failout/requests/<requestId>`, written by the request worker in the same
 * ZooKeeper multi as the change it records).
 */

/** The record of a request, or undefined when there is none (yet). */
export async function readRequestRecord(session: ZkSession, base: string, requestId: string): Promise<RequestRecord | undefined> {
  let path: string;
  try {
    path = requestRecordPath(base, requestId);
  } catch (err) {
    assertIsError(err);
    throw usageError(`${JSON.stringify(requestId)} is not a request id: ${err.message}`);
  }
  let data: Buffer;
  try {
    ({ data } = await session.get(path));
  } catch (err) {
    assertIsError(err);
    if (isZkError(err, 'noNode')) return undefined;
    if (isZkError(err) && err.transient) throw new CliError('unavailable', `ZooKeeper did not answer reading ${path}: try again, or check ZK_CONNECT / --zk`, { cause: err });
    throw err;
  }
  try {
    return decodeRequestRecord(data);
  } catch (err) {
    assertIsError(err);
    throw new CliError('unavailable', `the record at ${path} cannot be read (${err.message}); it was not written by this request worker`, { cause: err });
  }
}

/**
 * Polls for a request's record until it appears or `timeoutMs` passes (undefined then). Polling, not a
 * watch: one `get` every `pollMs` is cheap, and survives reconnects with no bookkeeping.
 */
export async function waitForRequestRecord(
  session: ZkSession,
  base: string,
  requestId: string,
  options: { timeoutMs: number; pollMs?: number },
): Promise<RequestRecord | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const record = await readRequestRecord(session, base, requestId).catch((err: unknown) => {
      // A blip while waiting is not the request's outcome: keep waiting until the deadline.
      if (err instanceof CliError && err.kind === 'unavailable' && Date.now() < deadline) return undefined;
      throw err;
    });
    if (record) return record;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}
