/**
 * A local stand-in for AWS Secrets Manager's `GetSecretValue` (its JSON protocol over HTTP), so the
 * Lambda bundle reads its ZooKeeper digest the way it does in AWS — `ZK_DIGEST_SECRET_ARN` through
 * Powertools' `getSecret` and the AWS SDK — with `AWS_ENDPOINT_URL_SECRETS_MANAGER` pointing here.
 * Loopback only; nothing but the secrets it was given.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running local secrets endpoint. */
export interface LocalSecrets {
  /** `http://127.0.0.1:<port>`: the value for `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  readonly endpoint: string;
  /** Secret ARN → the `GetSecretValue` calls it answered (for tests). */
  readonly reads: ReadonlyMap<string, number>;
  /** Closes the server. */
  close(): Promise<void>;
}

/** The ARN a local secret is known by: `arn:aws:secretsmanager:<region>:000000000000:secret:<name>`. */
export function localSecretArn(name: string, region = 'us-east-1'): string {
  return `arn:aws:secretsmanager:${region}:000000000000:secret:${name}`;
}

/** Serves `secrets` (ARN → SecretString) on 127.0.0.1 and a free port. */
export async function startLocalSecrets(secrets: ReadonlyMap<string, string>): Promise<LocalSecrets> {
  const reads = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const reply = (status: number, payload: object): void => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(payload));
      };
      if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
        reply(400, { __type: 'InvalidRequestException', message: 'only GetSecretValue is served here' });
        return;
      }
      let id: unknown;
      try {
        id = (JSON.parse(body) as { SecretId?: unknown }).SecretId;
      } catch {
        reply(400, { __type: 'InvalidRequestException', message: 'the body is not JSON' });
        return;
      }
      const value = typeof id === 'string' ? secrets.get(id) : undefined;
      if (typeof id !== 'string' || value === undefined) {
        reply(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
        return;
      }
      reads.set(id, (reads.get(id) ?? 0) + 1);
      reply(200, { ARN: id, Name: id.split(':').pop(), SecretString: value, VersionId: 'local', VersionStages: ['AWSCURRENT'], CreatedDate: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    reads,
    // Every connection ends with it: a client mid-request must not hold up the stack's stop.
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', () => resolve(''));
  });
}
