import type { Command } from 'commander';
import type { RequestRecord } from '../../requests';
import { formatRecord, parseDuration, sendChangeRequest, waitForOutcome, type OperatorConnections, type OperatorSettings, type SendableBody } from '../../operator';
import { addOutputOptions, outcomeExitCode, printJson, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';

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
  return addOutputOptions(
    command
      .option('--wait', 'wait for the outcome and print it (exit 1 if rejected)')
      .option('--timeout <duration>', `how long --wait waits (default ${DEFAULT_WAIT})`)
      .option('--request-id <id>', 'reuse a request id (a safe resend: it is applied at most once)'),
  );
}

/** More to tell once `--wait` has the outcome: fields for the `--json` document, and text after the outcome line. */
export interface OutcomeFollowUp {
  readonly json: Readonly<Record<string, unknown>>;
  readonly text: string;
}

/**
 * Sends a request body (lib/operator's `sendChangeRequest`: the one encoder and message rule) and,
 * with `--wait`, waits for its record and prints the outcome. `extraJson` joins the `--json`
 * document (an evacuation's judged `plan`); `followUp`, given the record `--wait` found, may add to
 * what is printed (an evacuation's plan shown again when the worker applied another one).
 */
export async function sendRequest(
  rt: CommandRuntime,
  connections: OperatorConnections,
  settings: OperatorSettings,
  body: SendableBody | Parameters<typeof sendChangeRequest>[2],
  options: SendOptions,
  extraJson: Readonly<Record<string, unknown>> = {},
  followUp?: (record: RequestRecord) => Promise<OutcomeFollowUp | undefined>,
): Promise<void> {
  // A fabric map change names its fabric, every other request its cluster.
  const subject = 'fabric' in body ? `${body.action} fabric ${body.fabric}` : `${body.action} ${body.cluster}`;
  const waitMs = options.wait ? parseDuration(options.timeout ?? DEFAULT_WAIT, '--timeout') : 0;
  // Connect to ZooKeeper before sending: a --wait that cannot read the outcome should fail before the change is queued.
  const session = options.wait ? await connections.zk() : undefined;
  const messageId = await sendChangeRequest(connections, rt.io.env, body, rt.io.now());
  if (!session) {
    if (options.json) printJson(rt.io, { requestId: body.requestId, messageId, sent: true, request: body, ...extraJson });
    else rt.io.stdout(`sent request ${body.requestId} (${subject})\nfollow it with: failout request ${body.requestId}\n`);
    rt.setExit(EXIT.ok);
    return;
  }
  if (!options.json) rt.io.stderr(`sent request ${body.requestId} (${subject}); waiting for the outcome…\n`);
  let record: RequestRecord | undefined;
  try {
    record = await waitForOutcome(connections, settings, { requestId: body.requestId, messageId }, waitMs);
  } catch (err) {
    // Sent, but no outcome can be read (a record that cannot be read, ZooKeeper gone at the deadline):
    // a script still gets its one document, as at a timeout, with why; the error then says it on stderr.
    if (options.json) printJson(rt.io, { requestId: body.requestId, messageId, sent: true, request: body, ...extraJson, outcome: null, error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
  const more = record === undefined || followUp === undefined ? undefined : await followUp(record);
  if (options.json) printJson(rt.io, { requestId: body.requestId, messageId, sent: true, request: body, ...extraJson, outcome: record ?? null, ...more?.json });
  if (!record) {
    rt.io.stderr(
      `no outcome for request ${body.requestId} after ${options.timeout ?? DEFAULT_WAIT}: the worker may be behind or failing. ` +
        `Check later with: failout request ${body.requestId} (and the queue's DLQ)\n`,
    );
    rt.setExit(EXIT.failed);
    return;
  }
  if (!options.json) rt.io.stdout(`${formatRecord(record)}\n${more?.text ?? ''}`);
  rt.setExit(outcomeExitCode(record));
}
