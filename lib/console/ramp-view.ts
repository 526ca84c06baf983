/**
 * A ramp on its card (issue 24, item 6): one progress bar with the steps as the operator typed them
 * (20 → 60 → 100 %), the current step, the next one and when, or that the ramp is held and since when;
 * and the buttons that steer it. Each button fills the Act form like the card's other buttons, so a
 * hold, a resume or an advance is checked and confirmed like every request, then sent through the
 * worker (`failout ramp hold|resume|advance <cluster>` is the same request); abort is a restore.
 */
import type { ClusterStatus } from '../operator';
import { countdown } from './countdown';
import { clockTime } from './clock-time';
import { html, join, type SafeHtml } from './html';

/** `failout status`'s ramp (the face keeps its type off the budget). */
type RampStatus = NonNullable<ClusterStatus['ramp']>;

/** One step of the bar: its share and where the ramp stands with it. */
interface ShownStep {
  readonly sharePct: number;
  readonly state: 'done' | 'next' | 'later' | 'held';
}

/** The steps in order: the scheduled ones (started, next, later), then the held ones. */
function steps(ramp: RampStatus): ShownStep[] {
  const shown: ShownStep[] = ramp.scheduled.map((s, i) => ({ sharePct: s.sharePct, state: i < ramp.step ? 'done' : i === ramp.step ? 'next' : 'later' }));
  for (const sharePct of ramp.held?.heldSharePcts ?? []) shown.push({ sharePct, state: 'held' });
  return shown;
}

/** What the ramp waits for: its next step and when, the hold, or nothing (the last step is on). */
function nextLine(ramp: RampStatus, now: number): SafeHtml {
  const held = ramp.held;
  if (held !== undefined) {
    const who = held.requestedBy === null ? '' : html` by <span class="who">${held.requestedBy}</span>`;
    const why = held.reason === null ? '' : html` — <span class="reason">${held.reason}</span>`;
    return html`<span class="ramp-next" data-held="true">held at ${ramp.sharePct}% since ${clockTime(held.since)}${who}${why}; ${held.heldSharePcts.join(' → ')}% wait for Resume or Advance</span>`;
  }
  if (ramp.nextAt === null) return html`<span class="ramp-next" data-next="none">last step on</span>`;
  return html`<span class="ramp-next" data-next="${ramp.nextAt}">next ${ramp.nextSharePct ?? 0}% in ${countdown(ramp.nextAt, now)} (at ${clockTime(ramp.nextAt)})</span>`;
}

/** The ramp block of `cluster`'s card. */
export function renderRamp(cluster: string, ramp: RampStatus, now: number): SafeHtml {
  const all = steps(ramp);
  const label = `ramp of ${cluster}: ${ramp.sharePct}% moved, step ${ramp.step} of ${ramp.steps}${ramp.held ? ', held' : ''}`;
  const buttons: SafeHtml[] = [];
  if (ramp.held) buttons.push(html`<button type="button" data-act="rampResume" data-cluster="${cluster}">Resume ramp…</button>`);
  else if (ramp.nextAt !== null) buttons.push(html`<button type="button" data-act="rampHold" data-cluster="${cluster}">Hold ramp…</button>`);
  if (ramp.held ? ramp.held.heldSharePcts.length > 0 : ramp.nextAt !== null) buttons.push(html`<button type="button" data-act="rampAdvance" data-cluster="${cluster}">Next step now…</button>`);
  buttons.push(html`<button type="button" data-act="restore" data-cluster="${cluster}">Abort (restore)…</button>`);
  return html`<div class="ramp" data-step="${ramp.step}" data-steps="${ramp.steps}"${ramp.held ? html` data-held="true"` : ''}>
    <p><progress max="100" value="${ramp.sharePct}" aria-label="${label}">${ramp.sharePct}%</progress> <span class="ramp-share">${ramp.sharePct}% moved</span>, step ${ramp.step} of ${ramp.steps}</p>
    <ol class="ramp-steps" aria-label="steps">${join(
      all.map((s) => html`<li data-state="${s.state}">${s.sharePct}%</li>`),
      '',
    )}</ol>
    <p>${nextLine(ramp, now)}</p>
    <p class="ramp-actions">${join(buttons, ' ')}</p>
  </div>`;
}
