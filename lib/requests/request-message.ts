import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';

/**
 * The one rule for putting a change request on the FIFO queue (ARCHITECTURE "Change request"),
 * shared by every sender (the CLI's `sendRequest`, the guard in lib/safety):
 * - `MessageGroupId` = the cluster, so requests for one cluster apply in order and others never wait;
 * - `MessageDeduplicationId` = the request id, so a resend within SQS's 5-minute window is dropped
 *   and a later one finds the worker's record (`duplicate`).
 *
 * Returns the SendMessage input only (the AWS SDK's type, erased at run time): this face stays free
 * of the SDK's runtime, and each sender uses the SQS client it already has.
 */
export function changeRequestMessage(queueUrl: string, body: { readonly cluster: string; readonly requestId: string }): SendMessageCommandInput {
  return { QueueUrl: queueUrl, MessageBody: JSON.stringify(body), MessageGroupId: body.cluster, MessageDeduplicationId: body.requestId };
}
