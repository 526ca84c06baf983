/**
 * The console's fabric actions (issue 23, item 6): evacuate a fabric, or end its evacuation, with the
 * same Check → Confirm as the cluster form (actions.ts), behind `POST /api/fabric/check` and
 * `POST /api/fabric/send` (server.ts does the access and CSRF checks first).
 *
 * - Check builds the body from the form's text as `failout evacuate` would, judges it with the worker's
 *   own plan judge (lib/operator `checkFabric`: `dryRunEvacuation`), stores the body under its request
 *   id (checked-requests.ts `CheckedBodies`) and answers the plan: cluster → peers, the projected load
 *   on every receiving cluster, the stages. A refused plan is answered with the reason, and nothing is
 *   stored, so there is nothing to confirm.
 * - Confirm names only the request id: the stored body is judged once more and sent as it is, never
 *   built again from the form (409 `stale` for an id not checked, sent already, or whose fabric changed:
 *   then with the plan judged now as `check`, remembered for the next Confirm).
 *   What the operator saw is what is sent: when the judgement at Confirm differs from the one the Check
 *   showed (the plan read hosts, which the fabric's fingerprint leaves out: a peer's weight by capacity,
 *   a receiver's load, or anything else the judge read), nothing is sent and the new judgement is
 *   answered (409 `stale`, reason `judgementChanged`, with `check`) and remembered: the next Confirm of
 *   the same request id sends it if it still holds. Times that move only with the clock (a window given
 *   as a duration starts when the worker applies it) are not a change.
 *
 * Every text in the answers has its control and bidi characters as visible escapes (lib/text): the
 * page sets them with textContent only.
 */
import { z } from 'zod';
import type { Logger } from '../logging';
import { formatForced, type evacuation, type OperatorAlarmSource, type OperatorRequests } from '../operator';
import type { EvacuationPlan } from '../requests';
import { escapeControlChars } from '../text';
import type { ZkSession } from '../zk';
import type { ActionAnswer } from './actions';
import { CheckedBodies, judgementChangedAnswer, judgementFingerprint, SendsOnce } from './checked-requests';

const fieldText = z.string().max(2000).optional();
const fabricCheckSchema = z.object({
  action: z.enum(['evacuate', 'restoreFabric']),
  fabric: z.string().min(1).max(300),
  fields: z
    .object({
      to: fieldText,
      for: fieldText,
      until: fieldText,
      at: fieldText,
      stages: fieldText,
      stageClusters: fieldText,
      gateAlarms: fieldText,
      hold: fieldText,
      ramp: fieldText,
      stopAlarms: fieldText,
      exclude: fieldText,
      reason: fieldText,
      by: fieldText,
      force: z.boolean().optional(),
    })
    .default({}),
});
// Strict: a Confirm carries the request id and nothing that could stand for the body.
const fabricSendSchema = z.strictObject({ requestId: z.string().min(1).max(200) });

/** A fabric Check from the page. */
export type FabricCheckRequest = z.infer<typeof fabricCheckSchema>;
/** A fabric Confirm from the page: the checked request's id only. */
export type FabricSendRequest = z.infer<typeof fabricSendSchema>;

/** Reads a fabric Check's body; a message naming the bad fields when it is not one. */
export function parseFabricCheck(body: unknown): { readonly ok: true; readonly value: FabricCheckRequest } | { readonly ok: false; readonly message: string } {
  return parsed(fabricCheckSchema.safeParse(body), 'fabric check');
}

/** Reads a fabric Confirm's body. */
export function parseFabricSend(body: unknown): { readonly ok: true; readonly value: FabricSendRequest } | { readonly ok: false; readonly message: string } {
  return parsed(fabricSendSchema.safeParse(body), 'fabric confirm');
}

function parsed<T>(result: z.ZodSafeParseResult<T>, what: string): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string } {
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: `bad ${what}: ${result.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')}` };
}

/** What {@link FabricActions} needs from the server. */
export interface FabricActionsOptions {
  readonly requests: OperatorRequests;
  /** The ZooKeeper session for the judge, only while connected (undefined: not judged now). */
  readonly session: () => ZkSession | undefined;
  /** Where the named alarms' states are read for the check (undefined: the worker checks them). */
  readonly alarms: () => OperatorAlarmSource | undefined;
  /** What a fabric request's judgement is about, as the page shows it now, as one string (compared, never parsed). */
  readonly fabricState: (request: { readonly action: evacuation.FabricAction; readonly fabric: string }) => string;
  readonly logger: Logger;
}

/** Check and Confirm of the fabric actions. Event loop only. */
export class FabricActions {
  private readonly checked = new CheckedBodies<evacuation.FabricBody>();
  private readonly once = new SendsOnce();

  constructor(private readonly options: FabricActionsOptions) {}

  /** Check: built and judged; stored under its request id when the worker would apply it. */
  async check(request: FabricCheckRequest): Promise<ActionAnswer> {
    // The fabric as the page shows it, taken before the judge reads ZooKeeper: a change that lands in
    // between makes the Confirm refused, never sent unseen.
    const state = this.options.fabricState(request);
    const now = Date.now();
    const result = await this.options.requests.checkFabric(request.action, request.fabric, request.fields, { now, session: this.options.session(), alarms: this.options.alarms() });
    if (result.kind === 'ready') this.checked.remember(result.body, state, now, shownFingerprint(result));
    return { status: 200, body: fabricAnswer(result) };
  }

  /** Confirm: the stored body, judged again, sent as it is, once (a second Confirm of it is told it was sent). */
  async send(request: FabricSendRequest): Promise<ActionAnswer> {
    return this.once.confirm(request.requestId, () => this.sendChecked(request.requestId));
  }

  private async sendChecked(requestId: string): Promise<ActionAnswer> {
    const taken = this.checked.take(requestId, (body) => this.options.fabricState(body), Date.now());
    if (!taken.ok) {
      this.options.logger.warn({ requestId, reason: taken.reason }, 'console: fabric confirm refused');
      if (taken.reason === 'fabricChanged' && taken.checked !== undefined) return this.showAgain(taken.checked.body);
      return { status: 409, body: { kind: 'stale', reason: taken.reason, requestId: shown(requestId), message: shown(taken.message) } };
    }
    const body = taken.checked.body;
    // The state as it was when taken (unchanged, or it would be refused), before the judge reads ZooKeeper.
    const state = taken.checked.state;
    const result = await this.options.requests.judgeFabric(body, { now: Date.now(), session: this.options.session(), alarms: this.options.alarms() });
    if (result.kind !== 'ready') return { status: 422, body: fabricAnswer(result) };
    const judgement = shownFingerprint(result);
    if (judgement !== taken.checked.judgement) {
      // Judged otherwise than the Check showed: shown again, never sent unseen.
      this.checked.remember(body, state, Date.now(), judgement);
      this.options.logger.warn({ requestId, reason: 'judgementChanged' }, 'console: fabric confirm refused');
      return judgementChangedAnswer(shown(requestId), fabricAnswer(result));
    }
    try {
      const sent = await this.options.requests.send(body);
      this.options.logger.info({ requestId, action: body.action, fabric: body.fabric, by: body.requestedBy }, 'console: fabric request sent');
      return { status: 202, body: { kind: 'sent', requestId: shown(requestId), action: body.action, fabric: shown(body.fabric), messageId: sent.messageId ?? null } };
    } catch (err) {
      // Not taken by the queue: the same Confirm may be sent again (same request id, deduplicated).
      this.checked.giveBack(taken.checked);
      return { status: 503, body: { kind: 'unavailable', requestId: shown(requestId), message: shown(err instanceof Error ? err.message : String(err)) } };
    }
  }

  /**
   * A Confirm whose fabric changed since its Check (a failout, an evacuation or a fabric map written):
   * nothing is sent; the same body is judged against the fabric now and answered (409 `stale`, reason
   * `fabricChanged`, with `check`: the plan now) and remembered with the state now, so its next
   * Confirm sends it if it still holds. A body the judgement now refuses is not remembered.
   */
  private async showAgain(body: evacuation.FabricBody): Promise<ActionAnswer> {
    const state = this.options.fabricState(body);
    const result = await this.options.requests.judgeFabric(body, { now: Date.now(), session: this.options.session(), alarms: this.options.alarms() });
    const head = { kind: 'stale', reason: 'fabricChanged', requestId: shown(body.requestId) };
    if (result.kind !== 'ready') {
      const why = result.kind === 'rejected' ? `it would be rejected now (${result.reason}: ${result.message.split('\n')[0]})` : `it is not valid now (${result.message})`;
      return { status: 409, body: { ...head, message: shown(`what the check judged changed since (a failout, an evacuation or a fabric map was written): nothing was sent, and ${why}; check again`), check: fabricAnswer(result) } };
    }
    this.checked.remember(body, state, Date.now(), shownFingerprint(result));
    return { status: 409, body: { ...head, message: 'what the check judged changed since (a failout, an evacuation or a fabric map was written): nothing was sent; the plan now is shown: confirm it to send it', check: fabricAnswer(result) } };
  }
}

/**
 * What a ready judgement shows ({@link judgementFingerprint}): the plan (cluster → peers and their
 * weights, hosts, every receiver's load, stages, exclusions, alarms; its times left out), what force
 * overrides, and the evacuation a restore ends. Not the text, which has the times in it.
 */
function shownFingerprint(result: Extract<evacuation.FabricCheckResult, { readonly kind: 'ready' }>): string {
  return judgementFingerprint(result.judged, [result.plan ?? null, result.forced ?? null, result.evacuation?.requestId ?? null]);
}

/** Text from data for the page's script (set with textContent): control characters as visible escapes, line breaks kept. */
function shown(text: string): string {
  return escapeControlChars(text, { keepNewlines: true });
}

/**
 * A fabric check's answer for the page: the request's id, action and fabric, and the judgement: the
 * plan as rows for the page's tables (and as the CLI's text), the evacuation a restore ends, or the
 * rejection. The body stays on the server.
 */
export function fabricAnswer(result: evacuation.FabricCheckResult): Record<string, unknown> {
  if (result.kind === 'invalid') return { kind: 'invalid', message: shown(result.message), ...(result.field === undefined ? {} : { field: result.field }) };
  const head = { requestId: shown(result.body.requestId), action: result.body.action, fabric: shown(result.body.fabric) };
  if (result.kind === 'rejected') return { kind: 'rejected', ...head, reason: shown(result.reason), message: shown(result.message), ...(result.plan === undefined ? {} : { plan: planRows(result.plan) }) };
  const ended = result.evacuation;
  return {
    kind: 'ready',
    ...head,
    judged: result.judged,
    judgement: shown(result.judgement),
    notes: result.notes.map(shown),
    ...(result.plan === undefined ? {} : { plan: planRows(result.plan) }),
    ...(result.forced === undefined ? {} : { forced: shown(formatForced(result.forced)) }),
    ...(ended === undefined ? {} : { evacuation: { requestId: shown(ended.requestId), phase: ended.phase, onlineAt: ended.onlineAt } }),
  };
}

const iso = (ms: number): string => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms));
const round = (value: number): number => Math.round(value * 100) / 100;

/** `1 (frontend)`, `2` (a stage of listed clusters, named `stage 2`), `3 (rest)`: as the CLI labels stages. */
function stageLabel(stage: { readonly index: number; readonly name: string }): string {
  const n = stage.index + 1;
  return stage.name === `stage ${n}` ? String(n) : `${n} (${shown(stage.name)})`;
}

/** A plan as rows for the page: every text escaped, times as ISO strings, loads rounded to 0.01. */
export function planRows(plan: EvacuationPlan): Record<string, unknown> {
  const labels = new Map(plan.stages.map((s) => [s.index, stageLabel(s)]));
  const services = new Set(plan.clusters.map((c) => c.service)).size;
  const targets = plan.targets === 'capacity' ? 'every other fabric, by capacity (peers weighted by their hosts)' : plan.targets.map((t) => `${shown(t.fabric)} (weight ${t.weight})`).join(', ');
  return {
    summary: `${plan.clusters.length} cluster${plan.clusters.length === 1 ? '' : 's'} of ${services} service${services === 1 ? '' : 's'} in ${plan.stages.length} stage${plan.stages.length === 1 ? '' : 's'}, to ${targets}`,
    from: iso(plan.offlineAt),
    until: iso(plan.onlineAt),
    stages: plan.stages.map((s) => ({ label: labels.get(s.index)!, clusters: s.clusters.map(shown), offlineAt: iso(s.offlineAt), fullyOutAt: iso(s.fullyOutAt), onlineAt: iso(s.onlineAt), gateAlarms: s.gateAlarms.map(shown) })),
    clusters: plan.clusters.map((c) => ({
      cluster: shown(c.cluster),
      service: shown(c.service),
      stage: labels.get(c.stage) ?? String(c.stage + 1),
      hosts: c.hosts,
      peers: c.peers.map((p) => ({ cluster: shown(p.cluster), weight: round(p.weight) })),
      ...(c.replaces === undefined ? {} : { replaces: shown(c.replaces) }),
    })),
    receivers: plan.receivers.map((r) => ({ cluster: shown(r.cluster), fabric: shown(r.fabric), service: shown(r.service), hosts: r.hosts, before: round(r.factorBefore), after: round(r.factorAfter), over: r.factorAfter > plan.maxPeerLoadFactor })),
    limit: round(plan.maxPeerLoadFactor),
    excluded: plan.excluded.map(shown),
    stopAlarms: plan.stopAlarms.map(shown),
  };
}
