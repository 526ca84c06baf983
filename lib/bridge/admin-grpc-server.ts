/**
 * The bridge's gRPC admin port: CSDS (gRFC A40, `envoy.service.status.v3.ClientStatusDiscoveryService`)
 * over the bridge's xDS client, for `grpcdebug`, `grpcurl` and admin pages. The service itself is
 * lib/xds `csds.ts`; this file binds it and guards it.
 *
 * Access (issue 14, rules in `admin-access.ts`, the same as the HTTP admin port): loopback by default;
 * on any other address a bearer token is required, sent as gRPC metadata `authorization: Bearer <token>`.
 * A call without it ends UNAUTHENTICATED before any handler runs (a server interceptor, so every
 * service added to this port later is guarded too). There is no open method, unlike HTTP `/healthz`.
 */
import * as grpc from '@grpc/grpc-js';
import { addCsdsService, type CsdsClients } from '../xds';
import { adminTokenDigest, bearerMatches } from '../admin-http';
import { assertAdminAccess } from './admin-access';

/** Options of {@link AdminGrpcServer.start}. */
export interface AdminGrpcServerOptions {
  /** Address to bind. Anything but loopback (`127.0.0.1`, `::1`, `localhost`) needs {@link token}. */
  readonly host: string;
  /** Port to bind; 0 for any free port. */
  readonly port: number;
  /** Bearer token every call requires (at least 32 characters). Default: none, loopback only. */
  readonly token?: string | undefined;
  /** The xDS clients CSDS reports, asked on each request. */
  readonly clients: CsdsClients;
}

/** `host:port` as gRPC reads it: an IPv6 literal in brackets. */
function bindAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Ends every call whose `authorization` metadata is not `Bearer <token>` with UNAUTHENTICATED (grpc-js's auth interceptor pattern). */
function bearerInterceptor(tokenDigest: Buffer): grpc.ServerInterceptor {
  return (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            const values = metadata.get('authorization');
            const header = values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
            if (bearerMatches(header, tokenDigest)) nextMetadata(metadata);
            else call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: 'unauthorized' });
          },
        }),
    });
}

/**
 * The gRPC admin server of a bridge.
 *
 * Fixed after {@link start}: the server and the bound port.
 */
export class AdminGrpcServer {
  private constructor(
    private readonly server: grpc.Server,
    /** The bound port. */
    readonly port: number,
  ) {}

  /**
   * Listens on `host:port` with CSDS over `clients`.
   * @throws BridgeError `config` (field `admin.token`) for a non-loopback host without a token, or a
   * token shorter than 32 characters; nothing is bound then.
   */
  static async start(options: AdminGrpcServerOptions): Promise<AdminGrpcServer> {
    assertAdminAccess(options);
    const interceptors = options.token === undefined ? [] : [bearerInterceptor(adminTokenDigest(options.token))];
    const server = new grpc.Server({ interceptors });
    addCsdsService(server, options.clients);
    try {
      const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync(bindAddress(options.host, options.port), grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
      );
      return new AdminGrpcServer(server, port);
    } catch (err) {
      server.forceShutdown();
      throw err;
    }
  }

  /** Stops listening and ends open calls (a `StreamClientStatus` stream would otherwise hold the stop). */
  close(): void {
    this.server.forceShutdown();
  }
}
