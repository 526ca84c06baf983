import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A real HTTP server on 127.0.0.1 that records what reached it. */
export interface RecordingServer {
  /** `http://127.0.0.1:<port>`: what a D2 URI announces. */
  readonly uri: string;
  readonly port: number;
  /** Request paths (with query) in arrival order. */
  readonly paths: string[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** TCP connections open now (accepted and not closed by either side). */
  openConnections(): number;
  close(): Promise<void>;
}

const open = new Set<RecordingServer>();

/**
 * Starts a server that answers every request with `status` (default 200) and a JSON body naming
 * itself (`name`) and the path it saw. Tracked: {@link closeServers} in afterEach closes every one still open.
 */
export async function startServer(name: string, options: { status?: number } = {}): Promise<RecordingServer> {
  const paths: string[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      res.statusCode = options.status ?? 200;
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-served-by', name);
      res.end(JSON.stringify({ server: name, path: req.url }));
    });
  });
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const recording: RecordingServer = {
    uri: `http://127.0.0.1:${port}`,
    port,
    paths,
    connections: () => accepted,
    openConnections: () => sockets.size,
    close: async () => {
      open.delete(recording);
      // Keep-alive sockets held by client pools would keep close() waiting: end them.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.add(recording);
  return recording;
}

/** Closes every server {@link startServer} opened that is still open. */
export async function closeServers(): Promise<void> {
  await Promise.all([...open].map((s) => s.close()));
}
