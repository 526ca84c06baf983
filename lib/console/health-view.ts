/**
 * Health per target cluster as the console shows it (issue 24, "health per target"): requests/s, the
 * share of requests that failed (5xx or no response) and p99 time to headers, from a service's D2
 * request metrics (sources.ts, over `HEALTH_WINDOW_MS`), rounded for people and held steady: a shown
 * value moves only when the measurement moved by more than a tolerance, so steady traffic shows the
 * same text scrape after scrape and no card is sent again for it (live-state.ts reuses a card's HTML
 * while its shown health is the same object). A number that cannot be measured is shown as `—` with
 * the reason (a title, and the same words for screen readers), never as a zero.
 *
 * Pure: the values and their HTML. health-board.ts keeps what is shown between scrapes.
 */
import type { TargetHealth } from '../metrics';
import { escapeControlChars } from '../text';
import { html, join, type SafeHtml } from './html';
import { HEALTH_WINDOW_MS } from './sources';

/**
 * A target is unhealthy when at least this percentage of its requests failed over the window …
 * (the share a typical 5xx stop alarm fires at; below it, a few failures are noise).
 */
export const UNHEALTHY_ERROR_PCT = 5;
/** … and it served at least this many requests/s: a lone failure of an idle target is no signal. */
export const UNHEALTHY_MIN_RPS = 1;

/** One number as shown: its text and the measurement it was made from, or why it is unknown. */
export type ShownNumber = { readonly text: string; readonly raw: number } | { readonly reason: string };

/**
 * What the health line says as a whole: `unhealthy` (the threshold above), `ok`, `idle` (no request in
 * the window) or `unknown` (no measurement: the reason is on each number).
 */
export type HealthVerdict = 'ok' | 'unhealthy' | 'idle' | 'unknown';

/** One target's health as shown; the same object while nothing shown changes. */
export interface ShownHealth {
  readonly verdict: HealthVerdict;
  readonly rps: ShownNumber;
  readonly errors: ShownNumber;
  readonly p99: ShownNumber;
}

/** A card's health: its own and, on a failed-out or scheduled card, its peers' (health-board.ts). */
export interface CardHealth {
  /** The service whose clients' metrics the numbers come from (the card's group's). */
  readonly service: string;
  readonly own: ShownHealth;
  readonly peers: readonly { readonly cluster: string; readonly health: ShownHealth }[];
}

/** Why an idle target's failed share and p99 are unknown. */
export const NO_REQUEST = `no request in the last ${HEALTH_WINDOW_MS / 1000} s`;
/** Why a p99 is unknown while requests were counted. */
export const NO_HISTOGRAM = 'no d2_client_request_duration_seconds histogram for this cluster';

/** `0`, `4.2`, `48`, `1200`: one decimal below 10, two significant digits from 10 on. */
export function roundedText(value: number): string {
  if (value === 0) return '0';
  if (value < 10) return value.toFixed(1);
  return String(Number(value.toPrecision(2)));
}

/** The verdict of a measurement (see {@link UNHEALTHY_ERROR_PCT}). */
export function verdictOf(health: TargetHealth): HealthVerdict {
  if (health.errorPct === undefined) return 'idle';
  return health.errorPct >= UNHEALTHY_ERROR_PCT && health.rps >= UNHEALTHY_MIN_RPS ? 'unhealthy' : 'ok';
}

/** How far a measurement may move from the one shown before its text changes (relative, with a floor). */
const TOLERANCE = { rps: { share: 0.1, floor: 0.05 }, errors: { share: 0.2, floor: 0.5 }, p99: { share: 0.2, floor: 0.5 } } as const;

/** `previous` while `raw` is within its tolerance of what it shows (and on the same side of zero), else a new number. */
function held(previous: ShownNumber | undefined, raw: number, tolerance: { readonly share: number; readonly floor: number }): ShownNumber {
  if (previous !== undefined && 'raw' in previous && previous.raw === 0 === (raw === 0)) {
    if (Math.abs(raw - previous.raw) <= Math.max(previous.raw * tolerance.share, tolerance.floor)) return previous;
  }
  return { text: roundedText(raw), raw };
}

/** `previous` when it gives the same reason, else a number with that reason. */
function unknown(previous: ShownNumber | undefined, reason: string): ShownNumber {
  return previous !== undefined && 'reason' in previous && previous.reason === reason ? previous : { reason };
}

/**
 * What to show for a measurement, given what was shown before: `previous` itself when no shown value
 * changes. A change of verdict makes every number fresh (an `unhealthy` mark never sits beside a
 * failed share held from before it).
 */
export function nextShown(previous: ShownHealth | undefined, health: TargetHealth): ShownHealth {
  const verdict = verdictOf(health);
  const before = previous?.verdict === verdict ? previous : undefined;
  const rps = held(before?.rps, health.rps, TOLERANCE.rps);
  const errors = health.errorPct === undefined ? unknown(before?.errors, NO_REQUEST) : held(before?.errors, health.errorPct, TOLERANCE.errors);
  const p99 = health.p99Ms !== undefined ? held(before?.p99, health.p99Ms, TOLERANCE.p99) : unknown(before?.p99, health.errorPct === undefined ? NO_REQUEST : NO_HISTOGRAM);
  if (before !== undefined && rps === before.rps && errors === before.errors && p99 === before.p99) return before;
  return { verdict, rps, errors, p99 };
}

/** Every number unknown for one reason (the endpoint is down, none is configured, …). */
export function unknownHealth(reason: string): ShownHealth {
  const number = { reason };
  return { verdict: 'unknown', rps: number, errors: number, p99: number };
}

/** The texts of a shown health, for the chart's legend (the page's script shows them as text). */
export interface HealthTexts {
  readonly verdict: HealthVerdict;
  /** `12 req/s`, `— req/s`. */
  readonly rps: string;
  /** `0.4 % errors`, `— errors`. */
  readonly errors: string;
  /** `p99 4.1 ms`, `p99 —`. */
  readonly p99: string;
  /** Why the numbers shown as `—` are unknown, one line each (empty when none is). */
  readonly reasons: readonly string[];
}

const texts = {
  rps: (n: string): string => `${n} req/s`,
  errors: (n: string): string => (n === '—' ? '— errors' : `${n} % errors`),
  p99: (n: string): string => `p99 ${n}${n === '—' ? '' : ' ms'}`,
} as const;

/** The texts of `shown`. */
export function healthTexts(shown: ShownHealth): HealthTexts {
  const one = (key: keyof typeof texts): string => texts[key]('text' in shown[key] ? (shown[key] as { text: string }).text : '—');
  const reasons = [...new Set((['rps', 'errors', 'p99'] as const).flatMap((key) => ('reason' in shown[key] ? [(shown[key] as { reason: string }).reason] : [])))];
  return { verdict: shown.verdict, rps: one('rps'), errors: one('errors'), p99: one('p99'), reasons };
}

/**
 * A legend as the page's script gets it (it shows every string as text): target names and texts
 * with control characters as visible escapes, as everywhere else on the page.
 */
export function shownLegend(legend: Readonly<Record<string, HealthTexts>>): Record<string, HealthTexts> {
  return Object.fromEntries(
    Object.entries(legend).map(([target, t]) => [
      escapeControlChars(target),
      { verdict: t.verdict, rps: escapeControlChars(t.rps), errors: escapeControlChars(t.errors), p99: escapeControlChars(t.p99), reasons: t.reasons.map((r) => escapeControlChars(r)) },
    ]),
  );
}

/** One number: its text, or `—` with the reason as a title and, for screen readers, in words. */
function renderNumber(key: keyof typeof texts, number: ShownNumber): SafeHtml {
  if ('text' in number) return html`<span class="metric" data-metric="${key}">${texts[key](number.text)}</span>`;
  return html`<span class="metric unknown" data-metric="${key}" title="${number.reason}">${texts[key]('—')}<span class="vh"> (unknown: ${number.reason})</span></span>`;
}

/** The numbers and, past the threshold, the word `unhealthy` (a class for the colour, the word for everyone). */
function renderNumbers(shown: ShownHealth): SafeHtml {
  const mark = shown.verdict === 'unhealthy' ? html` <strong class="unhealthy">unhealthy</strong>` : '';
  return html`${join([renderNumber('rps', shown.rps), renderNumber('errors', shown.errors), renderNumber('p99', shown.p99)], ', ')}${mark}`;
}

/** A card's own line: the health of the cluster as a target of `service`'s clients. */
export function renderOwnHealth(service: string, shown: ShownHealth): SafeHtml {
  return html`<p class="health" data-health="${shown.verdict}"><span class="health-from">as a target of ${service}:</span> ${renderNumbers(shown)}</p>`;
}

/** The peers of a failed-out card, each with its health as a target of `service`'s clients. */
export function renderPeersHealth(service: string, peers: readonly { readonly cluster: string; readonly health: ShownHealth }[]): SafeHtml {
  return html`<ul class="peer-health" aria-label="peers' health as targets of ${service}">${peers.map((p) => html`<li data-peer="${p.cluster}" data-health="${p.health.verdict}">${p.cluster}: ${renderNumbers(p.health)}</li>`)}</ul>`;
}
