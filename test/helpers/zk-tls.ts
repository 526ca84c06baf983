import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PKI made with openssl for one test file: a CA, a server certificate it signs (for
 * `localhost` and `127.0.0.1`), a client certificate it signs, and an unrelated CA (the "wrong CA").
 * Everything lives in one temp directory; {@link TestPki.remove} deletes it.
 */
export interface TestPki {
  readonly dir: string;
  /** PEM: the CA that signed the server and client certificates. */
  readonly caFile: string;
  /** PEM: a CA that signed nothing here. */
  readonly otherCaFile: string;
  /** PEM for ZooKeeper's `ssl.keyStore.type=PEM`: the server's PKCS#8 key followed by its certificate. */
  readonly serverKeyStoreFile: string;
  /** PEM: the client certificate (subject `CN=failout-client`). */
  readonly clientCertFile: string;
  /** PEM: the client's PKCS#8 private key. */
  readonly clientKeyFile: string;
  /** The client certificate's subject as ZooKeeper's x509 provider names it. */
  readonly clientSubject: string;
  /** Reads one of the files above. */
  read(file: string): Buffer;
  /** Deletes the directory. Safe to call twice. */
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA (EC P-256, valid one day). */
function makeCa(dir: string, name: string, subject: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '1', '-subj', subject]);
}

/** A key and a certificate signed by `ca`, with the given extensions. */
function makeLeaf(dir: string, name: string, subject: string, ca: string, extensions: string): void {
  openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '1', '-extfile', `${name}.ext`]);
}

/** Makes the PKI (about 100 ms of openssl). */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'failout-pki-'));
  try {
    makeCa(dir, 'ca', '/CN=failout test CA');
    makeCa(dir, 'other-ca', '/CN=failout other CA');
    makeLeaf(dir, 'server', '/CN=localhost', 'ca', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    makeLeaf(dir, 'client', '/CN=failout-client', 'ca', 'extendedKeyUsage=clientAuth\n');
    writeFileSync(join(dir, 'server-keystore.pem'), Buffer.concat([readFileSync(join(dir, 'server.key')), readFileSync(join(dir, 'server.pem'))]));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    otherCaFile: join(dir, 'other-ca.pem'),
    serverKeyStoreFile: join(dir, 'server-keystore.pem'),
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client.key'),
    clientSubject: 'CN=failout-client',
    read: (file) => readFileSync(file),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
