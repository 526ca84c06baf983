import type { Command } from 'commander';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { changeRequestMessage } from '../../requests';
import { parseDuration } from '../args';
import type { CommandRuntime } from '../command-context';
import { exitCodeOf, printJson } from '../command-context';
import type { CliConnections } from '../connections';
import { CliError, EXIT, assertIsError } from '../errors';
import { formatRecord } from '../format';
import { waitForRequestRecord } from '../records';
import type { SendableBody } from '../request-body';
import type { CliSettings } from '../settings';

/** Options shared by the commands that send a request. */
export interface SendOptions {
  wait?: boolean;
  timeout?: string;
  json?: boolean;
}

/** How long `--wait` waits by default. */
export const DEFAULT_WAIT = '60s';

/** The options every command that sends a request takes after its own: wait, timeout, request id, JSON output. */
export function addSendOptions(command: Command): Command {
  return command
    .option('--wait', 'wait for the outcome and print it (exit 1 if rejected)')
    .option('--timeout <duration>', `how long --wait waits (default ${DEFAULT_WAIT})`)
    .option('--request-id <id>', 'reuse a request id (a safe resend: it is applied at most once)')
    .option('--json', 'machine-readable output');
}

/**
 * Sends a request body to the FIFO queue (MessageGroupId = cluster, so requests for one cluster apply
 * in order; MessageDeduplicationId = requestId, so a resend within SQS's 5-minute window is dropped and
 * a later one finds the worker's record) and, with `--wait`, waits for its record.
 */
export async function sendRequest(rt: CommandRuntime, connections: CliConnections, settings: CliSettings, body: SendableBody, options: SendOptions): Promise<void> {
  const waitMs = options.wait ? parseDuration(options.timeout ?? DEFAULT_WAIT, '--timeout') : 0;
  const queueUrl = connections.queueUrl();
  // Connect to ZooKeeper before sending: a --wait that cannot read the outcome should fail before the change is queued.
  const session = options.wait ? await connections.zk() : undefined;
  let messageId: string | undefined;
  try {
    const out = await connections.sqs(rt.io.env).send(new SendMessageCommand(changeRequestMessage(queueUrl, body)));
    messageId = out.MessageId;
  } catch (err) {
    assertIsError(err);
    throw new CliError('unavailable', `could not send the request to ${queueUrl}: ${err.message}. Check FAILOUT_QUEUE_URL / --queue-url, credentials and network; it is safe to retry with --request-id ${body.requestId}`, { cause: err });
  }
  if (!session) {
    if (options.json) printJson(rt.io, { requestId: body.requestId, messageId, sent: true, request: body });
    else rt.io.stdout(`sent request ${body.requestId} (${body.action} ${body.cluster})\nfollow it with: failout request ${body.requestId}\n`);
    rt.setExit(EXIT.ok);
    return;
  }
  if (!options.json) rt.io.stderr(`sent request ${body.requestId} (${body.action} ${body.cluster}); waiting for the outcome…\n`);
  // Under the request id; under the message id when the worker could not read the id from the body.
  const ids = messageId === undefined ? [body.requestId] : [body.requestId, messageId];
  const record = await waitForRequestRecord(session, settings.requestsBase, ids, { timeoutMs: waitMs });
  if (options.json) printJson(rt.io, { requestId: body.requestId, messageId, sent: true, request: body, outcome: record ?? null });
  if (!record) {
    rt.io.stderr(
      `no outcome for request ${body.requestId} after ${options.timeout ?? DEFAULT_WAIT}: the worker may be behind or failing. ` +
        `Check later with: failout request ${body.requestId} (and the queue's DLQ)\n`,
    );
    rt.setExit(EXIT.failed);
    return;
  }
  if (!options.json) rt.io.stdout(`${formatRecord(record)}\n`);
  rt.setExit(exitCodeOf(record));
}
