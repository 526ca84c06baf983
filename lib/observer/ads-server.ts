/**
 * The observer's gRPC server: `AggregatedDiscoveryService.StreamAggregatedResources` (SotW, one
 * {@link ObserverAdsStream} per call) and `DeltaAggregatedResources` (incremental, one
 * {@link DeltaAdsStream} per call; rest.li's `XdsClientImpl` speaks only this one) over the shared
 * cache and subscriptions. Binds 127.0.0.1 by default; TLS (optionally mutual) when given PEM material.
 */
import * as grpc from '@grpc/grpc-js';
import type { Lifecycle } from '../lifecycle';
import { addCsdsService, type CsdsClients } from '../xds';
import { loadXdsProtos } from '../xds/envoy-protos';
import { ObserverError } from './errors';
import { ObserverAdsStream, type AdsCall, type AdsProtocol, type ServedStream, type StreamHooks } from './ads-stream';
import { DeltaAdsStream, type DeltaAdsCall } from './delta-ads-stream';
import type { ResourceCache } from './resource-cache';
import { ResponseEncoder } from './response-encoder';
import type { Subscriptions } from './subscriptions';

/** TLS for the ADS endpoint: PEM certificate chain and key; with `ca`, clients must present a certificate it signed. */
export interface ObserverTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca?: Buffer;
}

/** Server credentials for `tls` (insecure without). */
export function serverCredentials(tls: ObserverTls | undefined): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(tls.ca ?? null, [{ cert_chain: tls.cert, private_key: tls.key }], tls.ca !== undefined);
}

/** Options of {@link ObserverAdsServer.start}. */
export interface AdsServerOptions {
  /** Address to bind; 127.0.0.1 by default. */
  readonly host?: string;
  /** Port to bind; 0 (default) lets the OS pick. */
  readonly port?: number;
  /** TLS; plain gRPC without. */
  readonly tls?: ObserverTls | undefined;
  readonly cache: ResourceCache;
  readonly subscriptions: Subscriptions;
  /** What streams report (pushes, NACKs); `closed` is the server's own. */
  readonly hooks: Omit<StreamHooks, 'closed'>;
  /** A response was encoded (once for all the streams that get it). */
  readonly responseEncoded?: (typeUrl: string) => void;
  /**
   * CSDS on the same port (`ClientStatusDiscoveryService`): what it reports and who may read it (ADS
   * stays open to every client, so the guard is per call, not a server-wide interceptor). None without.
   */
  readonly csds?: { readonly clients: CsdsClients; readonly authorize: (metadata: grpc.Metadata) => boolean };
}

/** The observer's ADS endpoint. */
export class ObserverAdsServer {
  /** `running` once bound, then `closing`, `closed`. */
  lifecycle: Lifecycle = 'running';
  private readonly streams = new Set<ServedStream>();
  private streamIds = 0;
  private readonly encoder: ResponseEncoder;

  /** The bound port (0 until bound). */
  port = 0;
  private readonly server = new grpc.Server();

  private constructor(private readonly options: AdsServerOptions) {
    this.encoder = new ResponseEncoder(options.responseEncoded);
  }

  /**
   * Binds and serves.
   * @throws ObserverError `config` (field `grpc`) when the address cannot be bound.
   */
  static async start(options: AdsServerOptions): Promise<ObserverAdsServer> {
    const self = new ObserverAdsServer(options);
    const { server } = self;
    const host = options.host ?? '127.0.0.1';
    /* eslint-disable @typescript-eslint/no-explicit-any -- grpc-js handler maps are untyped */
    server.addService(loadXdsProtos().adsService, {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<any, any>) => self.onCall(call, 'sotw'),
      DeltaAggregatedResources: (call: grpc.ServerDuplexStream<any, any>) => self.onCall(call, 'delta'),
    });
    /* eslint-enable @typescript-eslint/no-explicit-any */
    if (options.csds) addCsdsService(server, options.csds.clients, { authorize: options.csds.authorize });
    self.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${host}:${options.port ?? 0}`, serverCredentials(options.tls), (err, bound) => (err ? reject(err) : resolve(bound))),
    ).catch((err: unknown) => {
      server.forceShutdown();
      throw new ObserverError('config', `cannot bind ${host}:${options.port ?? 0}`, { field: 'grpc', cause: err });
    });
    return self;
  }

  /** ADS streams open now, both variants. */
  get activeStreams(): number {
    return this.streams.size;
  }

  /** ADS streams of one variant open now. */
  activeStreamsOf(protocol: AdsProtocol): number {
    let n = 0;
    for (const s of this.streams) if (s.protocol === protocol) n++;
    return n;
  }

  /** The open streams (CSDS reads their subscriptions). */
  openStreams(): Iterable<ServedStream> {
    return this.streams;
  }

  /** Fails every stream (UNAVAILABLE, so clients move on to another observer) and stops listening. Idempotent. */
  async close(): Promise<void> {
    if (this.lifecycle !== 'running') return;
    this.lifecycle = 'closing';
    for (const s of [...this.streams]) s.fail(grpc.status.UNAVAILABLE, 'observer closing');
    this.server.forceShutdown();
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
    this.lifecycle = 'closed';
  }

  private onCall(call: AdsCall | DeltaAdsCall, protocol: AdsProtocol): void {
    if (this.lifecycle !== 'running') {
      call.emit('error', Object.assign(new Error('observer closing'), { code: grpc.status.UNAVAILABLE }));
      return;
    }
    const { cache, subscriptions } = this.options;
    const common = { id: ++this.streamIds, cache, subscriptions, hooks: { ...this.options.hooks, closed: (s: ServedStream) => this.streams.delete(s) } };
    this.streams.add(protocol === 'sotw' ? new ObserverAdsStream(call as AdsCall, { ...common, encoder: this.encoder }) : new DeltaAdsStream(call as DeltaAdsCall, common));
  }
}
