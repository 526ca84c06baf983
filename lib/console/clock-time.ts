/**
 * An instant as every part of the console renders it (issue 24, item 8): a `<time data-clock>` whose
 * `datetime` is the instant in ISO 8601 and whose text, as the server writes it, is that same UTC
 * instant without milliseconds (`2026-12-02T23:03:48Z`: unambiguous without a script). The page's
 * script (public/time.js) rewrites the text in the zone the operator chose (UTC or the browser's
 * local zone): `23:03:48` today, `2 Dec 23:03` on another day. The server never renders "today": a
 * card sent once stays right across midnight, and every browser may have its own zone.
 */
import { html, type SafeHtml } from './html';

/** `2026-12-02T23:03:48Z`: an instant (epoch ms, or an ISO time) in UTC, whole seconds unless it has a fraction. */
export function isoText(at: number | string): string {
  if (typeof at === 'string') return at.replace('.000Z', 'Z');
  return new Date(at).toISOString().replace('.000Z', 'Z');
}

/** The instant `at` (epoch ms, or an ISO time) as a `<time data-clock>`; `text`: what it says without a script (default {@link isoText}). */
export function clockTime(at: number | string, text: string = isoText(at)): SafeHtml {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  // An ISO text that does not parse is shown as it is, without a datetime the script would misread.
  if (!Number.isFinite(ms)) return html`${text}`;
  return html`<time datetime="${new Date(ms).toISOString()}" data-clock="${ms}">${text}</time>`;
}

/** An instant as {@link isoText} writes it. */
const ISO_INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

/**
 * A line the console composed with {@link isoText} (a drill run's outcome: "ended 2026-12-01T15:00:00Z
 * by request …"), escaped, each instant in it a {@link clockTime}.
 */
export function withClockTimes(text: string): SafeHtml {
  const parts: SafeHtml[] = [];
  let from = 0;
  for (const match of text.matchAll(ISO_INSTANT)) {
    parts.push(html`${text.slice(from, match.index)}`, clockTime(match[0]));
    from = match.index + match[0].length;
  }
  parts.push(html`${text.slice(from)}`);
  return html`${parts}`;
}
