/**
 * `XdsClient`: the public entry point (grpc-go `xdsclient.go`). It parses the bootstrap, routes each
 * watch to its authority, and shares one channel per server across authorities through a ref-counted
 * pool (key: URI + creds + known features, A47 "Server Channel Map").
 *
 * Routing (gRFC A47; grpc-go `getAuthorityForResource`): an `xdstp://<authority>/...` name goes to
 * `authorities[<authority>]` of the bootstrap, the EMPTY authority of `xdstp:///...` included, and is
 * an error for its watcher when the bootstrap has no such entry; any other (old-style) name goes to
 * the top-level authority, served by the top-level `xds_servers`. The top-level authority and an
 * authority named "" are two different authorities (grpc-go `topLevelAuthority` vs `authorities[""]`).
 * Names are normalized first (`resource-name.ts`: an `xdstp:` name's context parameters sorted, A47).
 *
 * Concurrency: event-loop only. `bootstrap`, `options` and `pool` are fixed after construction;
 * `authorities` grows on demand until `close()`.
 */
import { EventEmitter } from 'node:events';
import { Authority, type AuthorityDump, type ChannelLease, type ChannelPool, type ServerSwitchEvent } from './authority';
import { authorityField, CLIENT_FEATURES, loadBootstrap, nodeMessage, serversFor, type Bootstrap, type BootstrapSource, type XdsServerConfig } from './bootstrap';
import { XdsChannel, type XdsChannelEventHandler, type XdsTransportFactory } from './channel';
import { XdsError } from './errors';
import { LrsClient, createLoadStore, type LoadStore } from './lrs-client';
import type { NodeMessage } from './protos';
import { canonicalResourceName } from './resource-name';
import { createWatcherEntry, type AnyResourceType } from './resource-state';
import { CDS_TYPE_URL, RESOURCE_TYPES, kindOfTypeUrl, messageNameOf, type KindOfTypeUrl, type ResourceKind, type ResourceValue, type XdsTypeUrl } from './resource-types';
import type { XdsWatcher } from './watcher';
import type { Lifecycle } from '../lifecycle';

/** Options of {@link createXdsClient}. */
export interface XdsClientOptions {
  /** A parsed bootstrap, or where to read one (default: `GRPC_XDS_BOOTSTRAP` / `GRPC_XDS_BOOTSTRAP_CONFIG`). */
  readonly bootstrap?: Bootstrap | BootstrapSource;
  /** Does-not-exist timeout; default the bootstrap's (15 s). */
  readonly watchExpiryMs?: number;
  /** Retry cap towards higher-priority servers while a lower one serves; default the bootstrap's (5 s). */
  readonly fallbackProbeCapMs?: number;
  /**
   * Whether a failure of the active server falls back even when every watched resource is cached,
   * when the bootstrap's `failout.fallbackWhenCached` does not say (it wins when given); default false
   * (gRFC A71). D2 discovery turns it on: its servers are observers, replicas of one view.
   */
  readonly fallbackWhenCached?: boolean;
  /**
   * Resource types by type URL; default every type of `resource-types/` (`RESOURCE_TYPES`).
   * @internal A test seam: the types are not on the package's face.
   */
  readonly resourceTypes?: ReadonlyMap<string, AnyResourceType>;
  /**
   * Transport below each channel (tests); default grpc-js.
   * @internal A test seam: the transport types are not on the package's face.
   */
  readonly transportFactory?: XdsTransportFactory;
  /**
   * CSDS `client_scope` (gRFC A71): the data-plane target this client serves, or "#server". One
   * client per target keeps a fallback for one target from degrading the others. Default "#server".
   */
  readonly clientScope?: string;
}

/** CSDS-like dump of a client. */
export interface XdsClientDump {
  /** The client's CSDS `client_scope` (gRFC A71); "#server" by default. */
  readonly clientScope: string;
  /** The node this client sends its servers (CSDS `ClientConfig.node`, gRFC A40). */
  readonly node: NodeMessage;
  /** One entry per authority this client has watched so far. */
  readonly authorities: readonly AuthorityDump[];
}

/** The load store of one cluster, reported over LRS to the server that delivered its CDS resource. */
export interface LoadReporter extends Omit<LoadStore, 'takeSnapshot'> {
  /** The server receiving the reports now (undefined while the cluster is unknown or has no lrs_server). */
  readonly serverUri: string | undefined;
  /** Stops reporting (counts not yet reported are dropped). */
  close(): void;
}

/** The xDS client. Create with {@link createXdsClient}. */
export interface XdsClient {
  /** Watches a resource by kind; returns the cancel function. */
  watch<K extends ResourceKind>(kind: K, name: string, watcher: XdsWatcher<ResourceValue<K>>): () => void;
  /** Watches a resource by type URL; returns the cancel function. */
  watch<U extends XdsTypeUrl>(typeUrl: U, name: string, watcher: XdsWatcher<ResourceValue<KindOfTypeUrl<U>>>): () => void;
  /** Watches a resource by message name ('envoy.config.cluster.v3.Cluster'); returns the cancel function. */
  watch(messageName: string, name: string, watcher: XdsWatcher<unknown>): () => void;
  /**
   * Starts counting the load of a cluster; reports go over LRS to the server that delivered the
   * cluster's CDS resource (when it has `lrs_server: self`) and move when that server changes.
   */
  reportLoad(clusterName: string, options?: { edsServiceName?: string }): LoadReporter;
  /** Per authority: active server, each server's state, each resource's status, version and source. */
  dump(): XdsClientDump;
  /** An authority switched server (fallback or return). */
  on(event: 'serverSwitch', listener: (event: ServerSwitchEvent) => void): this;
  /** Removes a listener added with {@link XdsClient.on}. */
  off(event: 'serverSwitch', listener: (event: ServerSwitchEvent) => void): this;
  /** Closes every authority, channel and timer. Idempotent. */
  close(): void;
}

/** Creates an {@link XdsClient}; throws `XdsError` 'bootstrap' on a bad bootstrap. */
export function createXdsClient(options: XdsClientOptions = {}): XdsClient {
  return new XdsClientImpl(options);
}

/**
 * The authority of a resource name (gRFC A47): `<authority>` of `xdstp://<authority>/...` ('' for
 * `xdstp:///...`), or undefined for an old-style name, which the top-level `xds_servers` serve.
 */
export function authorityOf(resourceName: string): string | undefined {
  if (!resourceName.startsWith('xdstp://')) return undefined;
  const rest = resourceName.slice('xdstp://'.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash);
}

/** A type URL from a URL, a kind ('cluster') or a message name ('envoy.config.cluster.v3.Cluster'). */
function resolveTypeUrl(type: string): string | undefined {
  if (kindOfTypeUrl(type)) return type;
  const byKind = (RESOURCE_TYPES as Record<string, AnyResourceType>)[type]?.typeUrl;
  return byKind ?? Object.values(RESOURCE_TYPES).find((t) => messageNameOf(t.typeUrl) === type)?.typeUrl;
}

class XdsClientImpl extends EventEmitter implements XdsClient {
  private readonly bootstrap: Bootstrap;
  private readonly resourceTypes: ReadonlyMap<string, AnyResourceType>;
  private readonly abort = new AbortController();
  private readonly pool: SharedChannelPool;
  /** By {@link authorityOf}: undefined is the top-level authority, '' the bootstrap's `authorities[""]`. */
  private readonly authorities = new Map<string | undefined, Authority>();
  private readonly lrsClients = new Map<string, LrsClient>();
  private lifecycle: Lifecycle = 'running';

  constructor(private readonly options: XdsClientOptions) {
    super();
    const source = options.bootstrap;
    this.bootstrap = source && 'xdsServers' in source ? source : loadBootstrap(source);
    this.resourceTypes =
      options.resourceTypes ?? new Map<string, AnyResourceType>(Object.values(RESOURCE_TYPES).map((t) => [t.typeUrl, t]));
    this.pool = new SharedChannelPool({
      node: nodeMessage(this.bootstrap.node),
      resourceTypes: this.resourceTypes,
      signal: this.abort.signal,
      watchExpiryMs: options.watchExpiryMs ?? this.bootstrap.failout.resourceDoesNotExistTimeoutMs,
      transportFactory: options.transportFactory,
    });
  }

  watch(type: string, watchedName: string, watcher: XdsWatcher<never>): () => void {
    if (this.lifecycle === 'closed') throw new XdsError('closed', 'XdsClient is closed');
    const name = canonicalResourceName(watchedName);
    const typeUrl = resolveTypeUrl(type);
    if (!typeUrl || !this.resourceTypes.has(typeUrl)) {
      return this.failWatch(watcher, new XdsError('resourceTypeUnsupported', `unsupported resource type ${type}`, { typeUrl: type }));
    }
    const authorityName = authorityOf(name);
    let authority = this.authorities.get(authorityName);
    if (!authority) {
      // grpc-go: an xdstp name whose authority is not in the bootstrap fails its watch, even when the
      // authority is "": the top-level servers serve old-style names only (gRFC A47).
      if (authorityName !== undefined && !Object.hasOwn(this.bootstrap.authorities, authorityName)) {
        const error = new XdsError('bootstrap', `authority "${authorityName}" of ${name} is not in the bootstrap`, {
          field: authorityField(authorityName),
          resourceName: name,
        });
        return this.failWatch(watcher, error);
      }
      authority = this.createAuthority(authorityName);
      this.authorities.set(authorityName, authority);
    }
    return authority.watch(typeUrl, name, watcher as XdsWatcher);
  }

  reportLoad(clusterName: string, options: { edsServiceName?: string } = {}): LoadReporter {
    const store = createLoadStore(clusterName, options.edsServiceName ?? '');
    let target: LrsClient | undefined;
    const moveTo = (server: XdsServerConfig | undefined): void => {
      if (this.lifecycle === 'closed' || (target !== undefined && server !== undefined && this.lrsClients.get(server.key) === target)) return;
      if (target) this.releaseLrs(target, store);
      target = server ? this.acquireLrs(server, store) : undefined;
    };
    const authority = (): Authority | undefined => this.authorities.get(authorityOf(clusterName));
    const cached = canonicalResourceName(clusterName);
    const cancel = (this as XdsClient).watch('cluster', clusterName, {
      onUpdate: (cluster, done) => {
        moveTo(cluster.lrs === 'self' ? authority()?.sourceServer(CDS_TYPE_URL, cached) : undefined);
        done();
      },
      onResourceDoesNotExist: (done) => {
        moveTo(undefined);
        done();
      },
      onError: (_error, _info, done) => done(),
    });
    return {
      clusterName: store.clusterName,
      edsServiceName: store.edsServiceName,
      callStarted: (locality) => store.callStarted(locality),
      callFinished: (locality, ok) => store.callFinished(locality, ok),
      callDropped: (category) => store.callDropped(category),
      get serverUri() {
        return target?.serverUri;
      },
      close: () => {
        cancel();
        moveTo(undefined);
      },
    };
  }

  dump(): XdsClientDump {
    return {
      clientScope: this.options.clientScope ?? '#server',
      node: nodeMessage(this.bootstrap.node),
      authorities: [...this.authorities.values()].map((a) => a.dump()),
    };
  }

  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const authority of this.authorities.values()) authority.close();
    this.authorities.clear();
    this.abort.abort();
    this.lrsClients.clear();
    this.removeAllListeners();
  }

  private acquireLrs(server: XdsServerConfig, store: LoadStore): LrsClient {
    let lrs = this.lrsClients.get(server.key);
    if (!lrs) {
      const node = nodeMessage(this.bootstrap.node, [...CLIENT_FEATURES, 'envoy.lrs.supports_send_all_clusters']);
      lrs = new LrsClient({ server, node, signal: this.abort.signal });
      this.lrsClients.set(server.key, lrs);
    }
    lrs.addStore(store);
    return lrs;
  }

  private releaseLrs(lrs: LrsClient, store: LoadStore): void {
    lrs.removeStore(store);
    if (lrs.size > 0) return;
    lrs.close();
    for (const [key, value] of this.lrsClients) if (value === lrs) this.lrsClients.delete(key);
  }

  /** `name` undefined: the top-level authority. */
  private createAuthority(name: string | undefined): Authority {
    return new Authority({
      name: name ?? '',
      topLevel: name === undefined,
      servers: serversFor(this.bootstrap, name),
      pool: this.pool,
      resourceTypes: this.resourceTypes,
      fallbackProbeCapMs: this.options.fallbackProbeCapMs ?? this.bootstrap.failout.fallbackProbeCapMs,
      fallbackWhenCached: this.bootstrap.failout.fallbackWhenCached ?? this.options.fallbackWhenCached ?? false,
      onServerSwitch: (event) => this.emit('serverSwitch', event),
    });
  }

  private failWatch(watcher: XdsWatcher<never>, error: XdsError): () => void {
    const entry = createWatcherEntry(watcher as XdsWatcher);
    entry.enqueue((w, done) => w.onError(error, { ambient: false }, done));
    return () => entry.cancel();
  }
}

interface PoolOptions {
  readonly node: NodeMessage;
  readonly resourceTypes: ReadonlyMap<string, AnyResourceType>;
  readonly signal: AbortSignal;
  readonly watchExpiryMs: number;
  readonly transportFactory: XdsTransportFactory | undefined;
}

interface SharedChannel {
  readonly channel: XdsChannel;
  readonly leases: Set<PoolLease>;
  /** Reference count of each subscribed name across leases, by type URL. */
  readonly subscriptions: Map<string, Map<string, number>>;
}

/** One channel per server key, released when its last lease goes (grpc-go `getChannelForADS`). */
class SharedChannelPool implements ChannelPool {
  private readonly channels = new Map<string, SharedChannel>();

  constructor(private readonly options: PoolOptions) {}

  acquire(server: XdsServerConfig, handler: XdsChannelEventHandler, signal: AbortSignal): ChannelLease {
    let shared = this.channels.get(server.key);
    if (!shared) {
      const leases = new Set<PoolLease>();
      const fanOut: XdsChannelEventHandler = {
        onConnectivityFailure: (error) => [...leases].forEach((l) => l.handler.onConnectivityFailure(error)),
        onResponse: (event) => [...leases].forEach((l) => l.handler.onResponse(event)),
        onResourceDoesNotExist: (t, n) => [...leases].forEach((l) => l.handler.onResourceDoesNotExist(t, n)),
        isResourceCached: (t, n) => [...leases].some((l) => l.handler.isResourceCached(t, n)),
      };
      const channel = new XdsChannel({
        server,
        node: this.options.node,
        resourceTypes: this.options.resourceTypes,
        handler: fanOut,
        signal: this.options.signal,
        watchExpiryMs: this.options.watchExpiryMs,
        transportFactory: this.options.transportFactory,
      });
      shared = { channel, leases, subscriptions: new Map() };
      this.channels.set(server.key, shared);
    }
    const lease = new PoolLease(shared, handler, signal, () => this.onLeaseReleased(server.key, shared));
    shared.leases.add(lease);
    if (signal.aborted) lease.release();
    return lease;
  }

  private onLeaseReleased(key: string, shared: SharedChannel): void {
    if (shared.leases.size > 0) {
      shared.channel.setRetryCapMs(Math.min(...[...shared.leases].map((l) => l.capMs)));
      return;
    }
    shared.channel.close();
    if (this.channels.get(key) === shared) this.channels.delete(key);
  }
}

/** One authority's hold on a shared channel; tracks its own subscriptions so release can undo them. */
class PoolLease implements ChannelLease {
  private readonly own = new Map<string, Set<string>>();
  private released = false;
  private readonly onAbort = (): void => this.release();
  capMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly shared: SharedChannel,
    readonly handler: XdsChannelEventHandler,
    private readonly signal: AbortSignal,
    private readonly onRelease: () => void,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  get serverUri(): string {
    return this.shared.channel.serverUri;
  }
  get state(): XdsChannel['state'] {
    return this.released ? 'closed' : this.shared.channel.state;
  }
  get lastError(): XdsError | undefined {
    return this.shared.channel.lastError;
  }
  version(typeUrl: string): string {
    return this.shared.channel.version(typeUrl);
  }

  subscribe(typeUrl: string, name: string): void {
    if (this.released) return;
    let names = this.own.get(typeUrl);
    if (!names) this.own.set(typeUrl, (names = new Set()));
    if (names.has(name)) return;
    names.add(name);
    let counts = this.shared.subscriptions.get(typeUrl);
    if (!counts) this.shared.subscriptions.set(typeUrl, (counts = new Map()));
    const count = (counts.get(name) ?? 0) + 1;
    counts.set(name, count);
    if (count === 1) this.shared.channel.subscribe(typeUrl, name);
  }

  unsubscribe(typeUrl: string, name: string): void {
    if (this.released || !this.own.get(typeUrl)?.delete(name)) return;
    const counts = this.shared.subscriptions.get(typeUrl);
    const count = (counts?.get(name) ?? 1) - 1;
    if (count > 0) counts?.set(name, count);
    else {
      counts?.delete(name);
      this.shared.channel.unsubscribe(typeUrl, name);
    }
  }

  heldFromOtherServer(typeUrl: string, name: string, version: string | undefined): void {
    if (!this.released && this.own.get(typeUrl)?.has(name)) this.shared.channel.heldFromOtherServer(typeUrl, name, version);
  }

  awaitFromServer(typeUrl: string, name: string): void {
    if (!this.released && this.own.get(typeUrl)?.has(name)) this.shared.channel.awaitFromServer(typeUrl, name);
  }

  setRetryCapMs(capMs: number): void {
    if (this.released) return;
    this.capMs = capMs;
    this.shared.channel.setRetryCapMs(Math.min(...[...this.shared.leases].map((l) => l.capMs)));
  }

  release(): void {
    if (this.released) return;
    for (const [typeUrl, names] of this.own) for (const name of [...names]) this.unsubscribe(typeUrl, name);
    this.released = true;
    this.signal.removeEventListener('abort', this.onAbort);
    this.shared.leases.delete(this);
    this.onRelease();
  }
}
