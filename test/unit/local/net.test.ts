/**
 * Ports for the local stack's parts: a free port is free only until any process binds it, so a part
 * that binds seconds later holds a reservation, and a part that binds by itself (the ZooKeeper JVM)
 * is started again on other ports when its port was taken meanwhile (CI saw `listen EADDRINUSE` when
 * the stack started beside other tests).
 */
import { createConnection, createServer, type Server } from 'node:net';
import { freePort, isAddressInUse, onFreePorts, reservePort } from '../../../lib/local/net';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('reservePort', () => {
  it('holds the port against other binds until released, then it can be bound', async () => {
    // Prepare
    const reserved = await reservePort();

    // Act
    const whileHeld = await listen(reserved.port).then(close, (err: unknown) => err);
    await reserved.release();
    const afterRelease = await listen(reserved.port);

    // Assess
    expect(isAddressInUse(whileHeld)).toBe(true);
    expect(afterRelease.address()).toMatchObject({ port: reserved.port });
    await close(afterRelease);
    await reserved.release();
  });

  it('closes a connection made to the held port at once', async () => {
    // Prepare
    const reserved = await reservePort();

    // Act
    const ended = await new Promise<string>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port: reserved.port });
      socket.on('error', () => resolve('error'));
      socket.on('close', () => resolve('closed'));
    });

    // Assess
    expect(['error', 'closed']).toContain(ended);
    await reserved.release();
  });
});

describe('onFreePorts', () => {
  it('starts again on other ports when a port was taken between the pick and the bind', async () => {
    // Prepare: the first attempt finds its port taken (another process bound it meanwhile).
    const tried: number[][] = [];
    const start = async (ports: readonly number[]): Promise<string> => {
      tried.push([...ports]);
      if (tried.length === 1) throw Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
      return 'started';
    };

    // Act
    const result = await onFreePorts(2, start);

    // Assess
    expect(result).toBe('started');
    expect(tried).toHaveLength(2);
    expect(tried.every((ports) => ports.length === 2)).toBe(true);
  });

  it('gives up after the attempts, and passes other errors on at once', async () => {
    // Prepare
    let calls = 0;
    const taken = async (): Promise<never> => {
      calls++;
      throw Object.assign(new Error('taken'), { code: 'EADDRINUSE' });
    };
    const broken = async (): Promise<never> => {
      calls++;
      throw new Error('bad config');
    };

    // Act
    const first = await onFreePorts(1, taken, 3).catch((err: Error) => err.message);
    const firstCalls = calls;
    calls = 0;
    const second = await onFreePorts(1, broken, 3).catch((err: Error) => err.message);

    // Assess
    expect({ first, firstCalls, second, secondCalls: calls }).toEqual({ first: 'taken', firstCalls: 3, second: 'bad config', secondCalls: 1 });
  });

  it('hands out ports that can be bound', async () => {
    // Act
    const server = await onFreePorts(1, ([port]) => listen(port!));

    // Assess
    expect(server.listening).toBe(true);
    await close(server);
    expect(await freePort()).toBeGreaterThan(0);
  });
});
