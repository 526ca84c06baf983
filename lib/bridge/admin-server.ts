/**
 * Admin HTTP: `/healthz` (200 while the process can do its job), `/readyz` (200 once ready, 503 before), `/status`
 * (JSON), `/config_dump` (CSDS as JSON, gRFC A40: the same `ClientStatusResponse` the gRPC admin port
 * serves) and `/metrics` (Prometheus text). GET only.
 *
 * Access (issue 14, rules in `admin-access.ts`): loopback by default. On any other address a bearer
 * token is required, and with a token every path but `/healthz` answers 401 without it — `/healthz`
 * stays open because the container health check and a load balancer probe carry no secret, and it
 * says nothing but "ok". The token is kept only as its SHA-256 digest and compared in constant time
 * (`bearerMatches`, shared with the gRPC admin port); it is never logged or echoed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminTokenDigest, assertAdminAccess, bearerMatches } from './admin-access';
import { assertIsError } from './errors';

/** What the admin endpoints show. */
export interface AdminSource {
  healthy(): boolean;
  ready(): boolean;
  status(): unknown;
  configDump(): unknown;
  metrics(): Promise<{ contentType: string; text: string }>;
}

/** Options of {@link AdminServer.start}. */
export interface AdminServerOptions {
  /** Address to bind. Anything but loopback (`127.0.0.1`, `::1`, `localhost`) needs {@link token}. */
  readonly host: string;
  /** Port to bind; 0 for any free port. */
  readonly port: number;
  /** Bearer token every path but `/healthz` requires (at least 32 characters). Default: none, loopback only. */
  readonly token?: string | undefined;
  /** What the endpoints show. */
  readonly source: AdminSource;
}

/** The challenge of a 401 (RFC 6750 §3). */
const CHALLENGE = 'Bearer realm="xds-bridge"';
/** The only path served without the token. */
const OPEN_PATH = '/healthz';

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
}

/**
 * The admin HTTP server of a bridge.
 *
 * Fixed after {@link start}: the server, the bound address and the token digest.
 */
export class AdminServer {
  private constructor(private readonly server: Server) {}

  /**
   * Listens on `host:port`. Requests are served from the event loop, one handler call each.
   * @throws BridgeError `config` (field `admin.token`) for a non-loopback host without a token, or a
   * token shorter than 32 characters; nothing is bound then.
   */
  static async start(options: AdminServerOptions): Promise<AdminServer> {
    assertAdminAccess(options);
    const tokenDigest = options.token === undefined ? undefined : adminTokenDigest(options.token);
    const { source } = options;
    const server = createServer((req, res) => void AdminServer.handle(source, tokenDigest, req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new AdminServer(server);
  }

  /** The bound address (`127.0.0.1`, `0.0.0.0`, `::`, …). */
  get host(): string {
    return (this.server.address() as AddressInfo).address;
  }

  /** The bound port. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Stops listening and ends open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private static async handle(source: AdminSource, tokenDigest: Buffer | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    try {
      // Before routing and the method check: without the token, no path but /healthz reveals whether it exists.
      if (tokenDigest !== undefined && path !== OPEN_PATH && !bearerMatches(req.headers.authorization, tokenDigest)) {
        return send(res, 401, 'text/plain', 'unauthorized\n', { 'www-authenticate': CHALLENGE });
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed\n');
      switch (path) {
        case OPEN_PATH:
          return source.healthy() ? send(res, 200, 'text/plain', 'ok\n') : send(res, 503, 'text/plain', 'unhealthy\n');
        case '/readyz':
          return source.ready() ? send(res, 200, 'text/plain', 'ready\n') : send(res, 503, 'text/plain', 'not ready\n');
        case '/status':
          return json(res, 200, source.status());
        case '/config_dump':
          return json(res, 200, source.configDump());
        case '/metrics': {
          const { contentType, text } = await source.metrics();
          return send(res, 200, contentType, text);
        }
        default:
          return send(res, 404, 'text/plain', 'not found\n');
      }
    } catch (err) {
      assertIsError(err);
      send(res, 500, 'text/plain', `${err.message}\n`);
    }
  }
}
