/**
 * Follows each service's xDS chain as gRPC's xDS resolver does (gRFC A27/A28): LDS → RDS (or the
 * listener's inline route) → the virtual host for the service name → the default route's cluster(s)
 * → CDS → EDS of the cluster's `edsServiceName`. Watches move when a link of the chain changes; CDS
 * and EDS watches are shared by the services that reference a cluster (reference-counted).
 *
 * What it knows is kept as {@link Known} values: connectivity errors and NACKs (ambient or not) never
 * change them, so ZooKeeper keeps the last good data; does-not-exist is recorded with its time, and
 * the bridge removes data only after the grace period.
 *
 * A route that moves a service to another cluster is applied whole (gRFC A74, "xDS config tears"):
 * the service keeps naming the cluster of its last applied route ({@link ServiceView.served}), whose
 * endpoints stay, until the new route's primary cluster has its CDS and EDS. Otherwise D2 clients
 * would be sent to a cluster with no node and no hosts yet (or ever, for a route to a cluster the
 * control plane does not have), and the old cluster's hosts would be withdrawn under them.
 *
 * Concurrency: watcher callbacks run on the event loop, one at a time per watcher; every state change
 * happens there, and each is announced through `onChange` with the entity keys it affects.
 */
import type { ClusterLoadAssignment, Cluster, Listener, RouteConfiguration, XdsClient, XdsError, XdsWatcher } from '../xds';
import type { ServiceConfig } from './config';
import { assertIsError } from './errors';
import { d2ClusterName, usableEndpoints } from './mapping';
import type { ClusterResolution, EntityKey, Known, ServiceRoute } from './model';
import { selectServiceRoute } from './route-selection';
import type { Lifecycle } from '../lifecycle';

/** Options of {@link XdsResolver}. */
export interface XdsResolverOptions {
  readonly client: XdsClient;
  readonly services: readonly ServiceConfig[];
  /** Called after each state change with the entities whose target may have changed. */
  readonly onChange: (keys: readonly EntityKey[]) => void;
  /** Called for every error a watcher hears (for logs and `/status`). */
  readonly onError?: (resource: string, error: XdsError, ambient: boolean) => void;
}

interface ServiceEntry {
  readonly config: ServiceConfig;
  route: Known<ServiceRoute>;
  /** xDS clusters this service references now: its route's and its served route's (kept through does-not-exist, for the grace period). */
  clusterRefs: readonly string[];
  /** The route the service node names: the last one whose primary cluster was resolved (see the file header). */
  served: ServiceRoute | undefined;
  rds: { name: string; cancel: () => void } | undefined;
  /** The last route configuration heard (RDS or inline); cleared when the RDS resource does not exist. */
  routeConfig: RouteConfiguration | undefined;
  cancelLds: (() => void) | undefined;
  /** The listener was found not to exist (and has not come back): route updates are kept, not applied. */
  listenerMissing: boolean;
  lastError: string | undefined;
}

interface ClusterEntry extends ClusterResolution {
  readonly xdsName: string;
  readonly d2Name: string;
  readonly refs: Set<string>;
  cds: ClusterResolution['cds'];
  eds: ClusterResolution['eds'];
  edsWatch: { name: string; cancel: () => void } | undefined;
  cancelCds: (() => void) | undefined;
}

/** A read-only view of one service for the bridge's targets and `/status`. */
export interface ServiceView {
  readonly config: ServiceConfig;
  /** The latest route heard (or that it does not exist). */
  readonly route: Known<ServiceRoute>;
  /**
   * The route the service node should name: the latest resolved one once its primary cluster's CDS
   * and EDS are resolved (the first one at once), until then the last such route (gRFC A74).
   */
  readonly served: ServiceRoute | undefined;
  readonly lastError: string | undefined;
}

/** A read-only view of one cluster. */
export interface ClusterView extends ClusterResolution {
  readonly xdsName: string;
  readonly d2Name: string;
  /** Services whose route references the cluster now. */
  readonly services: readonly string[];
}

function watcherOf<T>(onUpdate: (value: T) => void, onMissing: () => void, onError: (e: XdsError, ambient: boolean) => void): XdsWatcher<T> {
  return {
    onUpdate: (value, done) => {
      onUpdate(value);
      done();
    },
    onResourceDoesNotExist: (done) => {
      onMissing();
      done();
    },
    onError: (error, info, done) => {
      onError(error, info.ambient);
      done();
    },
  };
}

/** The xDS side of the bridge. */
export class XdsResolver {
  private readonly services = new Map<string, ServiceEntry>();
  private readonly clusters = new Map<string, ClusterEntry>();
  /** `idle` until {@link start}, `running` while watching, `closed` after {@link close}. */
  private lifecycle: Lifecycle = 'idle';

  constructor(private readonly options: XdsResolverOptions) {
    for (const config of options.services) {
      this.services.set(config.name, { config, route: { state: 'pending' }, clusterRefs: [], served: undefined, rds: undefined, routeConfig: undefined, cancelLds: undefined, listenerMissing: false, lastError: undefined });
    }
  }

  /** Starts the LDS watches; does nothing unless `idle`. */
  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    for (const entry of this.services.values()) {
      entry.cancelLds = this.options.client.watch(
        'listener',
        entry.config.listener,
        watcherOf<Listener>(
          (l) => this.onListener(entry, l),
          () => {
            entry.listenerMissing = true;
            this.setRoute(entry, { state: 'doesNotExist', since: Date.now() });
          },
          (e, ambient) => this.onWatchError(entry, `listener ${entry.config.listener}`, e, ambient),
        ),
      );
    }
  }

  /** Cancels every watch. */
  close(): void {
    this.lifecycle = 'closed';
    for (const entry of this.services.values()) {
      entry.cancelLds?.();
      entry.rds?.cancel();
    }
    for (const c of this.clusters.values()) {
      c.cancelCds?.();
      c.edsWatch?.cancel();
    }
    this.clusters.clear();
  }

  /** Every followed service. */
  serviceViews(): ServiceView[] {
    return [...this.services.values()].map((s) => ({ config: s.config, route: s.route, served: s.served, lastError: s.lastError }));
  }

  /** The service named `name`. */
  service(name: string): ServiceView | undefined {
    const s = this.services.get(name);
    return s && { config: s.config, route: s.route, served: s.served, lastError: s.lastError };
  }

  /** Every cluster some service references now. */
  clusterViews(): ClusterView[] {
    return [...this.clusters.values()].map((c) => this.viewOf(c));
  }

  /** The referenced cluster whose D2 name is `d2Name` (the first, should two xDS names map to it). */
  clusterByD2Name(d2Name: string): ClusterView | undefined {
    for (const c of this.clusters.values()) if (c.d2Name === d2Name) return this.viewOf(c);
    return undefined;
  }

  /** Every entity the bridge should hold now: the full-sync set. */
  entityKeys(): EntityKey[] {
    const keys: EntityKey[] = [];
    for (const name of this.services.keys()) keys.push(`service:${name}`);
    for (const c of this.clusters.values()) keys.push(`cluster:${c.d2Name}`, `uris:${c.d2Name}`);
    return keys;
  }

  /** True when no service is still waiting for its first answer (a warm cache). */
  isWarm(): boolean {
    for (const s of this.services.values()) {
      if (s.route.state === 'pending') return false;
      if (s.route.state === 'resolved' && s.route.value.clusters.some((c) => this.clusters.get(c.name)?.eds.state === 'pending')) return false;
    }
    return true;
  }

  private viewOf(c: ClusterEntry): ClusterView {
    return { xdsName: c.xdsName, d2Name: c.d2Name, cds: c.cds, eds: c.eds, services: [...c.refs] };
  }

  private onWatchError(entry: ServiceEntry | undefined, resource: string, error: XdsError, ambient: boolean): void {
    if (entry) entry.lastError = `${resource}: ${error.message}`;
    this.options.onError?.(resource, error, ambient);
  }

  private onListener(entry: ServiceEntry, listener: Listener): void {
    if (this.lifecycle === 'closed') return;
    entry.listenerMissing = false;
    if (listener.routeConfig.source === 'inline') {
      entry.rds?.cancel();
      entry.rds = undefined;
      this.onRouteConfiguration(entry, listener.routeConfig.routeConfiguration);
      return;
    }
    const name = listener.routeConfig.routeConfigName;
    if (entry.rds?.name === name) {
      // Same RDS name: the xDS client will not repeat an unchanged route, so a listener back from
      // does-not-exist re-applies the one it had.
      if (entry.route.state === 'doesNotExist' && entry.routeConfig) this.onRouteConfiguration(entry, entry.routeConfig);
      return;
    }
    entry.rds?.cancel();
    const cancel = this.options.client.watch(
      'routeConfiguration',
      name,
      watcherOf<RouteConfiguration>(
        (r) => {
          // Without its listener a service has no route (gRPC drops the route with the listener); the
          // watch stays so that a listener back with the same RDS name finds this route again.
          if (entry.listenerMissing) entry.routeConfig = r;
          else this.onRouteConfiguration(entry, r);
        },
        () => {
          entry.routeConfig = undefined;
          this.setRoute(entry, { state: 'doesNotExist', since: Date.now() });
        },
        (e, ambient) => this.onWatchError(entry, `routeConfiguration ${name}`, e, ambient),
      ),
    );
    entry.rds = { name, cancel };
  }

  private onRouteConfiguration(entry: ServiceEntry, config: RouteConfiguration): void {
    if (this.lifecycle === 'closed') return;
    entry.routeConfig = config;
    let route: ServiceRoute | undefined;
    try {
      route = selectServiceRoute(config, entry.config.name, d2ClusterName);
      // Every cluster of the route needs a D2 name, not just the primary: fail here, not mid-update.
      route?.clusters.forEach((c) => d2ClusterName(c.name));
    } catch (err) {
      assertIsError(err);
      entry.lastError = `route ${config.name}: ${err.message}`;
      return;
    }
    if (!route) {
      // gRPC fails RPCs here; the bridge keeps the last good data instead.
      entry.lastError = `route ${config.name}: no virtual host or route for ${entry.config.name}`;
      return;
    }
    this.setRoute(entry, { state: 'resolved', value: route, at: Date.now() });
  }

  /** Records a service's route and moves cluster references accordingly. */
  private setRoute(entry: ServiceEntry, route: Known<ServiceRoute>): void {
    if (this.lifecycle === 'closed') return;
    const changed: EntityKey[] = [`service:${entry.config.name}`];
    if (route.state === 'doesNotExist' && entry.route.state === 'doesNotExist') return;
    entry.route = route;
    changed.push(...this.moveRefs(entry));
    // A does-not-exist service keeps referencing its clusters: the grace period applies to them too.
    if (route.state === 'doesNotExist') for (const name of entry.clusterRefs) changed.push(...this.keysOf(name));
    this.options.onChange(changed);
  }

  /**
   * Watches the clusters of the service's route, applies the route when its primary cluster is
   * resolved (or when the service has none applied yet), and lets go of the clusters neither the route
   * nor the applied one names. Returns the entities that may have changed.
   */
  private moveRefs(entry: ServiceEntry): EntityKey[] {
    const changed: EntityKey[] = [];
    const before = entry.clusterRefs;
    const route = entry.route;
    const wanted = route.state === 'resolved' ? route.value.clusters.map((c) => c.name) : before;
    for (const name of wanted) if (!before.includes(name)) changed.push(...this.addRef(name, entry.config.name));
    if (route.state === 'resolved' && route.value !== entry.served && (entry.served === undefined || this.primaryResolved(route.value))) {
      entry.served = route.value;
      changed.push(`service:${entry.config.name}`);
    }
    const after = [...new Set([...wanted, ...(entry.served?.clusters.map((c) => c.name) ?? [])])];
    entry.clusterRefs = after;
    for (const name of before) if (!after.includes(name)) changed.push(...this.releaseRef(name, entry.config.name));
    return changed;
  }

  /** True once the route's primary cluster has its CDS and EDS (what a D2 client needs to route to it). */
  private primaryResolved(route: ServiceRoute): boolean {
    return route.clusters.some((c) => {
      const cluster = this.clusters.get(c.name);
      return cluster?.d2Name === route.primary && cluster.cds.state === 'resolved' && cluster.eds.state === 'resolved';
    });
  }

  private keysOf(xdsName: string): EntityKey[] {
    const c = this.clusters.get(xdsName);
    return c ? [`cluster:${c.d2Name}`, `uris:${c.d2Name}`] : [];
  }

  private addRef(xdsName: string, service: string): EntityKey[] {
    let c = this.clusters.get(xdsName);
    if (!c) {
      const entry: ClusterEntry = { xdsName, d2Name: d2ClusterName(xdsName), refs: new Set(), cds: { state: 'pending' }, eds: { state: 'pending' }, edsWatch: undefined, cancelCds: undefined };
      this.clusters.set(xdsName, entry);
      entry.cancelCds = this.options.client.watch(
        'cluster',
        xdsName,
        watcherOf<Cluster>(
          (value) => this.onCluster(entry, value),
          () => this.setCluster(entry, { cds: { state: 'doesNotExist', since: Date.now() } }),
          (e, ambient) => this.onWatchError(undefined, `cluster ${xdsName}`, e, ambient),
        ),
      );
      c = entry;
    }
    c.refs.add(service);
    return [`cluster:${c.d2Name}`, `uris:${c.d2Name}`];
  }

  private releaseRef(xdsName: string, service: string): EntityKey[] {
    const c = this.clusters.get(xdsName);
    if (!c) return [];
    c.refs.delete(service);
    if (c.refs.size > 0) return [];
    c.cancelCds?.();
    c.edsWatch?.cancel();
    this.clusters.delete(xdsName);
    return [`cluster:${c.d2Name}`, `uris:${c.d2Name}`];
  }

  private onCluster(entry: ClusterEntry, cluster: Cluster): void {
    if (this.lifecycle === 'closed' || this.clusters.get(entry.xdsName) !== entry) return;
    this.setCluster(entry, { cds: { state: 'resolved', value: { edsServiceName: cluster.edsServiceName, lbPolicy: cluster.lbPolicy }, at: Date.now() } });
    if (entry.edsWatch?.name === cluster.edsServiceName) return;
    entry.edsWatch?.cancel();
    const name = cluster.edsServiceName;
    const cancel = this.options.client.watch(
      'clusterLoadAssignment',
      name,
      watcherOf<ClusterLoadAssignment>(
        (cla) => this.setCluster(entry, { eds: { state: 'resolved', value: usableEndpoints(cla), at: Date.now() } }),
        () => this.setCluster(entry, { eds: { state: 'doesNotExist', since: Date.now() } }),
        (e, ambient) => this.onWatchError(undefined, `clusterLoadAssignment ${name}`, e, ambient),
      ),
    );
    entry.edsWatch = { name, cancel };
  }

  private setCluster(entry: ClusterEntry, change: Partial<ClusterResolution>): void {
    if (this.lifecycle === 'closed' || this.clusters.get(entry.xdsName) !== entry) return;
    if (change.cds?.state === 'doesNotExist' && entry.cds.state === 'doesNotExist') return;
    if (change.eds?.state === 'doesNotExist' && entry.eds.state === 'doesNotExist') return;
    if (change.cds) entry.cds = change.cds;
    if (change.eds) entry.eds = change.eds;
    const changed: EntityKey[] = change.cds ? [`cluster:${entry.d2Name}`, `uris:${entry.d2Name}`] : [`uris:${entry.d2Name}`];
    // A service whose new route waited for this cluster may move to it now (gRFC A74).
    for (const service of [...entry.refs]) {
      const s = this.services.get(service);
      if (s?.route.state === 'resolved' && s.route.value !== s.served) changed.push(...this.moveRefs(s));
    }
    this.options.onChange(changed);
  }
}
