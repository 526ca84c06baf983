import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { FABRIC_MESSAGE_GROUP, isFabricInput } from './fabric-schema';
import { isEvacuationAction } from './evacuate-schema';
import { DRILL_ACTIONS } from './drill-schema';
import { parseRequest, type ChangeRequestInput, type ParsedRequest, type ParseOptions, type Rejection } from './schema';

/**
 * The FIFO group of a request body, the one rule for every sender:
 * - a fabric action (`putFabric`, `deleteFabric`, `evacuate`, `restoreFabric`, and a drain test's
 *   `putDrill`, `deleteDrill`, `skipDrill`; it names no cluster): `FABRIC_MESSAGE_GROUP`, one group
 *   for every map, evacuation and drain test (a map is checked against all the others, and a drain
 *   test's run against every evacuation, so their changes are one sequence), which no cluster's group
 *   can equal (cluster names hold no `/`);
 * - every other request: its cluster, so requests for one cluster apply in order and others never wait.
 */
export function messageGroupOf(body: { readonly action: string; readonly cluster?: string; readonly fabric?: string }): string {
  if (isFabricInput(body) || isEvacuationAction(body)) return FABRIC_MESSAGE_GROUP;
  if ((DRILL_ACTIONS as readonly string[]).includes(body.action) && body.fabric !== undefined && body.cluster === undefined) return FABRIC_MESSAGE_GROUP;
  return body.cluster ?? '';
}

/**
 * The one rule for putting a change request on the FIFO queue (ARCHITECTURE "Change request"),
 * shared by every sender (the operator path of the CLI and the console, the guard and the drill
 * runner in lib/safety):
 * - `MessageGroupId` = {@link messageGroupOf}: the cluster (a fabric map change: `FABRIC_MESSAGE_GROUP`);
 * - `MessageDeduplicationId` = the request id, so a resend within SQS's 5-minute window is dropped
 *   and a later one finds the worker's record (`duplicate`).
 *
 * Returns the SendMessage input only (the AWS SDK's type, erased at run time): this face stays free
 * of the SDK's runtime, and each sender uses the SQS client it already has.
 */
export function changeRequestMessage(queueUrl: string, body: { readonly action?: string; readonly cluster?: string; readonly fabric?: string; readonly requestId: string }): SendMessageCommandInput {
  return { QueueUrl: queueUrl, MessageBody: JSON.stringify(body), MessageGroupId: messageGroupOf({ ...body, action: body.action ?? '' }), MessageDeduplicationId: body.requestId };
}

/** Any request body a client built: JSON with its id, action and cluster (the schema checks the rest). */
export interface SendableRequest {
  readonly version: 1;
  readonly requestId: string;
  readonly action: string;
  readonly cluster: string;
}

/** A request a client built that names a fabric, no cluster (a fabric map change, an evacuation, a drain test's drill action). */
export interface SendableFabricRequest {
  readonly version: 1;
  readonly requestId: string;
  readonly action: 'putFabric' | 'deleteFabric' | 'evacuate' | 'restoreFabric' | 'putDrill' | 'deleteDrill' | 'skipDrill';
  readonly fabric: string;
}

/** A request ready for the queue, or the rejection the worker would record for it. */
export type EncodedRequest =
  | { readonly ok: true; readonly request: ParsedRequest; readonly message: SendMessageCommandInput }
  | { readonly ok: false; readonly rejection: Rejection };

/**
 * The encoder every sender uses: the worker's own schema and guard rails first
 * (`parseRequest`, so a request the worker can only reject is never queued), then the one
 * message rule ({@link changeRequestMessage}).
 */
export function encodeChangeRequest(queueUrl: string, body: ChangeRequestInput | SendableRequest | SendableFabricRequest, options: ParseOptions): EncodedRequest {
  const parsed = parseRequest(body, options);
  if (!parsed.ok) return { ok: false, rejection: parsed.rejection };
  return { ok: true, request: parsed.request, message: changeRequestMessage(queueUrl, body) };
}
