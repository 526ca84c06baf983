/**
 * lib/lifecycle: the one lifecycle vocabulary of every component in failout (house rule 3; Curator's
 * LATENT → STARTED → CLOSED) and the one verb that ends a life, `close()`.
 *
 * The lowest module: no imports, no runtime. Every layer may import it.
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
