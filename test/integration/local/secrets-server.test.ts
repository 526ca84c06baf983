import { connect, type Socket } from 'node:net';
import { localSecretArn, startLocalSecrets } from '../../../lib/local';

// The local stand-in for Secrets Manager (npm start's Lambda bundle reads its ZooKeeper digest through
// it): it answers GetSecretValue for the secrets it was given, and stops at once when the stack stops,
// whatever its clients are doing.

const ARN = localSecretArn('failout/zk-digest');

async function getSecret(endpoint: string, body: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(endpoint, { method: 'POST', headers: { 'x-amz-target': 'secretsmanager.GetSecretValue', 'content-type': 'application/x-amz-json-1.1' }, body });
  return { status: response.status, json: await response.json() };
}

describe('the local secrets endpoint', () => {
  it('answers GetSecretValue for a given secret and refuses an unknown one or a body that is not JSON', async () => {
    // Prepare
    const secrets = await startLocalSecrets(new Map([[ARN, 'writer:s3cret']]));
    try {
      // Act
      const known = await getSecret(secrets.endpoint, JSON.stringify({ SecretId: ARN }));
      const unknown = await getSecret(secrets.endpoint, JSON.stringify({ SecretId: localSecretArn('other') }));
      const broken = await getSecret(secrets.endpoint, '{');

      // Assess
      expect(known).toEqual({ status: 200, json: expect.objectContaining({ ARN, SecretString: 'writer:s3cret' }) });
      expect(unknown).toEqual({ status: 400, json: expect.objectContaining({ __type: 'ResourceNotFoundException' }) });
      expect(broken).toEqual({ status: 400, json: expect.objectContaining({ __type: 'InvalidRequestException' }) });
      expect(secrets.reads.get(ARN)).toBe(1);
    } finally {
      await secrets.close();
    }
  });

  it('stops at once while a client has sent half a request', async () => {
    // Prepare
    const secrets = await startLocalSecrets(new Map([[ARN, 'writer:s3cret']]));
    const { port } = new URL(secrets.endpoint);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: Number(port) }, () => resolve(s));
      s.once('error', reject);
    });
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise((r) => setTimeout(r, 100));

    // Act
    const closing = secrets.close().then(() => 'closed');
    const outcome = await Promise.race([closing, new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5000).unref())]);
    socket.destroy();
    await ended;
    await closing;

    // Assess
    expect(outcome).toBe('closed');
  });
});
