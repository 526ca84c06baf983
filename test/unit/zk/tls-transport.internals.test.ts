import { readFileSync } from 'node:fs';
import { createClient, type Client } from 'node-zookeeper-client';
import pino from 'pino';
import { isZkError } from '../../../lib/zk';
import { connectionManagerOf, describeTlsFailure, installTlsTransport } from '../../../lib/zk/tls-transport';

// lib/zk/tls-transport.ts replaces one client's ConnectionManager.connect with a TLS copy of
// node-zookeeper-client 1.1.3's. These tests pin what that copy relies on, so that an upgrade of the
// client fails here, loudly, instead of quietly misbehaving (or talking plain text) in production.

const silent = pino({ level: 'silent' });

/** 1.1.3's ConnectionManager.prototype.connect, whitespace collapsed: the code tls-transport.ts copies. */
const CONNECT_1_1_3 =
  'function () { var self = this; self.setState(STATES.CONNECTING); self.findNextServer(function (server) { ' +
  'self.socket = net.connect(server); self.connectTimeoutHandler = setTimeout( self.onSocketConnectTimeout.bind(self), self.connectTimeout ); ' +
  '// Disable the Nagle algorithm. self.socket.setNoDelay(); ' +
  "self.socket.on('connect', self.onSocketConnected.bind(self)); self.socket.on('data', self.onSocketData.bind(self)); " +
  "self.socket.on('drain', self.onSocketDrain.bind(self)); self.socket.on('close', self.onSocketClosed.bind(self)); " +
  "self.socket.on('error', self.onSocketError.bind(self)); }); }";

function managerPrototype(client: Client): Record<string, unknown> {
  const manager = (client as unknown as { connectionManager: object }).connectionManager;
  return Object.getPrototypeOf(manager) as Record<string, unknown>;
}

describe('node-zookeeper-client internals the TLS transport depends on', () => {
  it('is version 1.1.3 exactly (package.json pins it; an upgrade must re-check tls-transport.ts)', () => {
    // Act
    const pkg = JSON.parse(readFileSync(require.resolve('node-zookeeper-client/package.json'), 'utf8')) as { version: string };

    // Assess
    expect(pkg.version).toBe('1.1.3');
  });

  it('has the connect() that tls-transport.ts copies, word for word', () => {
    // Prepare
    const connect = managerPrototype(createClient('127.0.0.1:1')).connect as () => void;

    // Act
    const body = connect.toString().replace(/\s+/g, ' ');

    // Assess
    expect(body).toBe(CONNECT_1_1_3);
  });

  it('has every method and state the transport uses', () => {
    // Act
    const { manager, states } = connectionManagerOf(createClient('127.0.0.1:1'));

    // Assess
    expect(states).toEqual({ CONNECTING: 1, CLOSING: -1 });
    expect(typeof manager.connectTimeout).toBe('number');
    expect(manager.state).toBe(0);
  });

  it('refuses, with a tls ZkError, a client whose manager lacks those internals (never a plain-text fallback)', () => {
    // Prepare
    const fake = { connectionManager: { connect: () => undefined } } as unknown as Client;

    // Act
    const install = (): unknown => installTlsTransport(fake, {}, silent);

    // Assess
    expect(install).toThrow(expect.objectContaining({ kind: 'tls', message: expect.stringContaining('internals changed') }));
    let thrown: unknown;
    try {
      install();
    } catch (err) {
      thrown = err;
    }
    expect(isZkError(thrown, 'tls')).toBe(true);
  });

  it('patches only the client it is given: the prototype and other clients keep net.connect', () => {
    // Prepare
    const patched = createClient('127.0.0.1:1');
    const other = createClient('127.0.0.1:1');
    const prototypeConnect = managerPrototype(patched).connect;

    // Act
    installTlsTransport(patched, {}, silent);

    // Assess
    const own = (client: Client): Record<string, unknown> => (client as unknown as { connectionManager: Record<string, unknown> }).connectionManager;
    expect(Object.prototype.hasOwnProperty.call(own(patched), 'connect')).toBe(true);
    expect(own(patched).connect).not.toBe(prototypeConnect);
    expect(managerPrototype(patched).connect).toBe(prototypeConnect);
    expect(Object.prototype.hasOwnProperty.call(own(other), 'connect')).toBe(false);
    expect(own(other).connect).toBe(prototypeConnect);
  });

  it('describes a failure with the server, the reason and the code', () => {
    // Act
    const text = describeTlsFailure({ server: 'zk1:2182', phase: 'tls', code: 'SELF_SIGNED_CERT_IN_CHAIN', reason: 'self-signed certificate in certificate chain', attempts: 1, error: new Error('x') });

    // Assess
    expect(text).toBe('TLS handshake with zk1:2182 failed: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)');
  });
});
