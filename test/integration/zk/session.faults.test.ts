import { startEnsemble, startZooKeeper, type ZooKeeperEnsemble, type ZooKeeperServer } from '../../../lib/local/zookeeper';
import { fourLetterWord } from '../../../lib/local/net';
import { OPEN_ACL, ZkSession, type DataState, type SessionEvent } from '../../../lib/zk';
import pino from 'pino';
import { closeSessions, eventually, expireSession, openSession } from '../../helpers/zk';

// lib/zk has no default ACL: this test plays an unconstrained writer and passes the open ACL explicitly
// (access control itself is tested in test/integration/access/ and test/unit/zk/acl-*.test.ts).

// Faults a ZooKeeper client lives through: forced session expiry, server restarts (short and longer
// than the session timeout), and losing the ensemble member it is connected to.

function lastValue(states: DataState[]): string | undefined {
  const last = states.at(-1);
  return last?.exists ? last.data.toString() : undefined;
}

async function writeContinuously(writer: ZkSession, path: string, stop: { done: boolean }): Promise<number> {
  let n = 0;
  while (!stop.done) {
    n++;
    await writer.set(path, Buffer.from(String(n))).catch(() => n--);
    await new Promise((r) => setTimeout(r, 10));
  }
  return n;
}

describe('session faults on a standalone server', () => {
  let server: ZooKeeperServer;

  function session(timeoutMs: number): Promise<ZkSession> {
    return openSession({ connectString: server.connectString, sessionTimeoutMs: timeoutMs });
  }

  beforeAll(async () => {
    server = await startZooKeeper({ sessionTimeouts: { minMs: 1000, maxMs: 20000 } });
  });

  afterEach(async () => {
    await closeSessions();
  });

  afterAll(async () => {
    await server.close();
  });

  it('recovers every watch with the latest state after a forced session expiry while writes continue', async () => {
    // Prepare
    const watcher = await session(4000);
    const writer = await session(10000);
    const paths = ['/expiry/a', '/expiry/b', '/expiry/c'];
    for (const p of paths) await writer.create(p, Buffer.from('0'), { parents: true, acl: OPEN_ACL }).catch(() => undefined);
    const states = new Map(paths.map((p) => [p, [] as DataState[]]));
    const events: SessionEvent[] = [];
    watcher.on((e) => events.push(e));
    const watches = paths.map((p) => watcher.watchData(p, (s) => states.get(p)!.push(s)));
    await Promise.all(watches.map((w) => w.ready));
    const firstSession = watcher.sessionId;

    // Act
    const stop = { done: false };
    const writing = writeContinuously(writer, paths[0]!, stop);
    await new Promise((r) => setTimeout(r, 100));
    await expireSession(watcher);
    await eventually(() => events.includes('reset'), 15000, 'a new session');
    await writer.set(paths[1]!, Buffer.from('after-expiry'));
    await new Promise((r) => setTimeout(r, 100));
    stop.done = true;
    const lastWrite = await writing;

    // Assess
    expect(events).toEqual(expect.arrayContaining(['expired', 'connected', 'reset']));
    expect(watcher.stats()).toMatchObject({ sessions: 2, expired: 1, lost: 0, watches: 3 });
    expect(watcher.sessionId).not.toBe(firstSession);
    await eventually(() => lastValue(states.get(paths[0]!)!) === String(lastWrite), 10000, 'latest write on a');
    await eventually(() => lastValue(states.get(paths[1]!)!) === 'after-expiry', 10000, 'write on b');
    // c never changed: its listener heard it once, not again after the new session.
    expect(states.get(paths[2]!)).toHaveLength(1);
  });

  it('holds whenResynced open from the new session until every watch delivered what was written while it was expired', async () => {
    // Prepare
    const watcher = await session(4000);
    const writer = await session(10000);
    const paths = ['/resynced/a', '/resynced/b'];
    for (const p of paths) await writer.create(p, Buffer.from('before'), { parents: true, acl: OPEN_ACL }).catch(() => writer.set(p, Buffer.from('before')));
    const states = new Map(paths.map((p) => [p, [] as DataState[]]));
    const watches = paths.map((p) => watcher.watchData(p, (s) => states.get(p)!.push(s)));
    await Promise.all(watches.map((w) => w.ready));
    const seenAtConnected: (Promise<void> | undefined)[] = [];
    watcher.on((e) => {
      if (e === 'connected' || e === 'reset') seenAtConnected.push(watcher.whenResynced());
    });
    expect(watcher.whenResynced()).toBeUndefined();

    // Act: both nodes written while the session is expired
    await expireSession(watcher, async () => {
      for (const p of paths) await writer.set(p, Buffer.from('while-expired'));
    });
    await eventually(() => seenAtConnected.length >= 2, 15000, 'a new session');
    await seenAtConnected[0];

    // Assess: a promise from the moment anyone hears of the new session; once it resolves, every watch holds the new value
    expect(seenAtConnected.every((gate) => gate instanceof Promise)).toBe(true);
    for (const p of paths) expect(lastValue(states.get(p)!)).toBe('while-expired');
    expect(watcher.whenResynced()).toBeUndefined();
  });

  it('lives through a session listener that throws: the others still hear every event, watches re-read, and the error is logged', async () => {
    // Prepare
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
    const watcher = await openSession({ connectString: server.connectString, sessionTimeoutMs: 4000, logger });
    const writer = await session(10000);
    await writer.create('/throwing/a', Buffer.from('0'), { parents: true, acl: OPEN_ACL }).catch(() => undefined);
    const events: SessionEvent[] = [];
    watcher.on(() => {
      throw new Error('listener bug');
    });
    watcher.on((e) => events.push(e));
    const states: DataState[] = [];
    const watch = watcher.watchData('/throwing/a', (s) => states.push(s));
    await watch.ready;

    // Act
    await expireSession(watcher);
    await eventually(() => events.includes('reset'), 15000, 'a new session');
    await writer.set('/throwing/a', Buffer.from('after-expiry'));

    // Assess
    await eventually(() => lastValue(states) === 'after-expiry', 10000, 'the write after expiry');
    expect(events).toEqual(expect.arrayContaining(['expired', 'connected', 'reset']));
    expect(watcher.stats()).toMatchObject({ sessions: 2, expired: 1 });
    expect(logged.join('\n')).toContain('session listener threw');
    expect(logged.join('\n')).toContain('listener bug');
  });

  it('keeps the session and its watches through a restart shorter than the session timeout', async () => {
    // Prepare
    const watcher = await session(10000);
    await watcher.create('/restart/short', Buffer.from('before'), { parents: true, acl: OPEN_ACL }).catch(() => undefined);
    await watcher.set('/restart/short', Buffer.from('before'));
    const states: DataState[] = [];
    const events: SessionEvent[] = [];
    watcher.on((e) => events.push(e));
    await watcher.watchData('/restart/short', (s) => states.push(s)).ready;
    const id = watcher.sessionId;

    // Act
    await server.halt();
    await eventually(() => watcher.state === 'suspended', 5000, 'suspended');
    await server.start();
    await eventually(() => watcher.state === 'connected', 15000, 'reconnected');
    const writer = await session(10000);
    await writer.set('/restart/short', Buffer.from('after'));

    // Assess
    await eventually(() => lastValue(states) === 'after', 5000, 'change after restart');
    expect(watcher.sessionId).toBe(id);
    expect(events).not.toContain('reset');
    expect(watcher.stats()).toMatchObject({ sessions: 1, suspended: 1, reconnects: 1 });
  });

  it('makes a new session and re-reads every watch when the server is down longer than the session timeout', async () => {
    // Prepare
    const watcher = await session(2000);
    const writer = await session(20000);
    await writer.create('/restart/long', Buffer.from('before'), { parents: true, acl: OPEN_ACL }).catch(() => undefined);
    await writer.set('/restart/long', Buffer.from('before'));
    const states: DataState[] = [];
    const events: SessionEvent[] = [];
    watcher.on((e) => events.push(e));
    await watcher.watchData('/restart/long', (s) => states.push(s)).ready;

    // Act
    await server.halt();
    await eventually(() => events.includes('lost'), 10000, 'session lost');
    await server.start();
    await eventually(() => events.includes('reset'), 20000, 'new session');
    await eventually(() => writer.state === 'connected', 20000, 'writer back');
    await writer.set('/restart/long', Buffer.from('after'));

    // Assess
    await eventually(() => lastValue(states) === 'after', 10000, 'change after the new session');
    expect(events.indexOf('lost')).toBeLessThan(events.indexOf('reset'));
    expect(watcher.stats()).toMatchObject({ sessions: 2, lost: 1 });
  });
});

describe('session faults on a 3-server ensemble', () => {
  let ensemble: ZooKeeperEnsemble;

  beforeAll(async () => {
    ensemble = await startEnsemble(3, { sessionTimeouts: { minMs: 1000, maxMs: 20000 } });
  }, 90000);

  afterAll(async () => {
    await ensemble?.close();
  });

  it('moves to another member when the one it is connected to dies, with the watch intact', async () => {
    // Prepare
    const watcher = new ZkSession({ connectString: ensemble.connectString, sessionTimeoutMs: 8000 });
    const writer = new ZkSession({ connectString: ensemble.connectString, sessionTimeoutMs: 8000 });
    await watcher.start();
    await writer.start();
    await writer.create('/ensemble/node', Buffer.from('0'), { parents: true, acl: OPEN_ACL });
    const states: DataState[] = [];
    await watcher.watchData('/ensemble/node', (s) => states.push(s)).ready;
    const sid = `0x${BigInt(`0x${watcher.sessionId}`).toString(16)}`;
    let connectedTo: ZooKeeperServer | undefined;
    for (const member of ensemble.members) {
      if ((await fourLetterWord(member.port, 'cons')).includes(`sid=${sid}`)) connectedTo = member;
    }
    expect(connectedTo).toBeDefined();

    // Act
    await connectedTo!.halt();
    const stop = { done: false };
    const writing = writeContinuously(writer, '/ensemble/node', stop);
    await eventually(() => watcher.state === 'connected' && states.length > 2, 20000, 'watch moving on');
    stop.done = true;
    const lastWrite = await writing;

    // Assess
    await eventually(() => lastValue(states) === String(lastWrite), 10000, 'latest write');
    await watcher.close();
    await writer.close();
  }, 60000);
});
