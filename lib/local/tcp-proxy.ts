import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A loopback TCP proxy whose link can be cut, for fault tests (partitions, forced expiry). */
export interface TcpProxy {
  /** The proxy's own port on 127.0.0.1. */
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** Drops every open connection and refuses new ones until {@link accept}. */
  refuse(): void;
  /** Forwards connections again. */
  accept(): void;
  /** Stops the proxy and drops its connections. */
  close(): Promise<void>;
}

/** Starts a proxy on a free 127.0.0.1 port that forwards to `127.0.0.1:<targetPort>`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('proxy did not bind');
  const dropAll = (): void => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    port: address.port,
    address: `127.0.0.1:${address.port}`,
    refuse() {
      refusing = true;
      dropAll();
    },
    accept() {
      refusing = false;
    },
    close() {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
