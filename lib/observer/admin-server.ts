/**
 * The observer's admin HTTP: `/healthz` (200 while the process can do its job; open without the
 * token, as for the bridge: a health probe carries no secret), `/readyz` (200 once the ZooKeeper
 * session is connected and the base path was read), `/status` (JSON) and `/metrics` (Prometheus
 * text). GET only. Access rules in `admin-access.ts`.
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
  metrics(): Promise<{ contentType: string; text: string }>;
}

/** Options of {@link ObserverAdminServer.start}. */
export interface AdminServerOptions {
  /** Address to bind; anything but loopback needs {@link token}. */
  readonly host: string;
  /** Port to bind; 0 for any free port. */
  readonly port: number;
  /** Bearer token every path but `/healthz` requires (≥ 32 characters). Default: none, loopback only. */
  readonly token?: string | undefined;
  readonly source: AdminSource;
}

const CHALLENGE = 'Bearer realm="d2-observer"';
const OPEN_PATH = '/healthz';

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

/** The admin HTTP server of an observer. Fixed after {@link start}: the server and the token digest. */
export class ObserverAdminServer {
  private constructor(private readonly server: Server) {}

  /**
   * Listens on `host:port`.
   * @throws ObserverError `config` (field `admin.token`) when the access rules refuse; nothing is bound then.
   */
  static async start(options: AdminServerOptions): Promise<ObserverAdminServer> {
    assertAdminAccess(options);
    const digest = options.token === undefined ? undefined : adminTokenDigest(options.token);
    const server = createServer((req, res) => void ObserverAdminServer.handle(options.source, digest, req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new ObserverAdminServer(server);
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

  private static async handle(source: AdminSource, digest: Buffer | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (digest !== undefined && path !== OPEN_PATH && !bearerMatches(req.headers.authorization, digest)) {
        return send(res, 401, 'text/plain', 'unauthorized\n', { 'www-authenticate': CHALLENGE });
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed\n');
      switch (path) {
        case OPEN_PATH:
          return source.healthy() ? send(res, 200, 'text/plain', 'ok\n') : send(res, 503, 'text/plain', 'unhealthy\n');
        case '/readyz':
          return source.ready() ? send(res, 200, 'text/plain', 'ready\n') : send(res, 503, 'text/plain', 'not ready\n');
        case '/status':
          return send(res, 200, 'application/json', JSON.stringify(source.status(), null, 2));
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
