/**
 * lib/text: text from data, made safe to show, and small text formats shared by the CLI and the console. One escaping function for every printer (the CLI, the
 * local stack's view) and the same character class for the validators that refuse it (issue 14).
 * No dependencies.
 */
export { escapeControlChars, findControlChar } from './control-chars';
export type { EscapeOptions } from './control-chars';
export { formatRemaining } from './remaining';
export { credentialHidingLogger, hideUrlCredentials } from './url-credentials';
export { NO_READ_PERMISSION } from './unreadable';
