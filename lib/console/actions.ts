/**
 * The console's two actions, Check and Confirm, behind the HTTP routes (server.ts does the access
 * and CSRF checks first). What Confirm sends is what Check judged and showed (issue 21, item 7):
 *
 * - Check builds, validates and judges the request through the CLI's own path (`OperatorRequests`),
 *   remembers it (checked-requests.ts) under the request id it made, and answers the judgement and
 *   what the request changes against the cluster's failout (diff.ts).
 * - Confirm is sent only for a remembered check with the same action and fields, whose cluster's
 *   failout is unchanged since (409 `stale` otherwise; when only the cluster or a peer changed, with
 *   the judgement and the changes now as `check`, remembered for the next Confirm); it is judged once
 *   more, then sent. What the
 *   operator saw is what is sent: when that judgement differs from the one the Check showed (the peers'
 *   load projection reads hosts, which the cluster's fingerprint leaves out, and other failouts onto
 *   the peers), nothing is sent and the new judgement is answered (409 `stale`, reason
 *   `judgementChanged`, with `check`) and remembered: the next Confirm of the same request sends it if
 *   it still holds, as the fabric Confirm does (fabric-actions.ts). Times that move only with the
 *   clock (a window given with `for` starts when the worker applies it) are not a change; a ramp step
 *   or a window that starts in between is (a hold would keep another share than the one shown).
 *
 * Every text in the answers has its control and bidi characters as visible escapes (lib/text, the
 * CLI's one function): the page sets them as text, but a U+202E would still reorder what it shows.
 */
import { inPageWords, inputOfField } from './form-words';
import { z } from 'zod';
import type { Logger } from '../logging';
import type { RequestRates } from '../requests';
import { escapeControlChars } from '../text';
import type { ZkSession } from '../zk';
import { CheckedRequests, clusterChangedMessage, judgementChangedAnswer, judgementFingerprint, SendsOnce } from './checked-requests';
import { failoutChanges } from './diff';
import { projectionJson, type CheckResult, type ClusterStatus, type OperatorAlarmSource, type OperatorRequests, type PreparedBody } from '../operator';

const fieldText = z.string().max(2000).optional();
const actionSchema = z.object({
  action: z.enum(['failout', 'restore', 'extend', 'rampHold', 'rampResume', 'rampAdvance', 'amend']),
  fields: z.object({
    cluster: z.string().max(300),
    peers: fieldText,
    for: fieldText,
    until: fieldText,
    at: fieldText,
    share: fieldText,
    buckets: fieldText,
    ramp: fieldText,
    stopAlarms: fieldText,
    removeStopAlarms: fieldText,
    reason: fieldText,
    by: fieldText,
    force: z.boolean().optional(),
  }),
  requestId: z.string().max(200).optional(),
});

/** An action request from the page: the action, the form's fields, and (Confirm) the checked request id. */
export type ActionRequest = z.infer<typeof actionSchema>;

/** An answer for the page: HTTP status and JSON body. */
export interface ActionAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Reads an action request's body; a message naming the bad fields when it is not one. */
export function parseActionRequest(body: unknown): { readonly ok: true; readonly value: ActionRequest } | { readonly ok: false; readonly message: string } {
  const parsed = actionSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: `bad action request: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
}

/** What {@link ConsoleActions} needs from the server. */
export interface ConsoleActionsOptions {
  readonly requests: OperatorRequests;
  /** The ZooKeeper session for the judge, only while connected (undefined: not judged now). */
  readonly session: () => ZkSession | undefined;
  /** Request rates from the console's scrapes, for the capacity projection. */
  readonly rates: () => RequestRates | undefined;
  /** Where the alarms a request names are checked (undefined: not checked here; the worker checks them). */
  readonly alarms: () => OperatorAlarmSource | undefined;
  /**
   * What a cluster's judgement reads, as the page shows it now, as one string (compared, never
   * parsed): the cluster's failout, and its peers' (`peers`, named by the request, and the peers of
   * its failout now).
   */
  readonly clusterState: (cluster: string, peers: readonly string[]) => string;
  readonly logger: Logger;
}

/** Check and Confirm. Event loop only. */
export class ConsoleActions {
  private readonly checked = new CheckedRequests();
  private readonly once = new SendsOnce();

  constructor(private readonly options: ConsoleActionsOptions) {}

  /** Check: judged, remembered when ready, answered with the judgement and the changes. */
  async check(request: ActionRequest): Promise<ActionAnswer> {
    // The cluster as the page shows it, taken before the judge reads ZooKeeper: a change that lands in
    // between makes the Confirm refused, never sent unseen.
    const clusterState = this.judgedState(request.fields);
    const now = Date.now();
    const result = await this.judge(request, now);
    if (result.kind === 'ready') this.checked.remember(result.body.requestId, request.action, request.fields, clusterState, now, shownFingerprint(result));
    return { status: 200, body: checkAnswer(result, now) };
  }

  /** Confirm: refused unless it is a remembered check, unchanged; judged again, then sent, once (a second Confirm of it is told it was sent). */
  async send(request: ActionRequest): Promise<ActionAnswer> {
    const requestId = request.requestId;
    if (requestId === undefined) return { status: 400, body: { kind: 'invalid', message: 'check the request first: send needs the request id shown by the check' } };
    return this.once.confirm(requestId, () => this.sendChecked(request, requestId));
  }

  private async sendChecked(request: ActionRequest, requestId: string): Promise<ActionAnswer> {
    // The fields are compared first, so the peers named are the checked ones.
    const taken = this.checked.take(requestId, request.action, request.fields, () => this.judgedState(request.fields), Date.now());
    if (!taken.ok) {
      this.options.logger.warn({ requestId, reason: taken.reason }, 'console: confirm refused');
      if (taken.reason === 'clusterChanged' && taken.checked !== undefined) return this.showAgain(request, requestId, taken.checked.at);
      return { status: 409, body: { kind: 'stale', reason: taken.reason, requestId: shown(requestId), message: shown(taken.message) } };
    }
    // Judged again now (the worker judges it again when it arrives; a refusal now sends nothing at all),
    // built as at the Check: `+15m` or `+2h` in the form mean the times the Check showed.
    const result = await this.judge(request, Date.now(), taken.checked.at);
    if (result.kind !== 'ready') return { status: 422, body: checkAnswer(result, Date.now()) };
    const judgement = shownFingerprint(result);
    if (judgement !== taken.checked.judgement) {
      // Judged otherwise than the Check showed: shown again, never sent unseen. Remembered as checked
      // then (its state, compared unchanged, and its time, which relative times are read against).
      const { clusterState, at } = taken.checked;
      this.checked.remember(requestId, request.action, request.fields, clusterState, at, judgement);
      this.options.logger.warn({ requestId, reason: 'judgementChanged' }, 'console: confirm refused');
      return judgementChangedAnswer(shown(requestId), checkAnswer(result, Date.now()));
    }
    try {
      const sent = await this.options.requests.send(result.body);
      this.options.logger.info({ requestId, action: result.body.action, cluster: result.body.cluster, by: request.fields.by }, 'console: request sent');
      return { status: 202, body: { kind: 'sent', requestId, messageId: sent.messageId ?? null } };
    } catch (err) {
      // Not taken by the queue: the same Confirm may be sent again (same request id, deduplicated).
      this.checked.giveBack(requestId, taken.checked);
      return { status: 503, body: { kind: 'unavailable', requestId, message: shown(err instanceof Error ? err.message : String(err)) } };
    }
  }

  /**
   * A Confirm whose cluster (or a peer) changed since its Check: nothing is sent; the same request,
   * built as at the Check (`at`), is judged against the cluster now and answered (409 `stale`, reason
   * `clusterChanged`, with `check`: the judgement and the changes against the failout now) and
   * remembered with the state now, so its next Confirm sends it if it still holds. A request the
   * judgement now refuses is not remembered: the answer asks for a new Check.
   */
  private async showAgain(request: ActionRequest, requestId: string, at: number): Promise<ActionAnswer> {
    const clusterState = this.judgedState(request.fields);
    const result = await this.judge(request, Date.now(), at);
    const ready = result.kind === 'ready';
    if (ready) this.checked.remember(requestId, request.action, request.fields, clusterState, at, shownFingerprint(result));
    return { status: 409, body: { kind: 'stale', reason: 'clusterChanged', requestId: shown(requestId), message: shown(clusterChangedMessage(request.fields.cluster, ready)), check: checkAnswer(result, Date.now()) } };
  }

  /**
   * The state the judgement of `fields` reads: the cluster and its peers. A peer failed out (or
   * restored) since the Check changes the judgement (what force would override, where the load goes),
   * so the Confirm is refused and the operator sees the judgement again.
   */
  private judgedState(fields: ActionRequest['fields']): string {
    const named = (fields.peers ?? '').split(',').map((p) => p.trim().replace(/:\d+$/, '')).filter((p) => p !== '');
    return this.options.clusterState(fields.cluster, named);
  }

  private judge(request: ActionRequest, now: number, builtAt?: number): Promise<CheckResult> {
    return this.options.requests.check(request.action, request.fields, { requestId: request.requestId, now, builtAt, session: this.options.session(), rates: this.options.rates(), alarms: this.options.alarms() });
  }
}

/**
 * What a ready judgement shows that the cluster's fingerprint does not hold ({@link judgementFingerprint}):
 * the peers' load projection from host counts, as the worker judges (hosts, load added and from other
 * failouts, factor, over the limit), what force overrides, which peers the projection from request
 * rates puts over the limit (not its numbers: rates are measured again at every scrape, so they move
 * by themselves, as times do), and where the cluster stands after it ({@link standing}). Not the text,
 * which has the times in it.
 */
function shownFingerprint(result: Extract<CheckResult, { readonly kind: 'ready' }>): string {
  const overByRates = result.capacityByRates?.peers.map((p) => [p.cluster, p.over]);
  return judgementFingerprint(result.judged, [projectionJson(result.capacity) ?? null, overByRates ?? null, result.forced ?? null, standing(result.after)]);
}

/**
 * Where the cluster stands after the request, without the times: its state and its ramp's step,
 * share now, next share and held shares. The body and the failout are compared already, but the clock
 * alone moves this: a ramp step that starts between Check and Confirm makes a hold keep (or an advance
 * start) another step than the one the Check showed, with no write to the cluster to see.
 */
function standing(after: ClusterStatus | undefined): unknown {
  if (after === undefined) return null;
  const ramp = after.ramp;
  return [after.state, ramp === undefined ? null : [ramp.step, ramp.steps, ramp.sharePct, ramp.nextSharePct, ramp.held?.heldSharePcts ?? null]];
}

/** Text from data for the page's script (it sets it with textContent): control characters as visible escapes, line breaks kept. */
function shown(text: string): string {
  return escapeControlChars(text, { keepNewlines: true });
}

/**
 * A check's answer for the page: the request's id, action and cluster, the judgement (or the
 * rejection), and, when judged, the changes against the cluster's failout. The full body and the
 * before/after descriptions stay on the server.
 */
function checkAnswer(result: CheckResult, now: number): Record<string, unknown> {
  switch (result.kind) {
    case 'invalid': {
      // In the page's words, with the input to mark (form-words.ts); the CLI says the same with flags.
      const input = inputOfField(result.field);
      return { kind: 'invalid', message: shown(inPageWords(result.message)), ...(input === undefined ? {} : { field: input }) };
    }
    case 'rejected':
      return { kind: 'rejected', body: bodyOf(result.body), reason: result.reason, message: shown(result.message) };
    case 'ready': {
      const changes = result.before && result.after ? failoutChanges(result.before, result.after, now).map((line) => escapeControlChars(line)) : undefined;
      return { kind: 'ready', body: bodyOf(result.body), judged: result.judged, judgement: shown(result.judgement), ...(changes === undefined ? {} : { changes }) };
    }
  }
}

/** What the page is told of a body: its id, action and cluster (the rest stays on the server). */
function bodyOf(body: PreparedBody): { readonly requestId: string; readonly action: string; readonly cluster: string } {
  return { requestId: body.requestId, action: body.action, cluster: shown(body.cluster) };
}
