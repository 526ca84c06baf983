/**
 * Control characters in text that came from other people (issue 14). A failout's `reason`, who asked,
 * cluster and peer names, a rejection's message: printed raw, an ESC sequence in any of them can clear
 * an operator's terminal and draw a fake "all clear"; a C1 CSI (U+009B) does the same on 8-bit
 * terminals, and a bidi override reorders what the operator reads.
 *
 * One class of characters, used twice: the request schema refuses them in free text, and every
 * printer (CLI, local view) shows them as visible `\uXXXX` escapes.
 */

/**
 * C0 controls (ESC, NUL, newline …), DEL, C1 controls, and the Unicode format controls that steer
 * display: every character of Unicode's Bidi_Control set (the left-to-right, right-to-left and Arabic
 * letter marks, bidi embeddings, overrides and isolates), and the line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// Non-global (stateless) for exec.
const FIRST_CONTROL = new RegExp(CONTROL.source);
// The same class without `\n`, for whole messages whose lines are the printer's own.
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The escapes people recognise; every other control character is shown as `\uXXXX`. */
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Options of {@link escapeControlChars}. */
export interface EscapeOptions {
  /**
   * Keep `\n` as a line break: for a whole message or frame whose lines the printer made. Fields from
   * data are escaped without it, so a newline in them cannot start a line of its own.
   */
  readonly keepNewlines?: boolean;
}

/**
 * `text` with every control character (see the module doc) replaced by a visible escape: `\n`, `\r`,
 * `\t`, else `\u001b` style. Everything else, backslashes and any other Unicode included, is kept, so
 * ordinary text prints unchanged. The one escaping function of every printer.
 */
export function escapeControlChars(text: string, options: EscapeOptions = {}): string {
  const pattern = options.keepNewlines ? CONTROL_BUT_NEWLINE : CONTROL;
  return text.replace(pattern, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Where the first control character of `text` is, for a validator's message; undefined when none. */
export function findControlChar(text: string): { readonly index: number; readonly codePoint: string } | undefined {
  const match = FIRST_CONTROL.exec(text);
  if (match === null) return undefined;
  return { index: match.index, codePoint: `U+${match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` };
}
