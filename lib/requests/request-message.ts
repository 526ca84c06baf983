import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { parseChangeRequest, type ChangeRequest, type ChangeRequestInput, type ParseOptions, type Rejection } from './schema';

/**
 * The one rule for putting a change request on the FIFO queue (ARCHITECTURE "Change request"),
 * shared by every sender (the operator path of the CLI and the console, the guard and the drill
 * runner in lib/safety):
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

/** Any request body a client built: JSON with its id, action and cluster (the schema checks the rest). */
export interface SendableRequest {
  readonly version: 1;
  readonly requestId: string;
  readonly action: string;
  readonly cluster: string;
}

/** A request ready for the queue, or the rejection the worker would record for it. */
export type EncodedRequest =
  | { readonly ok: true; readonly request: ChangeRequest; readonly message: SendMessageCommandInput }
  | { readonly ok: false; readonly rejection: Rejection };

/**
 * The encoder every sender uses: the worker's own schema and guard rails first
 * (`parseChangeRequest`, so a request the worker can only reject is never queued), then the one
 * message rule ({@link changeRequestMessage}).
 */
export function encodeChangeRequest(queueUrl: string, body: ChangeRequestInput | SendableRequest, options: ParseOptions): EncodedRequest {
  const parsed = parseChangeRequest(body, options);
  if (!parsed.ok) return { ok: false, rejection: parsed.rejection };
  return { ok: true, request: parsed.request, message: changeRequestMessage(queueUrl, body) };
}
