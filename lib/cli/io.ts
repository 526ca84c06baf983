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
    stdout: writerOf(process.stdout),
    stderr: writerOf(process.stderr),
    env: process.env,
    now: () => Date.now(),
  };
}

const writers = new WeakMap<NodeJS.WriteStream, (text: string) => void>();

/**
 * A writer to `stream` that drops what it is given once the reader has gone (EPIPE: `failout status
 * --json | head -c 1`), as a pipe's writer should, instead of dying on the stream's unhandled `error`
 * with a stack trace; the command still finishes (a request already judged is still sent and waited
 * for) and exits with its own code. Any other stream error is thrown, as before. One per stream.
 */
function writerOf(stream: NodeJS.WriteStream): (text: string) => void {
  const known = writers.get(stream);
  if (known !== undefined) return known;
  let readerGone = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    readerGone = true;
  });
  const write = (text: string): void => {
    if (!readerGone) stream.write(text);
  };
  writers.set(stream, write);
  return write;
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
