/**
 * TLS to the management server with a CA generated at test time (bootstrap channel_creds "tls").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { parseBootstrap } from '../../../lib/xds/bootstrap';
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { buildCluster } from '../../../lib/xds/resource-types';
import { XdsManagementServer } from '../../../lib/xds/server';
import { recordingWatcher } from '../../helpers/xds-fakes';

function makeCa(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string): string => path.join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=failout-test-ca');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem'), '-days', '1', '-extfile', file('ext.cnf'));
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

describe('TLS to the management server', () => {
  let dir: string;
  let server: XdsManagementServer | undefined;
  let client: XdsClient | undefined;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'failout-xds-tls-'));
  });

  afterEach(async () => {
    client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('receives resources over TLS verified against the generated CA', async () => {
    const files = makeCa(dir);
    const credentials = grpc.ServerCredentials.createSsl(null, [{ cert_chain: readFileSync(files.cert), private_key: readFileSync(files.key) }], false);
    server = await XdsManagementServer.start({ credentials });
    server.setSnapshot('*', { version: '1', clusters: [buildCluster('secure')] });
    const bootstrap = parseBootstrap({
      xds_servers: [{ server_uri: server.uri, channel_creds: [{ type: 'tls', config: { ca_certificate_file: files.ca } }] }],
      node: { id: 'tls-node' },
    });
    client = createXdsClient({ bootstrap });
    const w = recordingWatcher();
    client.watch('cluster', 'secure', w);
    expect(await w.next()).toMatchObject({ type: 'update', value: { name: 'secure' } });
  });

  it('reports a connection error when the server certificate is not trusted', async () => {
    const files = makeCa(dir);
    const other = makeCa(mkdtempSync(path.join(dir, 'other-')));
    const credentials = grpc.ServerCredentials.createSsl(null, [{ cert_chain: readFileSync(files.cert), private_key: readFileSync(files.key) }], false);
    server = await XdsManagementServer.start({ credentials });
    server.setSnapshot('*', { version: '1', clusters: [buildCluster('secure')] });
    const bootstrap = parseBootstrap({
      xds_servers: [{ server_uri: server.uri, channel_creds: [{ type: 'tls', config: { ca_certificate_file: other.ca } }] }],
      node: { id: 'tls-node' },
    });
    client = createXdsClient({ bootstrap });
    const w = recordingWatcher();
    client.watch('cluster', 'secure', w);
    const event = await w.next();
    if (event.type !== 'error') throw new Error('expected an error');
    expect(event.error.kind).toBe('connection');
  });
});
