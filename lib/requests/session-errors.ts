import { isZkError } from '../zk';
import { assertIsError, RequestError, TransientRequestError } from './errors';

/**
 * Maps what the session threw to this module's errors: connection loss, expiry, timeout and closure
 * are transient (the message is retried), `NO_AUTH` is `notAuthorized`; a {@link RequestError} and
 * anything else pass as they are.
 */
export function classifySessionError(e: unknown): Error {
  assertIsError(e);
  if (e instanceof RequestError) return e;
  if (isZkError(e, 'connectionLoss', 'sessionExpired', 'timeout')) {
    return new TransientRequestError(e.kind as 'connectionLoss' | 'sessionExpired' | 'timeout', `ZooKeeper ${e.kind}: ${e.message}`, { cause: e });
  }
  if (isZkError(e, 'closed')) return new TransientRequestError('sessionClosed', `ZooKeeper session closed: ${e.message}`, { cause: e });
  if (isZkError(e, 'noAuth')) return new RequestError('notAuthorized', `ZooKeeper refused the write (NO_AUTH): check the writer's digest credential`, { cause: e });
  return e;
}
