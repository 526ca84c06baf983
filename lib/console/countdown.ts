/**
 * A countdown as every part of the page renders it: a `<time>` whose text is the time left at render
 * and whose `data-until` the page's script counts down by itself (console.js `tick`), so the server
 * never re-sends a card just because a second passed (issue 24, item 1).
 */
import { formatRemaining } from '../text';
import { html, type SafeHtml } from './html';

/** The countdown to `until` (epoch ms, or an ISO time) as seen at `now`. */
export function countdown(until: number | string, now: number): SafeHtml {
  const ms = typeof until === 'number' ? until : Date.parse(until);
  const datetime = typeof until === 'string' ? until : new Date(ms).toISOString();
  return html`<time datetime="${datetime}" data-until="${ms}">${formatRemaining(ms - now)}</time>`;
}
