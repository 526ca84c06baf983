/**
 * The console's "Run now" of a drill (issue 24, item 7), behind `POST /api/drill/check` and
 * `POST /api/drill/send` (server.ts does the access and CSRF checks first), with the same Check →
 * Confirm as the other actions:
 *
 * - Check runs the drill runner's own `runNow` (lib/safety `DrillRunner`, what `failout drill run-now`
 *   runs: the same decision over the alarms, the cluster's or fabric's failouts and the open
 *   evacuations, the same request through the one encoder) with a sender that keeps the message
 *   instead of sending it. The answer shows that message's body (the drill's `failout`, a drain test's
 *   `evacuate`, or the `skipDrill` saying why it would not start) and the message is remembered under
 *   its request id (checked-requests.ts `CheckedBodies`).
 * - Confirm names only the request id: the remembered message is sent as it is, through lib/operator
 *   (`OperatorRequests.sendMessage`), never built again; refused (409 `stale`) for an id not checked,
 *   sent already, or whose drill node changed since the check (a run recorded, the drill redefined).
 *   The runner decides the run again first, at the Check's time (so the same run id and window) on
 *   the alarms and the target as they are now: when that message differs from the one shown (an alarm
 *   fired, the cluster was failed out since), nothing is sent and the run decided now is answered
 *   (409 `stale`, reason `judgementChanged`, with `check`) and remembered for the next Confirm.
 *   The worker then judges it and writes its record and the run, as for the runner's own sends.
 *
 * Every text in the answers has its control and bidi characters as visible escapes (lib/text): the
 * page sets them with textContent only.
 */
import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type { Logger } from '../logging';
import type { OperatorRequests } from '../operator';
import { DrillRunner, type AlarmStates, type DrillTickResult } from '../safety';
import { escapeControlChars } from '../text';
import { isZkError, type ZkSession } from '../zk';
import type { ActionAnswer } from './actions';
import { CheckedBodies, SendsOnce } from './checked-requests';

const drillCheckSchema = z.strictObject({ drill: z.string().min(1).max(300) });
// Strict: a Confirm carries the request id and nothing that could stand for the message.
const drillSendSchema = z.strictObject({ requestId: z.string().min(1).max(200) });

/** A run-now Check from the page: the drill's name. */
export type DrillCheckRequest = z.infer<typeof drillCheckSchema>;
/** A run-now Confirm from the page: the checked request's id only. */
export type DrillSendRequest = z.infer<typeof drillSendSchema>;

type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** Reads a run-now Check's body. */
export function parseDrillCheck(body: unknown): Parsed<DrillCheckRequest> {
  return parsed(drillCheckSchema.safeParse(body), 'drill check');
}

/** Reads a run-now Confirm's body. */
export function parseDrillSend(body: unknown): Parsed<DrillSendRequest> {
  return parsed(drillSendSchema.safeParse(body), 'drill confirm');
}

function parsed<T>(result: z.ZodSafeParseResult<T>, what: string): Parsed<T> {
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: `bad ${what}: ${result.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')}` };
}

/** Where the runner reads (the console's own paths). */
export interface DrillPaths {
  readonly d2Base: string;
  readonly requestsBase: string;
  readonly drillsBase: string;
  readonly fabricsBase: string;
  readonly evacuationsBase: string;
}

/** What {@link DrillActions} needs from the server. */
export interface DrillActionsOptions {
  readonly requests: OperatorRequests;
  /** The ZooKeeper session, only while connected (undefined: a run cannot be decided now). */
  readonly session: () => ZkSession | undefined;
  /** Where the drill's alarms' states are read (the console's alarm source; undefined: none configured). */
  readonly alarms: () => AlarmStates | undefined;
  readonly paths: DrillPaths;
  /** The drill's node as the view holds it now, as one string (compared, never parsed). */
  readonly drillState: (drill: string) => string;
  readonly logger: Logger;
}

/** A checked run: the message the runner made, as it will be sent. */
interface CheckedRun {
  readonly requestId: string;
  readonly drill: string;
  readonly message: SendMessageCommandInput;
}

/** The runner logs nothing here: the console logs what it sends. */
const QUIET = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Check and Confirm of a drill's run now. Event loop only. */
export class DrillActions {
  private readonly checked = new CheckedBodies<CheckedRun>();
  private readonly once = new SendsOnce();

  constructor(private readonly options: DrillActionsOptions) {}

  /** Check: the runner decides the run now and makes its message; remembered under its request id, not sent. */
  async check(request: DrillCheckRequest): Promise<ActionAnswer> {
    const { drill } = request;
    // The drill as the page shows it, taken before the runner reads ZooKeeper: a change in between makes the Confirm refused.
    const state = this.options.drillState(drill);
    const now = Date.now();
    const decided = await this.decide(drill, now);
    if (!decided.ok) return decided.answer;
    const { result, message } = decided;
    this.checked.remember({ requestId: result.runId, drill, message }, state, now);
    return { status: 200, body: checkAnswer(drill, result, message) };
  }

  /**
   * The runner's decision of a run of `drill` at `now` and the message it would send (kept, not sent).
   * The run id and the window are made from `now`: decided again at the Check's time, a run decided
   * alike is the very message the Check showed.
   */
  private async decide(drill: string, now: number): Promise<{ readonly ok: true; readonly result: Extract<DrillTickResult, { runId: string }>; readonly message: SendMessageCommandInput } | { readonly ok: false; readonly answer: ActionAnswer }> {
    const session = this.options.session();
    if (session === undefined) return { ok: false, answer: unavailable(`ZooKeeper is out of reach: the run of drill ${drill} cannot be decided now; try again, or run: failout drill run-now ${drill}`) };
    const queueUrl = this.options.requests.queueUrl;
    if (queueUrl === undefined) return { ok: false, answer: unavailable('no request queue is configured (FAILOUT_QUEUE_URL or --queue-url): nothing can be sent') };
    const alarms = this.options.alarms();
    if (alarms === undefined) return { ok: false, answer: { status: 422, body: { kind: 'rejected', drill: shown(drill), message: shown(`this console has no alarm source (--alarms-url, FAILOUT_ALARMS_URL or --cloudwatch-alarms): a run is decided on the drill's alarms; run it with: failout drill run-now ${drill}`) } } };
    let message: SendMessageCommandInput | undefined;
    const runner = this.runner(session, queueUrl, alarms, now, (m) => (message = m));
    let result: DrillTickResult;
    try {
      result = await runner.runNow(drill);
    } catch (err) {
      if (isZkError(err)) return { ok: false, answer: unavailable(`ZooKeeper did not answer (${err.message}): try again`) };
      return { ok: false, answer: { status: 404, body: { kind: 'invalid', drill: shown(drill), message: shown(err instanceof Error ? err.message : String(err)) } } };
    }
    if (result.outcome === 'error' || message === undefined || !('runId' in result)) {
      return { ok: false, answer: { status: 422, body: { kind: 'rejected', drill: shown(drill), message: shown(result.outcome === 'error' ? `the run cannot be made now: ${result.error}` : `the runner sent nothing (${result.outcome})`) } } };
    }
    return { ok: true, result, message };
  }

  /** Confirm: the remembered message, sent as it is, once (a second Confirm of it is told it was sent). */
  async send(request: DrillSendRequest): Promise<ActionAnswer> {
    return this.once.confirm(request.requestId, () => this.sendChecked(request.requestId));
  }

  private async sendChecked(requestId: string): Promise<ActionAnswer> {
    const taken = this.checked.take(requestId, (run) => this.options.drillState(run.drill), Date.now());
    if (!taken.ok) {
      this.options.logger.warn({ requestId, reason: taken.reason }, 'console: drill confirm refused');
      if (taken.checked !== undefined) return this.showAgain(taken.checked.body.drill, requestId, taken.checked.at);
      const message = taken.reason === 'notChecked' ? taken.message : 'the drill changed since the check (a run was recorded, or it was redefined): nothing was sent; press Run now again';
      return { status: 409, body: { kind: 'stale', reason: taken.reason, requestId: shown(requestId), message: shown(message) } };
    }
    const run = taken.checked.body;
    // Decided again, at the Check's time (its run id and window), on the alarms and the target as they
    // are now: a run the runner would now decide otherwise (an alarm fired, the cluster failed out since)
    // is shown again, not sent; the next Confirm of the same id sends it if it still holds.
    const decided = await this.decide(run.drill, taken.checked.at);
    if (!decided.ok) return decided.answer;
    if (!sameMessage(decided.message, run.message)) {
      this.checked.remember({ requestId, drill: run.drill, message: decided.message }, taken.checked.state, taken.checked.at);
      this.options.logger.warn({ requestId, reason: 'judgementChanged' }, 'console: drill confirm refused');
      const message = 'the runner decides this run otherwise now (an alarm or the target changed since the check): nothing was sent; the run as decided now is shown: confirm it to send it';
      return { status: 409, body: { kind: 'stale', reason: 'judgementChanged', requestId: shown(requestId), message, check: checkAnswer(run.drill, decided.result, decided.message) } };
    }
    try {
      const sent = await this.options.requests.sendMessage(run.message);
      this.options.logger.info({ requestId, drill: run.drill }, 'console: drill run sent');
      return { status: 202, body: { kind: 'sent', requestId: shown(requestId), drill: shown(run.drill), messageId: sent.messageId ?? null } };
    } catch (err) {
      // Not taken by the queue: the same Confirm may be sent again (same request id, deduplicated).
      this.checked.giveBack(taken.checked);
      return unavailable(err instanceof Error ? err.message : String(err), requestId);
    }
  }

  /**
   * A Confirm whose drill changed since its Check (a run recorded, the drill redefined): nothing is
   * sent; the run is decided again at the Check's time (`at`) on the drill as it is now and answered
   * (409 `stale`, reason `drillChanged`, with `check`) and remembered with the
   * drill's state now, so its next Confirm sends it if it still holds.
   */
  private async showAgain(drill: string, requestId: string, at: number): Promise<ActionAnswer> {
    const state = this.options.drillState(drill);
    const decided = await this.decide(drill, at);
    if (!decided.ok) return decided.answer;
    this.checked.remember({ requestId: decided.result.runId, drill, message: decided.message }, state, at);
    const message = 'the drill changed since the check (a run was recorded, or it was redefined): nothing was sent; the run of the drill as it is now is shown: confirm it to send it';
    return { status: 409, body: { kind: 'stale', reason: 'drillChanged', requestId: shown(requestId), message, check: checkAnswer(drill, decided.result, decided.message) } };
  }

  private runner(session: ZkSession, queueUrl: string, alarms: AlarmStates, now: number, keep: (message: SendMessageCommandInput) => void): DrillRunner {
    const paths = this.options.paths;
    return new DrillRunner({
      zk: session,
      d2BasePath: paths.d2Base,
      requestsPath: paths.requestsBase,
      drillsPath: paths.drillsBase,
      fabricsPath: paths.fabricsBase,
      evacuationsPath: paths.evacuationsBase,
      queueUrl,
      // Kept, not sent: Confirm sends it.
      send: async (message) => {
        keep(message);
        return {};
      },
      alarms,
      logger: QUIET,
      clock: () => now,
    });
  }
}

/** True when two messages are one: the same body, group and deduplication id. */
function sameMessage(a: SendMessageCommandInput, b: SendMessageCommandInput): boolean {
  return a.MessageBody === b.MessageBody && a.MessageGroupId === b.MessageGroupId && a.MessageDeduplicationId === b.MessageDeduplicationId;
}

/** The Check's answer: the decision and the body of the message Confirm sends, pretty-printed. */
function checkAnswer(drill: string, result: Extract<DrillTickResult, { runId: string }>, message: SendMessageCommandInput): Record<string, unknown> {
  const body: unknown = JSON.parse(message.MessageBody ?? 'null');
  const action = typeof body === 'object' && body !== null && 'action' in body && typeof body.action === 'string' ? body.action : 'unknown';
  return {
    kind: 'ready',
    requestId: shown(result.runId),
    drill: shown(drill),
    decision: result.outcome,
    action,
    ...(result.outcome === 'skipped' ? { skipReason: result.skipReason, detail: shown(result.detail) } : {}),
    group: shown(message.MessageGroupId ?? ''),
    body: shown(JSON.stringify(body, null, 2)),
    cli: shown(`failout drill run-now ${drill}`),
  };
}

function unavailable(message: string, requestId?: string): ActionAnswer {
  return { status: 503, body: { kind: 'unavailable', ...(requestId === undefined ? {} : { requestId: shown(requestId) }), message: shown(message) } };
}

/** Text from data for the page's script (set with textContent): control characters as visible escapes, line breaks kept. */
function shown(text: string): string {
  return escapeControlChars(text, { keepNewlines: true });
}
