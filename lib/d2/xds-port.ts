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
}

/**
 * True for an xDS error that says the resource itself is bad (the client NACKed it): the sources
 * treat it as an unreadable write, as a ZooKeeper store treats a document that does not parse.
 * Connectivity errors are not: the cached value stays and nothing is published.
 */
export function isResourceRejection(error: XdsError): boolean {
  return error.kind === 'nacked' || error.kind === 'validation';
}
