/**
 * Closing a session while it is still connecting (a CLI or console stopped at once, a start that
 * timed out while the server was slow) must not leave the client to read the server's connect
 * response as a reply: node-zookeeper-client 1.1.3 then throws "Unknown code" from a socket handler,
 * an uncaught exception that ends the process.
 */
import { OPEN_ACL, ZkSession } from '../../../lib/zk';
import { sharedConnectString } from '../../helpers/zk';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('ZkSession.close while connecting', () => {
  const uncaught: Error[] = [];
  const onUncaught = (err: Error): void => void uncaught.push(err);

  beforeAll(() => {
    process.on('uncaughtException', onUncaught);
  });

  afterAll(() => {
    process.off('uncaughtException', onUncaught);
  });

  it('closes at any moment of the handshake without an uncaught error, and start() rejects as closed', async () => {
    // Prepare: sessions closed 0–4 ms after start, before, during and after the server's answer
    const outcomes: string[] = [];

    // Act
    for (let i = 0; i < 15; i++) {
      const session = new ZkSession({ connectString: sharedConnectString(), sessionTimeoutMs: 4000 });
      const started = session.start(4000).then(
        () => 'connected',
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      await sleep(i % 5);
      await session.close();
      outcomes.push(await started);
      expect(session.state).toBe('closed');
    }
    // The server's answers to those connect requests arrive within a few ms: give them time.
    await sleep(1000);

    // Assess
    expect(uncaught.map((e) => e.message)).toEqual([]);
    expect(outcomes.every((o) => o === 'connected' || /closed/.test(o))).toBe(true);
  });

  it('still closes a connected session so that its ephemeral nodes go at once', async () => {
    // Prepare
    const owner = new ZkSession({ connectString: sharedConnectString(), sessionTimeoutMs: 10_000 });
    const observer = new ZkSession({ connectString: sharedConnectString(), sessionTimeoutMs: 10_000 });
    await owner.start();
    await observer.start();
    const path = `/close-while-connecting-${process.pid}-${Date.now()}`;
    await owner.create(path, Buffer.from('x'), { mode: 'ephemeral', acl: OPEN_ACL });

    try {
      // Act
      const closedAt = Date.now();
      await owner.close();
      let gone = false;
      while (!gone && Date.now() - closedAt < 3000) {
        gone = (await observer.read(path)).exists === false;
        if (!gone) await sleep(20);
      }

      // Assess: gone long before the 10 s session timeout
      expect(gone).toBe(true);
    } finally {
      await observer.close();
    }
  });
});
