import { escapeControlChars } from '../text';

/**
 * Where the CLI reads its environment and writes its output. `run(argv, io)` takes one, so tests run
 * the CLI in-process and read what it printed; `main.ts` passes the process's own.
 */
export interface CliIo {
  /** Writes to standard output (the result: text or JSON). */
  stdout(text: string): void;
  /** Writes to standard error (errors, progress). */
  stderr(text: string): void;
  /** Environment variables (`FAILOUT_QUEUE_URL`, `ZK_CONNECT`, `SQS_ENDPOINT`, …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The clock (epoch ms). */
  now(): number;
}

/** The process's own streams, environment and clock. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => Date.now(),
  };
}

/**
 * `io` with every control character of its output shown as a visible escape, line breaks kept (issue
 * 14). The formatters escape each value from data already; this is the last line of defence for any
 * message that quotes data (an error from ZooKeeper, a usage error echoing a flag). The CLI prints no
 * control sequences of its own, and JSON output keeps its meaning (`\u009b` is the same string).
 */
export function escapingIo(io: CliIo): CliIo {
  return {
    stdout: (text) => io.stdout(escapeControlChars(text, { keepNewlines: true })),
    stderr: (text) => io.stderr(escapeControlChars(text, { keepNewlines: true })),
    env: io.env,
    now: () => io.now(),
  };
}
