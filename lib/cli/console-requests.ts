/**
 * The console's request side (lib/console `ConsoleRequests`), made of the CLI's own parts so that a
 * request from the page is the one `failout out|extend|restore` would send: the CLI's body builders
 * (`request-body.ts`), the worker's schema and guard rails (`validateLocally`), the dry-run judge
 * (`dryRun`, the worker's `judgeRequest`) and the one queue message rule (`changeRequestMessage`).
 */
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { ActionFields, CheckResult, ConsoleAction, ConsoleRequests, PreparedBody, QueueProbe } from '../console';
import { changeRequestMessage, newRequestId } from '../requests';
import { isZkError } from '../zk';
import { describeFailout } from './cluster-status';
import { CliConnections } from './connections';
import { dryRun, formatProjections } from './dry-run';
import { CliError } from './errors';
import { formatClusterStatus } from './format';
import type { CliIo } from './io';
import { validateLocally } from './local-check';
import { buildExtendBody, buildFailoutBody, buildRestoreBody, type OutOptions, type RequestBody } from './request-body';
import type { CliSettings } from './settings';

/** A body the console checked, with the CLI's full body kept for the send. */
interface CheckedBody extends PreparedBody {
  readonly full: RequestBody;
}

/** Comma-separated list → the repeated flag's values (empty entries dropped). */
function list(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(',').map((v) => v.trim()).filter((v) => v !== '');
  return values.length === 0 ? undefined : values;
}

/** The form's fields as `failout out`'s options (commander hands the same strings over). */
function outOptions(fields: ActionFields): OutOptions {
  const options: OutOptions = {};
  const peers = list(fields.peers);
  if (peers) options.peer = peers;
  const stopAlarms = list(fields.stopAlarms);
  if (stopAlarms) options.stopAlarm = stopAlarms;
  for (const key of ['for', 'until', 'at', 'share', 'buckets', 'ramp', 'reason', 'by'] as const) {
    const value = fields[key];
    if (value !== undefined) options[key] = value;
  }
  if (fields.force === true) options.force = true;
  return options;
}

/** Builds the body the CLI would for this action. @throws CliError `usage`. */
function buildBody(action: ConsoleAction, fields: ActionFields, context: { requestId: string; now: number; requestedBy: string }): RequestBody {
  const reasonBy = { ...(fields.reason === undefined ? {} : { reason: fields.reason }), ...(fields.by === undefined ? {} : { by: fields.by }) };
  switch (action) {
    case 'failout':
      return buildFailoutBody(fields.cluster, outOptions(fields), context);
    case 'extend':
      return buildExtendBody(fields.cluster, { ...reasonBy, ...(fields.for === undefined ? {} : { for: fields.for }), ...(fields.until === undefined ? {} : { until: fields.until }) }, context);
    case 'restore':
      return buildRestoreBody(fields.cluster, reasonBy, context);
  }
}

/**
 * The console's request side over the CLI's settings. `requestedBy` is the default requester (the
 * form's `by` overrides it, as `--by` does).
 */
export function createConsoleRequests(settings: CliSettings, env: CliIo['env'], requestedBy: string): ConsoleRequests {
  const connections = new CliConnections(settings);
  return {
    queueUrl: settings.queueUrl,
    async check(action, fields, options): Promise<CheckResult> {
      const requestId = options.requestId ?? newRequestId(options.now);
      let full: RequestBody;
      let request;
      try {
        full = buildBody(action, fields, { requestId, now: options.now, requestedBy });
        request = validateLocally(full, options.now, env);
      } catch (err) {
        if (err instanceof CliError) return { kind: 'invalid', message: err.message };
        throw err;
      }
      const body: CheckedBody = { requestId: full.requestId, action: full.action, cluster: full.cluster, full };
      const unjudged = (why: string): CheckResult => ({ kind: 'ready', body, judged: false, judgement: `${why}; the worker judges the request when it arrives.` });
      if (!options.session) return unjudged('ZooKeeper is out of reach: not judged now');
      let result;
      try {
        result = await dryRun(options.session, settings, request, options.now, options.rates);
      } catch (err) {
        if (isZkError(err) && err.transient) return unjudged(`ZooKeeper did not answer (${err.message}): not judged now`);
        throw err;
      }
      const projections = formatProjections(result);
      if (!result.ok) return { kind: 'rejected', body, reason: result.rejection.reason, message: projections === '' ? result.rejection.message : `${result.rejection.message}\n${projections}` };
      const projection = projections === '' ? '' : `\n${projections}`;
      return { kind: 'ready', body, judged: true, before: result.before, after: result.after, judgement: `${full.cluster} would then be:\n${formatClusterStatus(result.after, options.now)}${projection}` };
    },
    async send(body) {
      const full = (body as CheckedBody).full;
      if (full === undefined) throw new Error('only a body checked by this console can be sent');
      const queueUrl = connections.queueUrl();
      try {
        const out = await connections.sqs(env).send(new SendMessageCommand(changeRequestMessage(queueUrl, full)));
        return { messageId: out.MessageId };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`could not send the request to ${queueUrl}: ${message}. Check FAILOUT_QUEUE_URL, credentials and network; it is safe to send again (same request id ${full.requestId})`, { cause: err });
      }
    },
    async probeQueue(): Promise<QueueProbe> {
      try {
        const out = await connections
          .sqs(env)
          .send(new GetQueueAttributesCommand({ QueueUrl: connections.queueUrl(), AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }), { abortSignal: AbortSignal.timeout(3000) });
        const attributes: Partial<Record<string, string>> = out.Attributes ?? {};
        const number = (name: string): number | undefined => (attributes[name] === undefined ? undefined : Number(attributes[name]));
        return { ok: true, visible: number('ApproximateNumberOfMessages'), inFlight: number('ApproximateNumberOfMessagesNotVisible') };
      } catch (err) {
        return { ok: false, message: err instanceof Error ? err.message || err.name : String(err) };
      }
    },
    describe: (cluster, properties, now) => describeFailout(cluster, properties, now),
    close: () => connections.close(),
  };
}
