import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { encodeChangeRequest, type RequestRecord } from '../requests';
import { hideUrlCredentials } from '../text';
import type { OperatorConnections } from './connections';
import { OperatorError, assertIsError, inputError, type OperatorEnv } from './errors';
import { limitsFromEnv } from './local-check';
import { waitForRequestRecord } from './records';
import type { SendableBody } from './request-bodies';
import type { DeleteFabricBody, EvacuateBody, PutFabricBody, RestoreFabricBody } from './fabric-bodies';
import type { FabricDrillBody } from './drill-bodies';
import type { OperatorSettings } from './settings';

/**
 * Sends a request body to the FIFO queue through the one encoder (`encodeChangeRequest`: the worker's
 * schema again, then the one message rule:
 * MessageGroupId = cluster, so requests for one cluster apply in order; MessageDeduplicationId =
 * requestId, so a resend within SQS's 5-minute window is dropped and a later one finds the worker's
 * record). Resolves to the SQS message id.
 * @throws OperatorError `unavailable` saying what to check; a resend with the same request id is safe.
 */
export async function sendChangeRequest(connections: OperatorConnections, env: OperatorEnv, body: SendableBody | PutFabricBody | DeleteFabricBody | EvacuateBody | RestoreFabricBody | FabricDrillBody, now: number = Date.now()): Promise<string | undefined> {
  const queueUrl = connections.queueUrl();
  const encoded = encodeChangeRequest(queueUrl, body, { ...limitsFromEnv(env), now });
  if (!encoded.ok) throw inputError(`the worker would reject this request (${encoded.rejection.reason}): ${encoded.rejection.message}; nothing was sent`);
  try {
    const out = await connections.sqs(env).send(new SendMessageCommand(encoded.message));
    return out.MessageId;
  } catch (err) {
    assertIsError(err);
    // A queue URL may carry user:password@ (a proxy's); the SDK's message may repeat it: neither is shown.
    throw new OperatorError('unavailable', `could not send the request to ${hideUrlCredentials(queueUrl)}: ${hideUrlCredentials(err.message)}. Check FAILOUT_QUEUE_URL / --queue-url, credentials and network; it is safe to send again with the same request id (--request-id ${body.requestId})`, { cause: err });
  }
}

/**
 * Waits up to `timeoutMs` for the worker's record of a sent request: under its request id, or under
 * the SQS message id when the worker could not read the id from the body. Undefined when none came.
 */
export async function waitForOutcome(connections: OperatorConnections, settings: OperatorSettings, sent: { readonly requestId: string; readonly messageId: string | undefined }, timeoutMs: number): Promise<RequestRecord | undefined> {
  const ids = sent.messageId === undefined ? [sent.requestId] : [sent.requestId, sent.messageId];
  return waitForRequestRecord(await connections.zk(), settings.requestsBase, ids, { timeoutMs });
}
