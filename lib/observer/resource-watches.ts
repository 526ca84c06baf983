/**
 * Starts the ZooKeeper watches behind one subscribed resource and feeds what they read into the
 * cache: a data watch for a service, cluster or symlink node, a {@link UriMapWatch} for a URI map.
 * Depends on the narrow `ZkWatcher` port only, so the unit tests run it on the in-memory fake.
 */
import type { Closeable } from '../lifecycle';
import type { ZkWatcher } from '../zk';
import type { ObserverError } from './errors';
import type { ResourceCache } from './resource-cache';
import type { ResourceTarget } from './resource-names';
import { UriMapWatch } from './uri-map-watch';

/** What the watches report besides the cache. */
export interface WatchHooks {
  /** A node's data will not be served (see `ResourceCache`). */
  malformed(error: ObserverError): void;
  /** A node's data is servable again, or the node is gone (see `CacheHooks.servable`). */
  servable?(path: string): void;
  /** A read was delivered (the ZooKeeper lag metric). */
  read(): void;
}

/** Starts watching `target` for the resource `key` of `typeUrl`; `close()` on the result stops it. */
export function watchResource(zk: ZkWatcher, cache: ResourceCache, hooks: WatchHooks, key: string, typeUrl: string, target: Exclude<ResourceTarget, { kind: 'none' }>): Closeable {
  if (target.kind === 'uriMap') {
    return new UriMapWatch({
      zk,
      path: target.path,
      publish: (parent, children) => cache.putUriMap(key, target.path, parent, children),
      onMalformed: (error) => hooks.malformed(error),
      onUnreadable: (error) => cache.putUnreadable(key, target.path, error),
      onServable: (path) => hooks.servable?.(path),
      onRead: () => hooks.read(),
    });
  }
  return zk.watchData(
    target.path,
    (state) => {
      hooks.read();
      cache.putNode(key, typeUrl, target, state);
    },
    (error) => cache.putUnreadable(key, target.path, error),
  );
}
