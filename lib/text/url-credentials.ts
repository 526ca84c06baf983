/**
 * Text as a message may show it, with the `user:password@` of any URL in it replaced by `***@`: for text
 * that may not parse as a URL (a typo'd host, port or scheme) as well as for one that does. Userinfo
 * ends at the first `@` of the authority, which holds no `/`, `?` or `#`; a bare `user:password@host`
 * (no scheme) at the start is hidden too.
 */
export function hideUrlCredentials(text: string): string {
  return text.replace(/\/\/[^/?#\s]*@/g, '//***@').replace(/^[^=/]*:[^=/]*@/, '***@');
}

/** Text of one log argument, with any URL's `user:password@` hidden. */
function shownLogArgument(arg: unknown): string {
  return hideUrlCredentials(arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : (JSON.stringify(arg) ?? String(arg)));
}

/**
 * The `logger` of every AWS SDK client that takes a URL from configuration (the SQS clients that send
 * change requests: the CLI and the console, the guard and the drill runner). Without one the SDK falls
 * back to `console` for some warnings, and SQS's says, when the queue URL's host differs from the
 * client's endpoint, the whole queue URL, `user:password@` included (@aws-sdk/middleware-sdk-sqs
 * `queueUrlMiddleware`). This one keeps the SDK's warnings on `console` with credentials hidden, and
 * drops the rest as the SDK's default (no-op) logger does: with a logger, the SDK logs every failed
 * call at `error` and every call at `info` with its whole input (the request body, the queue URL as
 * given), and the caller reports the failure itself.
 */
export const credentialHidingLogger = {
  debug: (): void => undefined,
  info: (): void => undefined,
  warn: (...args: unknown[]): void => console.warn(args.map(shownLogArgument).join(' ')),
  error: (): void => undefined,
};
