/**
 * startZooKeeper on a port another server took between the pick and the bind: the JVM cannot bind
 * and exits. Another test's ZooKeeper answering on that port must not pass for this one (it would
 * hand the test someone else's data), and the error says the port was taken so that a free port is
 * picked again (lib/local/net `onFreePorts`).
 */
import { createServer, type Server } from 'node:net';
import { isAddressInUse } from '../../../lib/local/net';
import { startZooKeeper } from '../../../lib/local';

/** A server that answers ZooKeeper's four-letter words as a serving ZooKeeper with another data directory. */
function impostor(): Promise<Server> {
  const answers: Record<string, string> = { ruok: 'imok', srvr: 'Zookeeper version: 3.8\nMode: standalone\n', conf: 'clientPort=0\ndataDir=/var/lib/someone-else/version-2\n' };
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      socket.once('data', (word) => socket.end(answers[word.toString('utf8')] ?? ''));
      socket.on('error', () => undefined);
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

describe('startZooKeeper on a taken port', () => {
  let taken: Server | undefined;

  afterEach(async () => {
    await new Promise<void>((resolve) => (taken ? taken.close(() => resolve()) : resolve()));
  });

  it('does not take another server on its port for itself, and says the port was in use', async () => {
    // Prepare
    taken = await impostor();
    const port = (taken.address() as { port: number }).port;

    // Act
    const outcome = await startZooKeeper({ port, readyTimeoutMs: 30_000 }).then(
      async (zk) => {
        await zk.close();
        return 'started';
      },
      (err: unknown) => err,
    );

    // Assess
    expect(outcome).toBeInstanceOf(Error);
    expect(isAddressInUse(outcome)).toBe(true);
    expect((outcome as Error).message).toMatch(new RegExp(`ZooKeeper on port ${port} exited`));
  }, 60_000);
});
