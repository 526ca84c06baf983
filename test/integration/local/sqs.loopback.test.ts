import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { startLocalSqs } from '../../../lib/local';

// npm start's queue (fauxqs, in a child process) carries the change requests the worker applies with
// its ZooKeeper credential: like every server of the local stack, it must listen on 127.0.0.1 only.
// fauxqs's startFauxqs listens on 0.0.0.0 whatever host it is given, which made the queue reachable
// from the network. A real server, real sockets.

/** 'refused' when nothing accepts a connection at host:port, else 'accepted'. */
function tryConnect(host: string, port: number): Promise<'accepted' | 'refused'> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve('refused') : reject(err)));
  });
}

/** This host's addresses that are not loopback (none on a host without a network). */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => !a.internal && a.family === 'IPv4')
    .map((a) => a.address);
}

describe('the local SQS server', () => {
  it('accepts connections on 127.0.0.1 only: not on another loopback address, nor on this host\'s network addresses', async () => {
    // Prepare
    const sqs = await startLocalSqs();
    try {
      const port = Number(new URL(sqs.endpoint).port);

      // Act
      const results = {
        '127.0.0.1': await tryConnect('127.0.0.1', port),
        // A socket bound to 127.0.0.1 refuses 127.0.0.2; one bound to 0.0.0.0 accepts it.
        '127.0.0.2': await tryConnect('127.0.0.2', port),
        ...Object.fromEntries(await Promise.all(externalAddresses().map(async (a) => [a, await tryConnect(a, port)] as const))),
      };

      // Assess
      expect(results).toEqual(Object.fromEntries(Object.keys(results).map((a) => [a, a === '127.0.0.1' ? 'accepted' : 'refused'])));
    } finally {
      await sqs.close();
    }
  });
});
