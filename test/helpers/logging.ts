import { Writable } from 'node:stream';
import pino from 'pino';

/** One captured log line: its pino level name, message, and the whole record. */
export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly record: Record<string, unknown>;
}

/** A pino logger (level `debug`) that keeps what it writes, for asserting what a component logged. */
export function capturingLogger(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const levels: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const record = JSON.parse(chunk.toString()) as Record<string, unknown>;
      lines.push({ level: levels[record.level as number] ?? String(record.level), msg: String(record.msg), record });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}
