import * as grpc from '@grpc/grpc-js';
import { loadXdsProtos, type AnyMessage } from '../../lib/xds';
import { wrapResource, type DiscoveryRequest, type DiscoveryResponse } from '../../lib/xds/envoy-protos';

/**
 * A minimal SotW ADS server on loopback serving rest.li's `indis` types, which the project's
 * management server's snapshot cache does not carry (it holds LDS/RDS/CDS/EDS only). Per stream it
 * answers each type's request whose names changed with every subscribed resource it has, each in a
 * `Resource` wrapper named by its path (the indis messages hold no name), and pushes a type again to
 * its subscribers when a resource of it changes. ACKs and NACKs get no answer; NACKs are recorded.
 */
export class IndisAdsServer {
  /** typeUrl → name → packed resource. */
  private readonly resources = new Map<string, Map<string, AnyMessage>>();
  private readonly streams = new Set<{ call: grpc.ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>; names: Map<string, string[]> }>();
  private version = 0;
  /** Every NACK received, in order: its type URL and the client's `error_detail` message. */
  readonly nacks: { readonly typeUrl: string; readonly message: string }[] = [];

  private constructor(
    private readonly server: grpc.Server,
    /** The port it listens on (127.0.0.1). */
    readonly port: number,
  ) {}

  /** Starts a server on an OS-chosen loopback port. */
  static async start(): Promise<IndisAdsServer> {
    const server = new grpc.Server();
    const holder: { self?: IndisAdsServer } = {};
    server.addService(loadXdsProtos().adsService, {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>) => holder.self!.onStream(call),
      DeltaAggregatedResources: (call: grpc.ServerDuplexStream<unknown, unknown>) => call.emit('error', Object.assign(new Error('no delta'), { code: grpc.status.UNIMPLEMENTED })),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    holder.self = new IndisAdsServer(server, port);
    return holder.self;
  }

  /** `127.0.0.1:<port>`. */
  get uri(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Sets (or with undefined, deletes) a resource and pushes its type to the streams that subscribe to it. */
  set(typeUrl: string, name: string, resource: AnyMessage | undefined): void {
    const byName = this.resources.get(typeUrl) ?? new Map<string, AnyMessage>();
    this.resources.set(typeUrl, byName);
    if (resource) byName.set(name, resource);
    else byName.delete(name);
    for (const stream of this.streams) if (stream.names.get(typeUrl)?.includes(name)) this.respond(stream, typeUrl);
  }

  /** Stops at once, ending every stream. */
  close(): void {
    for (const { call } of this.streams) call.end();
    this.streams.clear();
    this.server.forceShutdown();
  }

  private onStream(call: grpc.ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>): void {
    const stream = { call, names: new Map<string, string[]>() };
    this.streams.add(stream);
    call.on('data', (req: DiscoveryRequest) => {
      if (req.error_detail) this.nacks.push({ typeUrl: req.type_url, message: req.error_detail.message ?? '' });
      const names = [...req.resource_names].sort();
      const before = stream.names.get(req.type_url);
      if (before && before.join('\n') === names.join('\n')) return; // an ACK or NACK
      stream.names.set(req.type_url, names);
      this.respond(stream, req.type_url);
    });
    const drop = (): void => void this.streams.delete(stream);
    call.on('end', () => {
      drop();
      call.end();
    });
    call.on('error', drop);
  }

  private respond(stream: { call: grpc.ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>; names: Map<string, string[]> }, typeUrl: string): void {
    const byName = this.resources.get(typeUrl) ?? new Map<string, AnyMessage>();
    const resources = (stream.names.get(typeUrl) ?? []).flatMap((name) => {
      const resource = byName.get(name);
      return resource ? [wrapResource(resource, name)] : [];
    });
    const version = String(++this.version);
    stream.call.write({ version_info: version, resources, type_url: typeUrl, nonce: version } as DiscoveryResponse);
  }
}
