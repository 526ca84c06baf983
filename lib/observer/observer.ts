/**
 * The D2 observer (issue 25): one ZooKeeper view of the D2 tree served over ADS as rest.li's `indis`
 * resource types, so many clients read discovery data from a tier of observers instead of holding a
 * ZooKeeper session each. Replicas are independent (no leader): each holds its own view.
 *
 * Composition only: the cache encodes (`resource-cache.ts`), the subscription table starts and
 * lingers watches (`subscriptions.ts`, `resource-watches.ts`), streams speak ADS (SotW `ads-stream.ts`,
 * incremental `delta-ads-stream.ts`,
 * `ads-server.ts`), the admin HTTP shows health, readiness, metrics and CSDS (`admin-server.ts`,
 * `client-status.ts`; CSDS also over gRPC on the ADS port, behind the admin token).
 *
 * Readiness: the ZooKeeper session is connected and the base path was read once (an observer whose
 * session never came up must not take clients from one that works).
 *
 * Concurrency: event loop only. Fixed after `start`: the parts. `disconnectedSince`, `baseRead`,
 * `lastReadAt` and `unservable` change in session events and watch deliveries.
 */
import type * as grpc from '@grpc/grpc-js';
import { adminTokenDigest, bearerMatches, isLoopbackHost } from '../admin-http';
import type { Lifecycle } from '../lifecycle';
import { createLogger, type Logger } from '../logging';
import { buildClientStatusResponse, clientStatusJson, type ClientStatusResponse } from '../xds';
import type { ConnectionState, SessionEvent, ZkReader, ZkWatcher } from '../zk';
import { ObserverAdminServer, type AdminSource } from './admin-server';
import { ObserverAdsServer, type ObserverTls } from './ads-server';
import { servedDump, streamDump } from './client-status';
import { assertIsError, ObserverError } from './errors';
import { ObserverMetrics } from './metrics';
import { ResourceCache } from './resource-cache';
import { watchResource } from './resource-watches';
import { Subscriptions } from './subscriptions';

/** The ZooKeeper session as the observer uses it (a `ZkSession` is one). */
export interface ObserverZk extends ZkWatcher, Pick<ZkReader, 'exists'> {
  /** The connection state now. */
  readonly state: ConnectionState;
  /** Subscribes to session events; returns the unsubscribe function. */
  on(listener: (event: SessionEvent) => void): () => void;
}

/** Options of {@link D2Observer.start}. */
export interface D2ObserverOptions {
  /** The session the view is read through; the caller opens and closes it. */
  readonly zk: ObserverZk;
  /** The D2 base path; `/d2` by default. */
  readonly basePath?: string;
  /** The ADS endpoint: 127.0.0.1 and an OS-picked port by default; TLS with `tls`. */
  readonly grpc?: { readonly host?: string; readonly port?: number; readonly tls?: ObserverTls | undefined };
  /** The admin HTTP; none when absent. Non-loopback hosts need a token. */
  readonly admin?: { readonly host: string; readonly port: number; readonly token?: string | undefined };
  /** How long a resource's watch outlives its last subscriber, ms; 10 s by default. */
  readonly lingerMs?: number;
  /** Default: a `d2-observer` logger. */
  readonly logger?: Logger;
}

/** What `/status` shows. */
export interface ObserverStatus {
  readonly ready: boolean;
  readonly zkState: ConnectionState;
  readonly streams: number;
  readonly subscriptions: number;
  readonly watchedResources: number;
  /** Seconds the ZooKeeper session has been disconnected, 0 while connected: how far the view may lag. */
  readonly zkDisconnectedSeconds: number;
}

const DEFAULT_LINGER_MS = 10_000;

/**
 * Who may read CSDS on the ADS port (the admin rules, `admin-access.ts`): with an admin token, a call
 * carrying it as `authorization: Bearer <token>`; without one, any call while ADS listens on loopback
 * only (as the admin HTTP would), none off loopback (ADS is open to every client there).
 */
function csdsGuard(options: D2ObserverOptions): (metadata: grpc.Metadata) => boolean {
  const token = options.admin?.token;
  if (token === undefined) {
    const loopback = isLoopbackHost(options.grpc?.host ?? '127.0.0.1');
    return () => loopback;
  }
  const digest = adminTokenDigest(token);
  return (metadata) => {
    const values = metadata.get('authorization');
    return values.length === 1 && typeof values[0] === 'string' && bearerMatches(values[0], digest);
  };
}

/** A running observer; {@link D2Observer.start} makes one, `close()` ends it (not the session). */
export class D2Observer {
  /** `running` after start, then `closing`, `closed`. */
  lifecycle: Lifecycle = 'running';
  /** The metrics `/metrics` renders. */
  readonly metrics: ObserverMetrics;
  private readonly log: Logger;
  private readonly cache: ResourceCache;
  private readonly subscriptions: Subscriptions;
  private ads: ObserverAdsServer | undefined;
  private admin: ObserverAdminServer | undefined;
  private readonly unlisten: () => void;
  private disconnectedSince: number | undefined;
  private lastReadAt: number | undefined;
  private baseRead = false;
  /** Paths of nodes whose last read was not servable and was logged (cleared when served again or gone). */
  private readonly unservable = new Set<string>();

  private constructor(private readonly options: D2ObserverOptions) {
    const log = (this.log = options.logger ?? createLogger('d2-observer'));
    this.metrics = new ObserverMetrics({
      streams: () => this.ads?.activeStreams ?? 0,
      deltaStreams: () => this.ads?.activeStreamsOf('delta') ?? 0,
      subscriptions: () => this.subscriptions.subscriptions,
      watchedResources: () => this.subscriptions.watched,
      zkConnected: () => options.zk.state === 'connected',
      secondsSinceLastRead: () => (this.lastReadAt === undefined ? 0 : (Date.now() - this.lastReadAt) / 1000),
      secondsDisconnected: () => this.secondsDisconnected(),
    });
    const malformed = (error: ObserverError): void => {
      this.metrics.malformedNode();
      // Every bad write is counted, but a node is logged once while it stays broken: a writer that
      // keeps writing garbage (or every re-read after a resubscription) must not flood the log.
      const path = error.path ?? error.message;
      if (this.unservable.has(path)) return;
      this.unservable.add(path);
      log.warn({ path: error.path, err: error }, 'znode not served, last good version kept (logged once until it is fixed)');
    };
    const servable = (path: string): void => void this.unservable.delete(path);
    this.cache = new ResourceCache({ encoded: (typeUrl) => this.metrics.encoded(typeUrl), malformed, servable });
    const hooks = { malformed, servable, read: () => (this.lastReadAt = Date.now()) };
    this.subscriptions = new Subscriptions({
      cache: this.cache,
      basePath: options.basePath ?? '/d2',
      lingerMs: options.lingerMs ?? DEFAULT_LINGER_MS,
      watch: (key, typeUrl, target) => watchResource(options.zk, this.cache, hooks, key, typeUrl, target),
    });
    if (options.zk.state !== 'connected') this.disconnectedSince = Date.now();
    this.unlisten = options.zk.on((event) => this.onSessionEvent(event));
  }

  /**
   * Starts serving: ADS at once (streams wait for their first reads), the admin HTTP, and the
   * first read of the base path (readiness).
   * @throws ObserverError `config` when a port cannot be bound or the admin access rules refuse.
   */
  static async start(options: D2ObserverOptions): Promise<D2Observer> {
    const observer = new D2Observer(options);
    try {
      observer.ads = await ObserverAdsServer.start({
        ...options.grpc,
        cache: observer.cache,
        subscriptions: observer.subscriptions,
        csds: { clients: () => observer.csdsClients(), authorize: csdsGuard(options) },
        hooks: {
          pushed: (typeUrl, n) => observer.metrics.pushed(typeUrl, n),
          nacked: (info) => {
            observer.metrics.nacked(info.typeUrl);
            observer.log.warn(info, 'client NACKed a response; still serving');
          },
        },
        responseEncoded: (typeUrl) => observer.metrics.responseEncoded(typeUrl),
      });
      if (options.admin) observer.admin = await ObserverAdminServer.start({ ...options.admin, source: observer.adminSource() });
    } catch (err) {
      await observer.close();
      throw err;
    }
    void observer.readBase();
    return observer;
  }

  /** The bound ADS port. */
  get grpcPort(): number {
    return this.ads?.port ?? 0;
  }

  /** The bound admin port (undefined without an admin server). */
  get adminPort(): number | undefined {
    return this.admin?.port;
  }

  /** True once the session is connected and the base path was read. */
  get ready(): boolean {
    return this.baseRead && this.options.zk.state === 'connected' && this.lifecycle === 'running';
  }

  /** Counts for `/status` and logs. */
  status(): ObserverStatus {
    return {
      ready: this.ready,
      zkState: this.options.zk.state,
      streams: this.ads?.activeStreams ?? 0,
      subscriptions: this.subscriptions.subscriptions,
      watchedResources: this.subscriptions.watched,
      zkDisconnectedSeconds: this.secondsDisconnected(),
    };
  }

  private secondsDisconnected(): number {
    return this.disconnectedSince === undefined ? 0 : (Date.now() - this.disconnectedSince) / 1000;
  }

  /** Ends every stream (UNAVAILABLE), stops the watches and the admin HTTP. The session stays open. Idempotent. */
  async close(): Promise<void> {
    if (this.lifecycle !== 'running') return;
    this.lifecycle = 'closing';
    this.unlisten();
    await this.ads?.close();
    this.subscriptions.close();
    await this.admin?.close();
    this.lifecycle = 'closed';
  }

  /**
   * What the observer serves and what each connected client ACKed or NACKed, as CSDS reports it
   * (`client-status.ts`): on `/config_dump` and the gRPC `ClientStatusDiscoveryService` of the ADS port.
   */
  clientStatus(): ClientStatusResponse {
    return buildClientStatusResponse([...this.csdsClients()].map((client) => client.dump()));
  }

  private csdsClients(): Array<{ dump(): ReturnType<typeof servedDump> }> {
    const streams = [...(this.ads?.openStreams() ?? [])].map((s) => ({ dump: () => streamDump({ id: s.id, nodeId: s.nodeId, types: s.typeStatuses() }) }));
    return [{ dump: () => servedDump(this.cache.settled()) }, ...streams];
  }

  private adminSource(): AdminSource {
    return {
      healthy: () => this.lifecycle === 'running',
      ready: () => this.ready,
      status: () => this.status(),
      configDump: () => clientStatusJson(this.clientStatus()),
      metrics: () => this.metrics.render(),
    };
  }

  private onSessionEvent(event: SessionEvent): void {
    if (event === 'connected' || event === 'reset') {
      this.disconnectedSince = undefined;
      if (!this.baseRead) void this.readBase();
    } else this.disconnectedSince ??= Date.now();
  }

  private async readBase(): Promise<void> {
    const base = this.options.basePath ?? '/d2';
    try {
      const stat = await this.options.zk.exists(base);
      this.lastReadAt = Date.now();
      if (!this.baseRead) this.log.info({ basePath: base, exists: stat !== undefined }, 'base path read; ready');
      this.baseRead = true;
    } catch (err) {
      assertIsError(err);
      // Retried on the next `connected` / `reset`.
      this.log.warn({ err, basePath: base }, 'base path read failed');
    }
  }
}
