/**
 * HTML built from data, escaped by construction: every value interpolated into {@link html} is
 * escaped unless it is itself a {@link SafeHtml} made by `html`. Text from ZooKeeper, requests and
 * services (names, reasons, error messages) therefore reaches the page as text, never as markup; the
 * page's Content-Security-Policy (no inline script) is the second wall behind this one.
 *
 * Text as text is not enough: a U+202E in a reason reorders what the operator reads, and NUL or ESC
 * have no business on the page. So every interpolated value also has its control and bidi characters
 * shown as visible escapes (`\u202e`), with the CLI's one function (lib/text, issue 21): the page shows
 * what `failout status` prints.
 */
import { escapeControlChars } from '../text';

/** A piece of HTML that is safe to insert as is: only {@link html} and {@link join} make one. */
export class SafeHtml {
  /** @internal */
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

/** A value {@link html} accepts: text (escaped), numbers, safe HTML, lists of those; null/undefined/false render nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(escapeControlChars(String(value)));
}

/** The tagged template: literal parts are kept, every interpolation is escaped, control characters made visible (see the module comment). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Joins safe pieces (and escaped text) with a separator. */
export function join(values: readonly HtmlValue[], separator = ''): SafeHtml {
  return new SafeHtml(values.map(render).join(escapeHtml(separator)));
}
