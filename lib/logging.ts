import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * One pino logger per component, JSON to stderr. `FAILOUT_LOG_LEVEL` sets the level
 * (default `info`; tests default to `silent` so jest output stays readable).
 */
export function createLogger(component: string): Logger {
  const fallback = process.env.JEST_WORKER_ID ? 'silent' : 'info';
  return pino({ name: component, level: process.env.FAILOUT_LOG_LEVEL ?? fallback }, pino.destination(2));
}
