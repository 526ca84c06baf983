import { createConnection, createServer, type Server } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (bind to 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not read a free port'));
      });
    });
  });
}

/**
 * A loopback port held for a part that binds it later. A port from {@link freePort} is free only
 * until any process binds it (another test's server, a JVM starting up), so a part started seconds
 * later can find it taken; a reservation keeps it listening until {@link PortReservation.release},
 * called just before the part binds. Connections to it meanwhile are closed at once, as close to a
 * refused port as a listening socket gets.
 */
export interface PortReservation {
  readonly port: number;
  /** Stops holding the port (idempotent); bind it right after. */
  release(): Promise<void>;
}

/** Reserves a free loopback port (see {@link PortReservation}). */
export async function reservePort(): Promise<PortReservation> {
  const server: Server = createServer((socket) => socket.destroy());
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') {
    server.close();
    throw new Error('could not read a reserved port');
  }
  let released: Promise<void> | undefined;
  return {
    port: address.port,
    release: () => (released ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

/** A part could not bind because a port it was given is bound by someone else; `cause` is what the part threw. */
export class PortInUseError extends Error {
  readonly code = 'EADDRINUSE';

  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'PortInUseError';
  }
}

/** Whether `err` says a port was taken when a part bound it (Node's `EADDRINUSE`, or a server that said so). */
export function isAddressInUse(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 'EADDRINUSE') return true;
  return 'cause' in err && isAddressInUse((err as { cause?: unknown }).cause);
}

/** Whether a server listens on 127.0.0.1:`port` now (binding it fails with `EADDRINUSE`). */
export function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err) => resolve(isAddressInUse(err)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/**
 * Runs `start` with `ports` fresh free ports, again with new ones (up to `attempts` times in all) when
 * it fails because one was taken between the pick and the bind; other errors at once.
 */
export async function onFreePorts<T>(ports: number, start: (ports: readonly number[]) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const picked: number[] = [];
    for (let i = 0; i < ports; i++) picked.push(await freePort());
    try {
      return await start(picked);
    } catch (err) {
      if (attempt >= attempts || !isAddressInUse(err)) throw err;
    }
  }
}

/** Sends a ZooKeeper four-letter word (`ruok`, `srvr`, `mntr`) and returns the whole answer. */
export function fourLetterWord(port: number, word: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`${word} timed out`)));
    socket.once('connect', () => socket.write(word));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
