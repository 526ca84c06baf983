import type { ZkWatcher } from '../zk';
import type { Logger } from '../logging';
import { parseClusterProperties, parseClusterUpdate } from './codecs/cluster';
import { parseServiceProperties } from './codecs/service';
import type { D2Entity } from './errors';
import type { ClusterProperties, MergedUriProperties, ServiceProperties } from './model';
import { clusterPath, servicePath, urisPath } from './paths';
import { ZooKeeperPropertyStore, type PropertySource, type PropertyStoreStats } from './property-store';
import { ZooKeeperUriStore, type UriStoreStats } from './uri-store';
import { SymlinkSource, type LinkWatcher } from './symlink-source';
import { XdsPropertyStore, type D2XdsPort } from './xds-property-store';
import { currentWatcher, isResourceRejection } from './xds-port';
import { XdsUriStore } from './xds-uri-store';

/** A {@link PropertySource} that also keeps counters (what `LoadBalancerState.stats()` reports). */
export interface CountedPropertySource<T, S> extends PropertySource<T> {
  /** The source's counters (a copy). */
  stats(): S;
}

/**
 * The three sources behind a `LoadBalancerState`, one per D2 directory. Whatever feeds them (ZooKeeper
 * watches, xDS watches of rest.li's `indis` types, or both in dual read), they keep the
 * {@link PropertySource} contract, so the state and everything above it cannot tell which.
 */
export interface D2Sources {
  /** Cluster properties (`<base>/clusters/<c>`). */
  readonly clusters: CountedPropertySource<ClusterProperties, PropertyStoreStats>;
  /** Service properties (`<base>/services/<s>`). */
  readonly services: CountedPropertySource<ServiceProperties, PropertyStoreStats>;
  /** Announced hosts per cluster (`<base>/uris/<c>`), merged. */
  readonly uris: CountedPropertySource<MergedUriProperties, UriStoreStats>;
  /**
   * After the ZooKeeper session was replaced: resolves once every watch has read again on the new one
   * (`ZkWatcher.whenResynced`); undefined otherwise. Absent for sources without sessions (xDS).
   */
  readonly whenFresh?: () => Promise<void> | undefined;
}

/** What a `LoadBalancerState` hands a {@link D2SourceFactory}. */
export interface D2SourceContext {
  /** The normalized D2 base path (`/d2`). */
  readonly basePath: string;
  /**
   * Report every unreadable document here, after logging it: the state counts it for its caller and
   * tells cluster listeners `malformed`. For a URI announcement, `name` is `<cluster>/<child>`.
   */
  readonly onMalformed: (entity: D2Entity, name: string, error: Error) => void;
  /**
   * An unreadable document read under a `$` name (the node its links end at), already reported
   * through `onMalformed` under that node's own name: the state tells the `$` name's cluster listeners
   * `malformed` too, without counting or reporting the document again. Absent: nobody to tell (the
   * secondary of a dual read).
   */
  readonly onLinkedMalformed?: (entity: D2Entity, name: string, error: Error) => void;
  /** The state's logger, for the sources' own lines. */
  readonly logger: Logger;
}

/** Builds the sources of one `LoadBalancerState`; the state closes them when it closes. */
export type D2SourceFactory = (context: D2SourceContext) => D2Sources;

/** Link nodes over ZooKeeper: a data watch; the data is the target path (rest.li `SymlinkAwareZooKeeper`). */
function zooKeeperLinks(session: ZkWatcher): LinkWatcher {
  return (path, onState) => {
    const watch = session.watchData(
      path,
      (state) => onState(state.exists ? { kind: 'target', path: state.data.toString('utf8'), version: state.stat.mzxid } : { kind: 'absent' }),
      // A link it may not read (no read permission) is unreadable, as a link over xDS the client rejects.
      (error) => onState({ kind: 'invalid', error }),
    );
    return () => watch.close();
  };
}

/** Link nodes over xDS: `indis.D2SymlinkNode` watches; a NACKed link is unreadable, connectivity errors keep what was read. */
function xdsLinks(xds: D2XdsPort): LinkWatcher {
  return (path, onState) => {
    let active = true;
    const cancel = xds.watch(
      'd2SymlinkNode',
      path,
      currentWatcher(() => active, {
        update: (link) => onState({ kind: 'target', path: link.masterClusterNodePath, version: link.stat.mzxid }),
        absent: () => onState({ kind: 'absent' }),
        error: (error) => {
          if (isResourceRejection(error)) onState({ kind: 'invalid', error });
        },
      }),
    );
    return () => {
      active = false;
      cancel();
    };
  };
}

/**
 * The cluster and URI sources built by `plain`, resolving `$` symlinks through `watchLink`
 * (`symlink-source.ts`): a service whose cluster is `$FooClusterMaster` reads the cluster and hosts
 * the links point at. An unreadable cluster document is reported under its own name (by the inner
 * store) and told to the `$` names that follow it (`onLinkedMalformed`), so their listeners hear it
 * as a cluster's own listeners do.
 */
function withSymlinks(context: D2SourceContext, plain: (context: D2SourceContext) => D2Sources, watchLink: LinkWatcher): D2Sources {
  const { basePath, onMalformed, onLinkedMalformed, logger } = context;
  const linked: { clusters?: SymlinkSource<ClusterProperties, PropertyStoreStats> } = {};
  const inner = plain({
    ...context,
    onMalformed: (entity, name, error) => {
      onMalformed(entity, name, error);
      if (entity === 'cluster') linked.clusters?.targetMalformed(name, error);
    },
  });
  linked.clusters = new SymlinkSource({
    inner: inner.clusters,
    watchLink,
    directory: clusterPath(basePath),
    kind: 'cluster',
    onMalformed: (name, error) => onMalformed('cluster', name, error),
    onLinkedMalformed: (name, error) => onLinkedMalformed?.('cluster', name, error),
    logger,
  });
  return {
    services: inner.services,
    clusters: linked.clusters,
    uris: new SymlinkSource({ inner: inner.uris, watchLink, directory: urisPath(basePath), kind: 'uri', onMalformed: (name, error) => onMalformed('uri', name, error), logger }),
  };
}

/** The ZooKeeper sources (the default): watches on `session`, which stays the caller's; `$` symlinks resolved. */
export function zooKeeperSources(session: ZkWatcher): D2SourceFactory {
  const whenFresh = (): Promise<void> | undefined => session.whenResynced?.();
  return (context) => ({ ...withSymlinks(context, (inner) => plainZooKeeperSources(session, inner), zooKeeperLinks(session)), whenFresh });
}

function plainZooKeeperSources(session: ZkWatcher, { basePath, onMalformed, logger }: D2SourceContext): D2Sources {
  return {
    clusters: new ZooKeeperPropertyStore<ClusterProperties>({
      session,
      directory: clusterPath(basePath),
      kind: 'cluster',
      // A failout write changes only the document's last member: parse just that when it can.
      parse: (data, _name, _stat, last) => parseClusterUpdate(data, last),
      onMalformed: (name, error) => onMalformed('cluster', name, error),
      logger,
    }),
    services: new ZooKeeperPropertyStore({
      session,
      directory: servicePath(basePath),
      kind: 'service',
      parse: (data) => parseServiceProperties(data),
      onMalformed: (name, error) => onMalformed('service', name, error),
      logger,
    }),
    uris: new ZooKeeperUriStore({
      session,
      directory: urisPath(basePath),
      onMalformed: (cluster, child, error) => onMalformed('uri', `${cluster}/${child}`, error),
      logger,
    }),
  };
}

/**
 * The xDS sources (rest.li's D2 over xDS, `XdsToD2PropertiesAdaptor`): `indis.D2Node` watches of
 * `<base>/services/<s>` and `<base>/clusters/<c>`, `indis.D2URIMap` watches of `<base>/uris/<c>`,
 * `indis.D2SymlinkNode` watches of `$` names, through `xds` (an `XdsClient`), which stays the caller's.
 */
export function xdsSources(xds: D2XdsPort): D2SourceFactory {
  return (context) => withSymlinks(context, (inner) => plainXdsSources(xds, inner), xdsLinks(xds));
}

function plainXdsSources(xds: D2XdsPort, { basePath, onMalformed, logger }: D2SourceContext): D2Sources {
  return {
    clusters: new XdsPropertyStore({
      xds,
      directory: clusterPath(basePath),
      kind: 'cluster',
      parse: (data) => parseClusterProperties(data),
      onMalformed: (name, error) => onMalformed('cluster', name, error),
      logger,
    }),
    services: new XdsPropertyStore({
      xds,
      directory: servicePath(basePath),
      kind: 'service',
      parse: (data) => parseServiceProperties(data),
      onMalformed: (name, error) => onMalformed('service', name, error),
      logger,
    }),
    uris: new XdsUriStore({
      xds,
      directory: urisPath(basePath),
      onMalformed: (cluster, child, error) => onMalformed('uri', `${cluster}/${child}`, error),
      logger,
    }),
  };
}
