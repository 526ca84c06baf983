/**
 * The public watcher interface of {@link XdsClient.watch} (grpc-go `resource_watcher.go`).
 *
 * Contract:
 * - Callbacks run asynchronously (never inside the `watch()` call or an ADS read), one at a time per
 *   watcher, in the order the events happened.
 * - Every callback receives `done`; the next callback for the same watcher is held until `done()` is
 *   called. Calling it more than once is harmless.
 * - After the cancel function returned by `watch()` has been called, no further callback starts.
 */
import type { XdsError } from './errors';

/** Options of {@link XdsWatcher.onError}. */
export interface XdsWatcherErrorInfo {
  /**
   * True for an ambient error: the watcher already has a usable resource (or knows it does not
   * exist) and should keep using it. False for a resource error: the watcher has nothing usable.
   */
  readonly ambient: boolean;
}

/** Receives the updates of one watched resource. */
export interface XdsWatcher<T = unknown> {
  /** A new value of the resource (or the same value from another server, see authority.ts). */
  onUpdate(resource: T, done: () => void): void;
  /** The resource does not exist (does-not-exist timer fired, or SotW deletion for LDS/CDS). */
  onResourceDoesNotExist(done: () => void): void;
  /**
   * Something went wrong: a NACKed update (`kind` 'nacked'/'validation') or a connectivity failure of
   * every listed server (`kind` 'connection', naming the last server tried).
   */
  onError(error: XdsError, info: XdsWatcherErrorInfo, done: () => void): void;
}
