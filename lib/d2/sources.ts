import type { ZkWatcher } from '../zk';
import type { Logger } from '../logging';
import { parseClusterProperties } from './codecs/cluster';
import { parseServiceProperties } from './codecs/service';
import type { D2Entity } from './errors';
import type { ClusterProperties, MergedUriProperties, ServiceProperties } from './model';
import { clusterPath, servicePath, urisPath } from './paths';
import { ZooKeeperPropertyStore, type PropertySource, type PropertyStoreStats } from './property-store';
import { ZooKeeperUriStore, type UriStoreStats } from './uri-store';
import { XdsPropertyStore, type D2XdsPort } from './xds-property-store';
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
  /** The state's logger, for the sources' own lines. */
  readonly logger: Logger;
}

/** Builds the sources of one `LoadBalancerState`; the state closes them when it closes. */
export type D2SourceFactory = (context: D2SourceContext) => D2Sources;

/** The ZooKeeper sources (the default): watches on `session`, which stays the caller's. */
export function zooKeeperSources(session: ZkWatcher): D2SourceFactory {
  return ({ basePath, onMalformed, logger }) => ({
    clusters: new ZooKeeperPropertyStore({
      session,
      directory: clusterPath(basePath),
      kind: 'cluster',
      parse: (data) => parseClusterProperties(data),
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
  });
}

/**
 * The xDS sources (rest.li's D2 over xDS, `XdsToD2PropertiesAdaptor`): `indis.D2Node` watches of
 * `<base>/services/<s>` and `<base>/clusters/<c>`, `indis.D2URIMap` watches of `<base>/uris/<c>`,
 * through `xds` (an `XdsClient`), which stays the caller's.
 */
export function xdsSources(xds: D2XdsPort): D2SourceFactory {
  return ({ basePath, onMalformed, logger }) => ({
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
  });
}
