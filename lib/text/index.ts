/**
 * lib/text: text from data, made safe to show. One escaping function for every printer (the CLI, the
 * local stack's view) and the same character class for the validators that refuse it (issue 14).
 * No dependencies.
 */
export { escapeControlChars, findControlChar } from './control-chars';
export type { EscapeOptions } from './control-chars';
