import { randomUUID } from 'node:crypto';
import { ZkSession, type ZkSessionOptions } from '../../lib/zk';
import { startTcpProxy, type TcpProxy } from '../../lib/local/tcp-proxy';
import { createClient, type Option } from 'node-zookeeper-client';

/** The shared test ZooKeeper started by the integration project's globalSetup. */
export function sharedConnectString(): string {
  const connect = process.env.FAILOUT_TEST_ZK;
  if (!connect) throw new Error('FAILOUT_TEST_ZK is not set: run through the jest integration project');
  return connect;
}

/** A fresh base path so tests sharing one server never see each other's nodes. */
export function uniqueBase(prefix = 't'): string {
  return `/${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Sessions opened here, closed by {@link closeSessions} in afterEach. */
const open = new Set<ZkSession>();
/** Each session's proxy and the real server behind it, for {@link expireSession}. */
const links = new WeakMap<ZkSession, { proxy: TcpProxy; server: string }>();
const proxies = new Set<TcpProxy>();

/**
 * Opens and starts a session to `connectString` (default: the shared test server) through a TCP
 * proxy of its own, so that a test can cut it off or expire it (tracked for cleanup).
 */
export async function openSession(options: Partial<ZkSessionOptions> = {}): Promise<ZkSession> {
  const server = options.connectString ?? sharedConnectString();
  const port = Number(server.split(',')[0]!.split(':')[1]);
  const proxy = await startTcpProxy(port);
  proxies.add(proxy);
  const session = new ZkSession({ sessionTimeoutMs: 4000, ...options, connectString: proxy.address });
  open.add(session);
  links.set(session, { proxy, server });
  await session.start();
  return session;
}

/** The proxy a session opened by {@link openSession} goes through. */
export function proxyOf(session: ZkSession): TcpProxy {
  const link = links.get(session);
  if (!link) throw new Error('session was not opened through openSession');
  return link.proxy;
}

/** Closes every session the test opened, and their proxies. */
export async function closeSessions(): Promise<void> {
  await Promise.all([...open].map((s) => s.close()));
  open.clear();
  await Promise.all([...proxies].map((p) => p.close()));
  proxies.clear();
}

/**
 * Expires a session opened by {@link openSession}, deterministically: its proxy refuses the client,
 * a second client connects straight to the server with the same session id and password and closes
 * it (ZooKeeper's own trick), then the proxy lets the client back, and the server tells it the
 * session expired. `whileExpired` runs after the server dropped the session and before the client
 * may reconnect (what a test writes there happens while the session's owner cannot see it).
 */
export async function expireSession(session: ZkSession, whileExpired?: () => Promise<void>): Promise<void> {
  const link = links.get(session);
  const credentials = session.sessionCredentials();
  if (!link || !credentials) throw new Error('session not connected through openSession');
  link.proxy.refuse();
  const twin = createClient(link.server, {
    sessionId: credentials.id,
    sessionPassword: credentials.password,
    sessionTimeout: 4000,
  } as Partial<Option>);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('twin session did not connect')), 10000);
      twin.once('connected', () => {
        clearTimeout(timer);
        twin.once('disconnected', () => resolve());
        twin.close();
      });
      twin.connect();
    });
    await whileExpired?.();
  } finally {
    link.proxy.accept();
  }
}

/** Polls `predicate` until true or the deadline passes. */
export async function eventually(predicate: () => boolean | Promise<boolean>, timeoutMs = 10000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
