/**
 * lib/lifecycle: the one lifecycle vocabulary of every component in failout (house rule 3; Curator's
 * LATENT → STARTED → CLOSED), the one verb that ends a life, `close()`, and the one way a process's
 * life ends on a signal ({@link closeOnSignal}).
 *
 * The lowest module: no imports, no npm runtime (only Node's `process`). Every layer may import it.
 *
 * How components use it:
 * - A component's lifecycle field (or getter) is named `lifecycle` and typed {@link Lifecycle}.
 * - Transitions check the from-state first (CAS style): `if (this.lifecycle === 'closed') return;`.
 * - A component that starts in its constructor begins `running`; one with a `start()` begins `idle`.
 * - A component whose state is richer than its lifecycle (a ZooKeeper connection, an ADS stream, a
 *   bridge's leadership role) keeps that one state and derives `lifecycle` from it, never a second field.
 * - It stops with `close()` (never `stop()` or `shutdown()`): idempotent, resolving when all it held is
 *   released. A component that can stop and serve again (the xDS management server, for tests of a
 *   control plane going away) does that with a separately named method and goes back to `idle`.
 */

/**
 * Where a component is in its life:
 * - `idle`: built and not running: not yet started, or stopped by a restartable component and able to
 *   start again.
 * - `running`: started; doing its work.
 * - `closing`: `close()` was called and is still releasing what the component holds (a receive in
 *   flight, a child process, a socket); no new work starts.
 * - `closed`: for good. `close()` again resolves at once; other calls fail or do nothing.
 *
 * Transitions: `idle → running → closing → closed`, `idle → closed` (closed before it started),
 * `running → idle` (restartable components only); `closing` may be skipped when nothing is awaited.
 */
export type Lifecycle = 'idle' | 'running' | 'closing' | 'closed';

/** Anything with the one stop verb: `close()` is idempotent and returns (or resolves) when done. */
export interface Closeable {
  /** Releases everything; safe to call more than once. */
  close(): void | Promise<void>;
}

/** What {@link closeOnSignal} reports to (a pino logger fits). */
export interface StopLogger {
  info(obj: object, msg: string): void;
  error(msg: string): void;
  error(obj: object, msg: string): void;
}

/** Options of {@link closeOnSignal}. */
export interface CloseOnSignalOptions {
  /** Where `stopping`, `stop failed` and `stop deadline passed; exiting` go. */
  readonly logger: StopLogger;
  /** How long closing may take before the process exits anyway (exit code 1). */
  readonly deadlineMs: number;
}

/**
 * How a long-running process (a Fargate task's `main.ts`) ends: on the first SIGTERM or SIGINT, logs
 * `stopping`, closes `target` and exits 0 once it is closed; exits 1 when closing fails (logged with the
 * error) or has not finished within `deadlineMs` (the deadline timer does not keep the process alive).
 * Give `target` one `close()` that releases everything in order (streams, then the session).
 *
 * Node's `process` only, no import: mains of every wing use it, so it lives here, below them all.
 */
export function closeOnSignal(target: Closeable, options: CloseOnSignalOptions): void {
  const { logger, deadlineMs } = options;
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'stopping');
    setTimeout(() => {
      logger.error('stop deadline passed; exiting');
      process.exit(1);
    }, deadlineMs).unref();
    // The executor runs at once, so close() starts now; a synchronous throw becomes a failed stop.
    new Promise<void>((resolve) => resolve(target.close())).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
