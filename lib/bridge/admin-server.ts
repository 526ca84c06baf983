/**
 * Admin HTTP: `/healthz` (200 while the process can do its job), `/readyz` (200 once ready, 503 before), `/status`
 * (JSON), `/config_dump` (the xDS client's dump) and `/metrics` (Prometheus text). GET only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertIsError } from './errors';

/** What the admin endpoints show. */
export interface AdminSource {
  healthy(): boolean;
  ready(): boolean;
  status(): unknown;
  configDump(): unknown;
  metrics(): Promise<{ contentType: string; text: string }>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
}

/** The admin HTTP server of a bridge. */
export class AdminServer {
  private constructor(private readonly server: Server) {}

  /** Listens on `host:port` (port 0: any free port). */
  static async start(host: string, port: number, source: AdminSource): Promise<AdminServer> {
    const server = createServer((req, res) => void AdminServer.handle(source, req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new AdminServer(server);
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

  private static async handle(source: AdminSource, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed\n');
      switch (path) {
        case '/healthz':
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
