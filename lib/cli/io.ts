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
