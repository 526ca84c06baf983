import type { Logger as PinoLogger } from '../logging';

/**
 * What lib/requests logs through: message first, structured fields after it, as Powertools Logger
 * takes them (so the Lambda passes its Logger as is). {@link pinoRequestLogger} adapts lib/logging's pino.
 */
export interface RequestLogger {
  debug(message: string, ...fields: Record<string, unknown>[]): void;
  info(message: string, ...fields: Record<string, unknown>[]): void;
  warn(message: string, ...fields: Record<string, unknown>[]): void;
  error(message: string, ...fields: Record<string, unknown>[]): void;
}

/** Logs nothing. */
export const silentRequestLogger: RequestLogger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

/** A {@link RequestLogger} over a pino logger (fields first, as pino takes them). */
export function pinoRequestLogger(logger: PinoLogger): RequestLogger {
  return {
    debug: (message, ...fields) => logger.debug(Object.assign({}, ...fields), message),
    info: (message, ...fields) => logger.info(Object.assign({}, ...fields), message),
    warn: (message, ...fields) => logger.warn(Object.assign({}, ...fields), message),
    error: (message, ...fields) => logger.error(Object.assign({}, ...fields), message),
  };
}
