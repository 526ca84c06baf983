import type { Client } from 'node-zookeeper-client';
import { connectionManagerOf } from './tls-transport';

/**
 * Stops a node-zookeeper-client 1.1.3 client that has no established session: one still connecting
 * (its first handshake, or a reconnect after a disconnect).
 *
 * Why not `client.close()`: it only switches the manager to CLOSING and queues closeSession. A
 * connect request already on the wire is then answered, and the manager, no longer CONNECTING,
 * parses the connect response as a reply header and throws "Unknown code" from the socket's data
 * handler — an uncaught exception that ends the process. There is no session to close anyway.
 *
 * So: nothing more is read, no socket is opened again, and the current one is dropped; the manager
 * goes CLOSING → CLOSED through its own socket-close path (pending operations fail with
 * connection loss). Returns false when the client's internals are not 1.1.3's; the caller then falls
 * back to `close()`.
 */
export function abandonConnection(client: Client): boolean {
  let internals: ReturnType<typeof connectionManagerOf>;
  try {
    internals = connectionManagerOf(client);
  } catch {
    return false;
  }
  const { manager, states } = internals;
  manager.onSocketData = () => undefined;
  // A connect already scheduled (spin delay, TLS backoff) opens a socket later: drop it once open.
  manager.onSocketConnected = () => manager.socket?.destroy();
  manager.connect = () => undefined;
  manager.setState(states.CLOSING);
  manager.socket?.destroy();
  return true;
}
