import type { indis, XdsError, XdsWatcher } from '../xds';

/**
 * The part of lib/xds's `XdsClient` the xDS sources use: watches of rest.li's `indis` types by
 * ZooKeeper path. An `XdsClient` is one; tests give a fake that keeps the watcher contract of
 * lib/xds's `watcher.ts` (asynchronous callbacks, serial per watcher, each with `done`).
 */
export interface D2XdsPort {
  /** Watches one D2 node (`<base>/services/<s>`, `<base>/clusters/<c>`); returns the cancel function. */
  watch(kind: 'd2Node', name: string, watcher: XdsWatcher<indis.D2Node>): () => void;
  /** Watches one cluster's announcements (`<base>/uris/<c>`); returns the cancel function. */
  watch(kind: 'd2UriMap', name: string, watcher: XdsWatcher<indis.D2UriMap>): () => void;
  /** Watches one D2 symlink (`<base>/clusters/$<c>`, `<base>/uris/$<c>`); returns the cancel function. */
  watch(kind: 'd2SymlinkNode', name: string, watcher: XdsWatcher<indis.D2SymlinkNode>): () => void;
}

/**
 * True for an xDS error that says the resource itself is bad (the client NACKed it): the sources
 * treat it as an unreadable write, as a ZooKeeper store treats a document that does not parse.
 * Connectivity errors are not: the cached value stays and nothing is published.
 */
export function isResourceRejection(error: XdsError): boolean {
  return error.kind === 'nacked' || error.kind === 'validation';
}

/** What an xDS-fed store does with one watch's events (each synchronous; `done` is called for it). */
export interface D2WatchHandlers<T> {
  /** A version of the resource. */
  update(resource: T): void;
  /** The resource does not exist. */
  absent(): void;
  /** An xDS error; `ambient` when the client still has a usable resource. */
  error(error: XdsError, ambient: boolean): void;
}

/**
 * An {@link XdsWatcher} that hands events to `handlers` while `current()` holds and calls `done()`
 * after each: `cancel` stops new callbacks, `current` drops one already running for an entry the
 * store has given up. Shared by the xDS-fed stores so the watcher contract is kept once.
 */
export function currentWatcher<T>(current: () => boolean, handlers: D2WatchHandlers<T>): XdsWatcher<T> {
  return {
    onUpdate: (resource, done) => {
      if (current()) handlers.update(resource);
      done();
    },
    onResourceDoesNotExist: (done) => {
      if (current()) handlers.absent();
      done();
    },
    onError: (error, info, done) => {
      if (current()) handlers.error(error, info.ambient);
      done();
    },
  };
}
