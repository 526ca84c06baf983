/**
 * The console's habits (issue 24, item 8): the time zone switch in the page's header (UTC or the
 * browser's local zone, for every `<time data-clock>` the page shows and the charts' time axis:
 * public/time.js), and the keyboard shortcuts, listed on the page (public/shortcuts.js runs them).
 * The list here is what the page promises; the browser test presses every key it names.
 */
import { html, join, type SafeHtml } from './html';

/** One shortcut as the page lists it: the key as printed, what it does. */
export interface Shortcut {
  /** The `KeyboardEvent.key` that runs it. */
  readonly key: string;
  readonly does: string;
}

/** Every shortcut of the console's page, in the order listed. */
export const SHORTCUTS: readonly Shortcut[] = Object.freeze([
  { key: '/', does: 'find a cluster: focus the cluster filter' },
  { key: 't', does: 'switch the times between UTC and local' },
  { key: 'f', does: 'go to the fabrics' },
  { key: 'd', does: 'go to the drills' },
  { key: 'a', does: 'go to the request form' },
  { key: 'h', does: 'go to the history' },
  { key: '?', does: 'go to this list' },
  { key: 'Escape', does: 'close an open check (its Cancel), else clear the cluster filter' },
]);

/** The history tables' first column heading: when a record was decided, in the zone shown. */
export const DECIDED_HEADER: SafeHtml = html`<th scope="col">decided (<span data-tz-label>UTC</span>)</th>`;

/** The header's switch; UTC pressed until the page's script reads the operator's choice. */
export function renderZoneSwitch(): SafeHtml {
  return html`<div id="tz" class="tz" role="group" aria-labelledby="tz-h"><span id="tz-h">Times in</span> <button type="button" data-tz="utc" aria-pressed="true">UTC</button><button type="button" data-tz="local" aria-pressed="false">Local</button> <span class="tz-shown">(shown: <span data-tz-label>UTC</span>)</span></div>`;
}

/** The visible list of {@link SHORTCUTS} (`?` moves to its heading). */
export function renderShortcuts(): SafeHtml {
  const items = SHORTCUTS.map((s) => html`<dt><kbd>${s.key === 'Escape' ? 'Esc' : s.key}</kbd></dt><dd>${s.does}</dd>`);
  return html`<section aria-labelledby="keys-h"><h2 id="keys-h" tabindex="-1">Keyboard shortcuts</h2>
<p class="note">Not while typing in a field, and not with Ctrl, Alt or ⌘ held.</p>
<dl class="shortcuts" id="shortcuts">${join(items)}</dl></section>`;
}
