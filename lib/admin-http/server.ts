/**
 * The admin HTTP server every failout process runs: `/healthz` (200 while the process can do its job),
 * `/readyz` (200 once ready, 503 before), `/status` (JSON), `/config_dump` (JSON, where the caller has
 * one: the bridge's CSDS view, gRFC A40) and `/metrics` (Prometheus text). GET (and HEAD) only.
 *
 * Access (issue 14, rules in `access.ts`): loopback by default. On any other address a bearer token is
 * required, and with a token every path but `/healthz` answers 401 without it: `/healthz` stays open
 * because a container health check and a load balancer probe carry no secret, and it says nothing but
 * "ok". The token is kept only as its SHA-256 digest and compared in constant time; it is never logged
 * or echoed. Without a token (hence on loopback) only a request whose `Host` is loopback is answered
 * (403 otherwise), against DNS rebinding from a browser on the same host.
 *
 * The caller names itself: the realm of the 401 challenge, the token's environment variable in a
 * refusal, and the typed error a refusal becomes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminAccessProblem, adminTokenDigest, bearerMatches, isLoopbackHost } from './access';
import { assertIsError } from './errors';

/** What the admin endpoints show. */
export interface AdminHttpSource {
  healthy(): boolean;
  ready(): boolean;
  status(): unknown;
  /** `/config_dump`; without it that path answers 404. */
  configDump?(): unknown;
  metrics(): Promise<{ contentType: string; text: string }>;
}

/** Where an admin server binds and the token it asks for: the settings an operator configures. */
export interface AdminHttpBinding {
  /** Address to bind. Anything but loopback (`127.0.0.1`, `::1`, `localhost`) needs {@link token}. */
  readonly host: string;
  /** Port to bind; 0 for any free port. */
  readonly port: number;
  /** Bearer token every path but `/healthz` requires (at least 32 characters). Default: none, loopback only. */
  readonly token?: string | undefined;
}

/** Options of {@link AdminHttpServer.start}. */
export interface AdminHttpOptions extends AdminHttpBinding {
  /** What the endpoints show. */
  readonly source: AdminHttpSource;
  /** The realm of the 401 challenge (RFC 6750 §3): the process's name, e.g. `xds-bridge`. */
  readonly realm: string;
  /** The environment variable that sets the token, named when a binding is refused (`BRIDGE_ADMIN_TOKEN`). */
  readonly tokenVariable: string;
  /** The caller's typed error for a refused binding (`config` on field `admin.token`), given the reason. */
  readonly refuse: (problem: string) => Error;
}

/** The only path served without the token. */
const OPEN_PATH = '/healthz';

/** The name of a `Host` header without its port (`[::1]:9901` → `::1`); '' when there is none. */
function hostName(header: string | undefined): string {
  if (header === undefined) return '';
  return header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.replace(/:\d*$/, '');
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
}

/**
 * One admin HTTP server.
 *
 * Fixed after {@link start}: the server, the bound address, the realm and the token digest.
 */
export class AdminHttpServer {
  private constructor(private readonly server: Server) {}

  /**
   * Listens on `host:port`. Requests are served from the event loop, one handler call each.
   * @throws what `options.refuse` makes, for a non-loopback host without a token or a token shorter
   * than 32 characters; nothing is bound then.
   */
  static async start(options: AdminHttpOptions): Promise<AdminHttpServer> {
    const problem = adminAccessProblem(options, options.tokenVariable);
    if (problem !== undefined) throw options.refuse(problem);
    const tokenDigest = options.token === undefined ? undefined : adminTokenDigest(options.token);
    const { source } = options;
    const challenge = `Bearer realm="${options.realm}"`;
    const server = createServer((req, res) => void AdminHttpServer.handle(source, challenge, tokenDigest, req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new AdminHttpServer(server);
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

  private static async handle(source: AdminHttpSource, challenge: string, tokenDigest: Buffer | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    try {
      // Without a token the server is bound to loopback, and only a loopback Host may talk to it: a page
      // whose name an attacker re-points at 127.0.0.1 (DNS rebinding) reaches it from the operator's
      // browser with its own name in Host. The console refuses the same way.
      if (tokenDigest === undefined && !isLoopbackHost(hostName(req.headers.host))) {
        return send(res, 403, 'text/plain', 'forbidden: without a token this server answers only to a loopback Host\n');
      }
      // Before routing and the method check: without the token, no path but /healthz reveals whether it exists.
      if (tokenDigest !== undefined && path !== OPEN_PATH && !bearerMatches(req.headers.authorization, tokenDigest)) {
        return send(res, 401, 'text/plain', 'unauthorized\n', { 'www-authenticate': challenge });
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
          return source.configDump ? json(res, 200, source.configDump()) : send(res, 404, 'text/plain', 'not found\n');
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
