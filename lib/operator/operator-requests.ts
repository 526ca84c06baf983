/**
 * The request side of a form-driven client ({@link OperatorRequests}), made of the same parts as the
 * CLI's so that a request from the console is the one `failout out|extend|restore` would send: the
 * body builders (`request-bodies.ts`), the worker's schema and guard rails (`validateLocally`), the
 * dry-run judge (`dryRun`, the worker's `judgeRequest`) and the one queue message rule
 * (`changeRequestMessage`). A fabric's evacuation (issue 23) takes the same walk (fabric-requests.ts).
 */
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { newRequestId } from '../requests';
import { isZkError } from '../zk';
import { hideUrlCredentials } from '../text';
import { describeFailout } from './cluster-status';
import { OperatorConnections } from './connections';
import { dryRun, formatProjections } from './dry-run';
import { assertIsError, isOperatorError, OperatorError, type OperatorEnv } from './errors';
import { formatClusterStatus, formatUnreadableFailout } from './format';
import { buildFabricBody, judgeFabricBody } from './fabric-requests';
import { validateLocally } from './local-check';
import { buildExtendBody, buildFailoutBody, buildRestoreBody, type OutOptions } from './request-bodies';
import { buildAmendBody, buildRampBody } from './adjust';
import { checkNamedAlarms } from './alarm-source';
import type { ActionFields, CheckResult, FabricCheckResult, OperatorAction, OperatorRequests, PreparedBody, QueueProbe } from './requests-port';
import { sendChangeRequest } from './send';
import type { OperatorSettings } from './settings';

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

/** Builds the body the CLI would for this action. @throws OperatorError `usage`. */
function buildBody(action: OperatorAction, fields: ActionFields, context: { requestId: string; now: number; requestedBy: string }): PreparedBody {
  // Force travels with every action the judgement can refuse for peers, capacity or stranding.
  const reasonBy = { ...(fields.reason === undefined ? {} : { reason: fields.reason }), ...(fields.by === undefined ? {} : { by: fields.by }) };
  const forced = fields.force === true ? { force: true } : {};
  switch (action) {
    case 'failout':
      return buildFailoutBody(fields.cluster, outOptions(fields), context);
    case 'extend':
      return buildExtendBody(fields.cluster, { ...reasonBy, ...forced, ...(fields.for === undefined ? {} : { for: fields.for }), ...(fields.until === undefined ? {} : { until: fields.until }) }, context);
    case 'restore':
      return buildRestoreBody(fields.cluster, reasonBy, context);
    case 'rampHold':
      return buildRampBody('hold', fields.cluster, { ...reasonBy, ...forced }, context);
    case 'rampResume':
      return buildRampBody('resume', fields.cluster, { ...reasonBy, ...forced }, context);
    case 'rampAdvance':
      return buildRampBody('advance', fields.cluster, { ...reasonBy, ...forced }, context);
    case 'amend':
      return buildAmendBody(fields.cluster, { ...reasonBy, ...forced, ...optionalList('stopAlarm', fields.stopAlarms), ...optionalList('removeStopAlarm', fields.removeStopAlarms) }, context);
  }
}

/** `{ [key]: values }` for a comma list with values, `{}` otherwise (an amend's two lists). */
function optionalList<K extends string>(key: K, text: string | undefined): Partial<Record<K, string[]>> {
  const values = list(text);
  return values === undefined ? {} : ({ [key]: values } as Partial<Record<K, string[]>>);
}

/**
 * The request side over the operator's settings. `requestedBy` is the default requester (the
 * form's `by` overrides it, as `--by` does).
 */
export function createOperatorRequests(settings: OperatorSettings, env: OperatorEnv, requestedBy: string): OperatorRequests {
  const connections = new OperatorConnections(settings);
  return {
    queueUrl: settings.queueUrl,
    async check(action, fields, options): Promise<CheckResult> {
      const requestId = options.requestId ?? newRequestId(options.now);
      let body: PreparedBody;
      let request;
      try {
        // Relative times (`+15m`, `+2h`) are read at `builtAt`: a Confirm rebuilds the very body its Check showed.
        body = buildBody(action, fields, { requestId, now: options.builtAt ?? options.now, requestedBy });
        request = validateLocally(body, options.now, env);
      } catch (err) {
        if (isOperatorError(err, 'input')) return { kind: 'invalid', message: err.message, field: err.field };
        throw err;
      }
      // The alarms first, as `failout out|amend` check them before sending and the worker before judging.
      const alarms = options.alarms === undefined ? undefined : await checkNamedAlarms(options.alarms, request);
      if (alarms?.kind === 'rejected') return { kind: 'rejected', body, reason: alarms.rejection.reason, message: alarms.rejection.message };
      const note = alarms?.kind === 'unchecked' ? `\n${alarms.message}; the worker checks them when the request arrives.` : '';
      const unjudged = (why: string): CheckResult => ({ kind: 'ready', body, judged: false, judgement: `${why}; the worker judges the request when it arrives.${note}` });
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
      return {
        kind: 'ready',
        body,
        judged: true,
        before: result.before,
        after: result.after,
        capacity: result.capacity,
        capacityByRates: result.capacityByRates,
        forced: result.forced,
        judgement: `${result.unreadableFailout === undefined ? '' : `${body.action} ${body.cluster} ${formatUnreadableFailout(result.unreadableFailout)}\n`}${body.cluster} would then be:\n${formatClusterStatus(result.after, options.now)}${projection}${note}`,
      };
    },
    async checkFabric(action, fabric, fields, options): Promise<FabricCheckResult> {
      const requestId = options.requestId ?? newRequestId(options.now);
      let body;
      try {
        body = buildFabricBody(action, fabric, fields, { requestId, now: options.now, requestedBy });
      } catch (err) {
        if (isOperatorError(err, 'input')) return { kind: 'invalid', message: err.message, field: err.field };
        throw err;
      }
      return judgeFabricBody(settings, env, body, options);
    },
    judgeFabric: (body, options) => judgeFabricBody(settings, env, body, options),
    async send(body) {
      return { messageId: await sendChangeRequest(connections, env, body) };
    },
    async sendMessage(message) {
      try {
        return { messageId: (await connections.sqs(env).send(new SendMessageCommand(message))).MessageId };
      } catch (err) {
        assertIsError(err);
        throw new OperatorError('unavailable', `could not send the request to ${hideUrlCredentials(message.QueueUrl ?? '(no queue)')}: ${hideUrlCredentials(err.message)}. Check FAILOUT_QUEUE_URL / --queue-url, credentials and network; it is safe to send it again (the same request id)`, { cause: err });
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
        return { ok: false, message: hideUrlCredentials(err instanceof Error ? err.message || err.name : String(err)) };
      }
    },
    describe: (cluster, properties, now) => describeFailout(cluster, properties, now),
    close: () => connections.close(),
  };
}
