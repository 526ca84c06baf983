/**
 * The requests this console checked and has not sent yet: what makes "Confirm sends what the operator
 * saw" hold on the server too (issue 21, item 7), whatever the page does. A Check remembers, under the
 * request id it made, the action and fields exactly as checked and the cluster's failout as the
 * console saw it then; a Confirm is sent only when it names such an id, carries the same action and
 * fields, and the cluster's failout is still the one the judgement and the changes shown were about.
 *
 * Both keep a fingerprint of the judgement the Check showed ({@link judgementFingerprint}): the state
 * fingerprints leave hosts out (they come and go), but a judgement reads them (a peer's load, a
 * fabric's weights by capacity), so a Confirm judged otherwise is shown again, never sent unseen.
 *
 * Bounded: the newest {@link MAX_CHECKED} checks, each for {@link CHECK_TTL_MS} (a judgement an hour
 * old says little about the cluster now). The fabric actions (issue 23) keep the checked body itself
 * ({@link CheckedBodies}): their Confirm names only the request id.
 */
import { judgementFingerprint as fingerprintOf, type ActionFields, type OperatorAction } from '../operator';
import { escapeControlChars } from '../text';

/** Most checks remembered (the oldest is forgotten first). */
export const MAX_CHECKED = 200;
/** How long a check may be confirmed. */
export const CHECK_TTL_MS = 15 * 60_000;

/**
 * The form's keys, in a fixed order: the canonical form compares like with like. A record over every
 * key of {@link ActionFields}, so a field added there cannot be left out of the comparison (an amend's
 * `removeStopAlarms` once was, and a Confirm could send another removal than the one checked).
 */
const EVERY_FIELD: Readonly<Record<keyof ActionFields, true>> = {
  cluster: true, peers: true, for: true, until: true, at: true, share: true, buckets: true, ramp: true, stopAlarms: true, removeStopAlarms: true, reason: true, by: true, force: true,
};
// Object.keys keeps the literal's order (string keys), so the order is fixed.
const FIELD_KEYS = Object.keys(EVERY_FIELD) as (keyof ActionFields)[];

/**
 * A judgement as shown, as one string (compared, never parsed): whether it was judged and what it
 * showed (`shown`: plain data, the caller's pick of what the page shows as numbers and names: a
 * fabric's plan, a failout's peer load projection, what force overrides…), without the times that
 * move with the clock alone (lib/operator's rule, which `evacuate --wait` follows too). The one rule
 * for the cluster and the fabric Confirm: a Confirm whose fingerprint differs from its Check's is shown
 * again ({@link judgementChangedAnswer}), not sent.
 */
export function judgementFingerprint(judged: boolean, shown: unknown): string {
  return fingerprintOf([judged, shown]);
}

/**
 * The 409 answer of a Confirm judged otherwise than its Check showed: `stale`, reason
 * `judgementChanged`, with the judgement now as `check` (the page shows it with its own Confirm).
 * `requestId` and `check` are already escaped for the page.
 */
export function judgementChangedAnswer(requestId: string, check: Record<string, unknown>): { readonly status: 409; readonly body: Record<string, unknown> } {
  const message = 'the judgement changed since the check (hosts came or went, or something else it read changed): nothing was sent; the judgement now is shown: confirm it to send it';
  return { status: 409, body: { kind: 'stale', reason: 'judgementChanged', requestId, message, check } };
}

/**
 * The message of a Confirm refused because its cluster, or a peer, changed since the Check: `shown`
 * when the judgement now comes with it (to confirm), else it asks for a new Check.
 */
export function clusterChangedMessage(cluster: string, shown: boolean): string {
  const then = shown ? 'what this request changes now is shown: confirm it to send it' : 'check again to see what this request changes now';
  return `${cluster} changed since the check, or one of its peers did (another request was applied): nothing was sent; ${then}`;
}

/** The action and fields as one string: fixed key order, absent and `undefined` alike, `force: false` as absent. */
export function canonicalAction(action: OperatorAction, fields: ActionFields): string {
  const entries = FIELD_KEYS.flatMap((key) => {
    const value = fields[key];
    return value === undefined || value === false ? [] : [[key, value] as const];
  });
  return JSON.stringify([action, entries]);
}

/** One remembered check. */
export interface Checked {
  readonly action: string;
  readonly cluster: string;
  /** The cluster's failout as the console's view held it at the check (see {@link CheckedRequests.remember}). */
  readonly clusterState: string;
  /** When the check built and judged the body: its Confirm rebuilds the body as at this time. */
  readonly at: number;
  /** The judgement shown for it ({@link judgementFingerprint}; empty when none is kept): a Confirm judging otherwise shows it again. */
  readonly judgement: string;
}

/** Why a Confirm is not sent (the page shows the message and asks for a new Check). */
export type StaleReason = 'notChecked' | 'fieldsChanged' | 'clusterChanged' | 'fabricChanged' | 'judgementChanged';

/** Checks awaiting their Confirm. Event loop only. */
export class CheckedRequests {
  private readonly checks = new Map<string, Checked>();

  /**
   * Remembers a check that was ready to send. `clusterState` is any fingerprint of the cluster's
   * failout; `judgement`, when the caller compares it at Confirm, one of the judgement shown (the
   * same request remembered again, after its new judgement was shown, replaces the old one).
   */
  remember(requestId: string, action: OperatorAction, fields: ActionFields, clusterState: string, now: number, judgement = ''): void {
    this.checks.delete(requestId);
    this.checks.set(requestId, { action: canonicalAction(action, fields), cluster: fields.cluster, clusterState, at: now, judgement });
    for (const id of this.checks.keys()) {
      if (this.checks.size <= MAX_CHECKED) break;
      this.checks.delete(id);
    }
  }

  /**
   * Takes the check a Confirm names, if it matches: the same action and fields, the cluster's failout
   * unchanged (`clusterState` of the cluster now), within {@link CHECK_TTL_MS}. Taken means forgotten,
   * refused or not: a second Confirm of the same check, or one after a refusal, needs a new Check.
   * {@link giveBack} returns it when the send failed before the queue took the message (the page says
   * it is safe to send again).
   */
  take(requestId: string, action: OperatorAction, fields: ActionFields, clusterState: (cluster: string) => string, now: number): { readonly ok: true; readonly checked: Checked } | { readonly ok: false; readonly reason: StaleReason; readonly message: string; readonly checked?: Checked } {
    const checked = this.checks.get(requestId);
    this.checks.delete(requestId);
    if (checked === undefined || now - checked.at > CHECK_TTL_MS) {
      return { ok: false, reason: 'notChecked', message: `request ${requestId} was not checked by this console, was sent already, or its check is older than ${CHECK_TTL_MS / 60_000} minutes: check again` };
    }
    if (checked.action !== canonicalAction(action, fields)) {
      return { ok: false, reason: 'fieldsChanged', message: 'the request differs from what was checked (the form changed after Check): nothing was sent; check again' };
    }
    if (checked.clusterState !== clusterState(checked.cluster)) {
      // With the check: the caller judges the same request again and shows it (clusterChangedMessage).
      return { ok: false, reason: 'clusterChanged', message: clusterChangedMessage(checked.cluster, false), checked };
    }
    return { ok: true, checked };
  }

  /** Puts a taken check back (its send did not reach the queue). */
  giveBack(requestId: string, checked: Checked): void {
    this.checks.set(requestId, checked);
  }
}

/** One remembered body (see {@link CheckedBodies}). */
export interface CheckedBody<B> {
  readonly body: B;
  /** The state the judgement was about, as a fingerprint taken at the check (compared, never parsed). */
  readonly state: string;
  /** The judgement shown for it, as a fingerprint (compared, never parsed; empty when none is kept): a Confirm judging otherwise shows it again. */
  readonly judgement: string;
  readonly at: number;
}

/**
 * Checked bodies awaiting their Confirm, by request id (the fabric actions, issue 23): a Check stores
 * the body it built and judged, and a Confirm names only the request id, so what is sent is that very
 * body, never one built again from the form. The same bounds as {@link CheckedRequests}; a Confirm is
 * taken once, and refused when the state the judgement was about changed since. Event loop only.
 */
export class CheckedBodies<B extends { readonly requestId: string }> {
  private readonly checks = new Map<string, CheckedBody<B>>();

  /**
   * Remembers a body that was ready to send, with a fingerprint of the state its judgement read and,
   * when the caller compares it at Confirm, one of the judgement shown (the same body remembered
   * again, after its new judgement was shown, replaces the old one).
   */
  remember(body: B, state: string, now: number, judgement = ''): void {
    this.checks.delete(body.requestId);
    this.checks.set(body.requestId, { body, state, judgement, at: now });
    for (const id of this.checks.keys()) {
      if (this.checks.size <= MAX_CHECKED) break;
      this.checks.delete(id);
    }
  }

  /**
   * Takes the body a Confirm names: remembered, within {@link CHECK_TTL_MS}, and its state (`stateOf`
   * the body now) unchanged. Taken means forgotten, refused or not; {@link giveBack} returns it when
   * the send did not reach the queue.
   */
  take(requestId: string, stateOf: (body: B) => string, now: number): { readonly ok: true; readonly checked: CheckedBody<B> } | { readonly ok: false; readonly reason: StaleReason; readonly message: string; readonly checked?: CheckedBody<B> } {
    const checked = this.checks.get(requestId);
    this.checks.delete(requestId);
    if (checked === undefined || now - checked.at > CHECK_TTL_MS) {
      return { ok: false, reason: 'notChecked', message: `request ${requestId} was not checked by this console, was sent already, or its check is older than ${CHECK_TTL_MS / 60_000} minutes: check again` };
    }
    if (checked.state !== stateOf(checked.body)) {
      // With the check: the caller judges the same body again and shows it.
      return { ok: false, reason: 'fabricChanged', message: 'what the check judged changed since (a failout, an evacuation or a fabric map was written): nothing was sent; check again to see the plan now', checked };
    }
    return { ok: true, checked };
  }

  /** Puts a taken body back (its send did not reach the queue). */
  giveBack(checked: CheckedBody<B>): void {
    this.checks.set(checked.body.requestId, checked);
  }
}

/** A Confirm's answer (the routes' HTTP status and JSON body). */
interface ConfirmAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * One request per request id, whatever the page or the network does: a Confirm of an id this console
 * is sending waits for that send, and one of an id it sent (a double submit, or the page's retry after
 * the answer was lost on the way: same request id) sends nothing and is told so ({@link alreadySentAnswer}),
 * not that the request was never checked, so the page follows it instead of making a new request.
 * The same bounds as the checks. Event loop only.
 */
export class SendsOnce {
  private readonly sent = new Map<string, number>();
  private readonly sending = new Map<string, Promise<ConfirmAnswer>>();

  /** Runs `confirm` for `requestId` unless it is on its way or was sent (202); answers as said above. */
  async confirm(requestId: string, confirm: () => Promise<ConfirmAnswer>): Promise<ConfirmAnswer> {
    const earlier = this.sending.get(requestId);
    if (earlier !== undefined) {
      const answer = await earlier;
      return this.sentAnswer(requestId) ?? answer;
    }
    const sent = this.sentAnswer(requestId);
    if (sent !== undefined) return sent;
    const sending = confirm();
    this.sending.set(requestId, sending);
    try {
      const answer = await sending;
      if (answer.status === 202) this.remember(requestId, Date.now());
      return answer;
    } finally {
      this.sending.delete(requestId);
    }
  }

  private remember(requestId: string, at: number): void {
    this.sent.delete(requestId);
    this.sent.set(requestId, at);
    for (const id of this.sent.keys()) {
      if (this.sent.size <= MAX_CHECKED) break;
      this.sent.delete(id);
    }
  }

  private sentAnswer(requestId: string): ConfirmAnswer | undefined {
    const at = this.sent.get(requestId);
    if (at === undefined || Date.now() - at > CHECK_TTL_MS) return undefined;
    return alreadySentAnswer(requestId, at);
  }
}

/**
 * The 409 answer of a Confirm of a request this console sent already: `stale` as any Confirm without
 * its check (`notChecked`), with `alreadySent: true` and a message that says so (the page follows it).
 */
export function alreadySentAnswer(requestId: string, sentAt: number): ConfirmAnswer {
  const id = escapeControlChars(requestId);
  const message = `request ${id} was sent already by this console (at ${new Date(sentAt).toISOString()}): nothing was sent again; its outcome is followed below`;
  return { status: 409, body: { kind: 'stale', reason: 'notChecked', alreadySent: true, requestId: id, message } };
}
