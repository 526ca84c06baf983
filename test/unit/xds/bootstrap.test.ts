/** Bootstrap parsing: gRFC A27 / A47 / A71 rules, our "failout" extensions, and errors naming fields. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  channelCredentials,
  DEFAULT_FALLBACK_PROBE_CAP_MS,
  DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS,
  loadBootstrap,
  loadBootstrapFromEnv,
  nodeMessage,
  parseBootstrap,
  parseBootstrapJson,
  readBootstrapFile,
  serversFor,
} from '../../../lib/xds/bootstrap';
import { XdsError } from '../../../lib/xds/errors';
import { loadXdsProtos } from '../../../lib/xds/protos';

const server = (uri: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  server_uri: uri,
  channel_creds: [{ type: 'insecure' }],
  ...extra,
});
const minimal = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  xds_servers: [server('primary:1'), server('secondary:2')],
  node: { id: 'n1', cluster: 'c1', locality: { region: 'r', zone: 'z', sub_zone: 's' }, metadata: { k: 'v' } },
  ...extra,
});

function bootstrapErrorOf(fn: () => unknown): XdsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof XdsError) return e;
    throw e;
  }
  throw new Error('expected an XdsError');
}

describe('parseBootstrap', () => {
  it('keeps xds_servers in priority order with their features', () => {
    const b = parseBootstrap(minimal({ xds_servers: [server('a:1', { server_features: ['ignore_resource_deletion'] }), server('b:2')] }));

    expect(b.xdsServers.map((s) => s.serverUri)).toEqual(['a:1', 'b:2']);
    expect(b.xdsServers.map((s) => s.ignoreResourceDeletion)).toEqual([true, false]);
    expect(b.xdsServers[1]!.field).toBe('xds_servers[1]');
  });

  it('reads node id, cluster, locality and metadata', () => {
    expect(parseBootstrap(minimal()).node).toEqual({
      id: 'n1',
      cluster: 'c1',
      locality: { region: 'r', zone: 'z', subZone: 's' },
      metadata: { k: 'v' },
    });
  });

  it('picks the first supported channel_creds entry', () => {
    const b = parseBootstrap(
      minimal({
        xds_servers: [
          server('a:1', { channel_creds: [{ type: 'google_default' }, { type: 'tls', config: { ca_certificate_file: '/ca.pem' } }, { type: 'insecure' }] }),
        ],
      }),
    );

    expect(b.xdsServers[0]!.channelCreds).toEqual({ type: 'tls', caCertificateFile: '/ca.pem', certificateFile: undefined, privateKeyFile: undefined });
  });

  it('skips an unsupported channel_creds entry without reading its config, and uses the next supported one (A27)', () => {
    const b = parseBootstrap(minimal({ xds_servers: [server('a:1', { channel_creds: [{ type: 'vendor_y', config: { certificate_file: 7 } }, { type: 'insecure' }] })] }));

    expect(b.xdsServers[0]!.channelCreds).toEqual({ type: 'insecure' });
  });

  it('does not read the channel_creds entries after the chosen one (A27)', () => {
    const b = parseBootstrap(minimal({ xds_servers: [server('a:1', { channel_creds: [{ type: 'insecure' }, { type: 'tls', config: { ca_certificate_file: 5 } }] })] }));

    expect(b.xdsServers[0]!.channelCreds).toEqual({ type: 'insecure' });
  });

  it("validates the chosen entry's config and names its field", () => {
    const patch = { xds_servers: [server('a:1', { channel_creds: [{ type: 'vendor_y' }, { type: 'tls', config: { certificate_file: 7 } }] })] };

    const error = bootstrapErrorOf(() => parseBootstrap(minimal(patch)));

    expect(error.field).toBe('xds_servers[0].channel_creds[1].config.certificate_file');
  });

  it.each([
    ['another authority', 'xdstp://b/envoy.config.listener.v3.Listener/%s'],
    ['an authority whose name only starts with this one', 'xdstp://ab/envoy.config.listener.v3.Listener/%s'],
    ['the empty authority', 'xdstp:///envoy.config.listener.v3.Listener/%s'],
    ['an old-style name', '%s'],
  ])('rejects a client_listener_resource_name_template naming %s (A47: must start with xdstp://<authority>/)', (_label, template) => {
    const error = bootstrapErrorOf(() => parseBootstrap(minimal({ authorities: { a: { client_listener_resource_name_template: template } } })));

    expect(error.kind).toBe('bootstrap');
    expect(error.field).toBe('authorities.a.client_listener_resource_name_template');
    expect(error.message).toContain('must start with "xdstp://a/"');
  });

  it("accepts a template of the authority's own name and defaults to one, for the empty authority too", () => {
    const b = parseBootstrap(
      minimal({ authorities: { a: { client_listener_resource_name_template: 'xdstp://a/custom/%s' }, '': {} } }),
    );

    expect(b.authorities.a!.clientListenerResourceNameTemplate).toBe('xdstp://a/custom/%s');
    expect(b.authorities['']!.clientListenerResourceNameTemplate).toBe('xdstp:///envoy.config.listener.v3.Listener/%s');
    expect(
      bootstrapErrorOf(() => parseBootstrap(minimal({ authorities: { '': { client_listener_resource_name_template: 'xdstp://a/l/%s' } } }))).field,
    ).toBe('authorities[""].client_listener_resource_name_template');
  });

  it('keeps the authority named "" apart from the top-level servers (A47 xdstp:/// names)', () => {
    const b = parseBootstrap(minimal({ authorities: { '': { xds_servers: [server('empty:9')] } } }));

    expect(serversFor(b, '').map((s) => s.serverUri)).toEqual(['empty:9']);
    expect(serversFor(b).map((s) => s.serverUri)).toEqual(['primary:1', 'secondary:2']);
  });

  it.each([
    ['absent', undefined],
    ['empty', []],
  ])('gives an authority whose xds_servers is %s the top-level list', (_label, list) => {
    const b = parseBootstrap(minimal({ authorities: { auth: list === undefined ? {} : { xds_servers: list } } }));

    expect(b.authorities.auth!.xdsServers.map((s) => s.serverUri)).toEqual(['primary:1', 'secondary:2']);
  });

  it("uses an authority's own xds_servers when given", () => {
    const b = parseBootstrap(minimal({ authorities: { auth: { xds_servers: [server('auth:9')] } } }));

    expect(serversFor(b, 'auth').map((s) => s.serverUri)).toEqual(['auth:9']);
    expect(b.authorities.auth!.xdsServers[0]!.field).toBe('authorities.auth.xds_servers[0]');
    expect(serversFor(b).map((s) => s.serverUri)).toEqual(['primary:1', 'secondary:2']);
  });

  it('gives the same channel key to identical servers and different keys when a known feature differs', () => {
    const b = parseBootstrap(
      minimal({
        xds_servers: [server('a:1'), server('a:1', { server_features: ['ignore_resource_deletion'] })],
        authorities: { x: { xds_servers: [server('a:1', { server_features: ['unknown_feature'] })] } },
      }),
    );

    expect(b.xdsServers[0]!.key).not.toBe(b.xdsServers[1]!.key);
    expect(b.authorities.x!.xdsServers[0]!.key).toBe(b.xdsServers[0]!.key);
  });

  it('applies defaults for the failout extensions and reads them when given', () => {
    expect(parseBootstrap(minimal()).failout).toEqual({
      fallbackProbeCapMs: DEFAULT_FALLBACK_PROBE_CAP_MS,
      resourceDoesNotExistTimeoutMs: DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS,
      fallback: true,
    });
    const b = parseBootstrap(minimal({ failout: { fallbackProbeCapMs: 250, resourceDoesNotExistTimeoutMs: 900, fallback: false } }));
    expect(b.failout).toEqual({ fallbackProbeCapMs: 250, resourceDoesNotExistTimeoutMs: 900, fallback: false });
  });

  it('uses only the first server of each list when fallback is disabled (config or env)', () => {
    const byConfig = parseBootstrap(minimal({ failout: { fallback: false }, authorities: { a: { xds_servers: [server('x:1'), server('y:2')] } } }));
    const byEnv = parseBootstrap(minimal(), { GRPC_EXPERIMENTAL_XDS_FALLBACK: 'false' });

    expect(serversFor(byConfig).map((s) => s.serverUri)).toEqual(['primary:1']);
    expect(serversFor(byConfig, 'a').map((s) => s.serverUri)).toEqual(['x:1']);
    expect(serversFor(byEnv)).toHaveLength(1);
  });

  it.each<[string, boolean, string | undefined]>([
    ['unset', true, undefined],
    ['"false"', false, 'false'],
    ['"FALSE"', false, 'FALSE'],
    ['" False "', false, ' False '],
    ['"true"', true, 'true'],
    ['empty', true, ''],
    ['"0"', true, '0'],
  ])('GRPC_EXPERIMENTAL_XDS_FALLBACK %s gives fallback %s: on unless "false", as grpc-go >= 1.70 and Java >= 1.71', (_label, on, value) => {
    const b = parseBootstrap(minimal(), value === undefined ? {} : { GRPC_EXPERIMENTAL_XDS_FALLBACK: value });

    expect(b.failout.fallback).toBe(on);
    expect(serversFor(b)).toHaveLength(on ? 2 : 1);
  });

  it('lets failout.fallback in the bootstrap win over GRPC_EXPERIMENTAL_XDS_FALLBACK', () => {
    const env = { GRPC_EXPERIMENTAL_XDS_FALLBACK: 'false' };

    expect(parseBootstrap(minimal({ failout: { fallback: true } }), env).failout.fallback).toBe(true);
    expect(parseBootstrap(minimal({ failout: { fallback: false } }), {}).failout.fallback).toBe(false);
  });

  it('ignores unknown top-level keys, as gRPC does', () => {
    expect(() => parseBootstrap(minimal({ certificate_providers: {}, something_new: 1 }))).not.toThrow();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['missing xds_servers', { xds_servers: undefined }, 'xds_servers'],
    ['empty xds_servers', { xds_servers: [] }, 'xds_servers'],
    ['a server without server_uri', { xds_servers: [server('a:1'), { channel_creds: [{ type: 'insecure' }] }] }, 'xds_servers[1].server_uri'],
    ['an empty server_uri', { xds_servers: [server('')] }, 'xds_servers[0].server_uri'],
    ['no channel_creds', { xds_servers: [{ server_uri: 'a:1', channel_creds: [] }] }, 'xds_servers[0].channel_creds'],
    ['no supported channel_creds', { xds_servers: [server('a:1', { channel_creds: [{ type: 'google_default' }] })] }, 'xds_servers[0].channel_creds'],
    ['tls cert without key', { xds_servers: [server('a:1', { channel_creds: [{ type: 'tls', config: { certificate_file: '/c' } }] })] }, 'xds_servers[0].channel_creds'],
    ['server_features not strings', { xds_servers: [server('a:1', { server_features: [1] })] }, 'xds_servers[0].server_features[0]'],
    ['an authority server without uri', { authorities: { au: { xds_servers: [{ channel_creds: [] }] } } }, 'authorities.au.xds_servers[0].server_uri'],
    ['node.id not a string', { node: { id: 7 } }, 'node.id'],
    ['a misspelled failout key', { failout: { fallbackProbeCap: 1 } }, 'failout'],
    ['a non-positive fallbackProbeCapMs', { failout: { fallbackProbeCapMs: 0 } }, 'failout.fallbackProbeCapMs'],
  ])('rejects %s naming the field', (_label, patch, field) => {
    const error = bootstrapErrorOf(() => parseBootstrap(minimal(patch)));

    expect(error.kind).toBe('bootstrap');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('says what it expected and what it got', () => {
    expect(bootstrapErrorOf(() => parseBootstrap(minimal({ node: { id: 7 } }))).message).toBe('invalid xDS bootstrap: node.id: expected a string, got number');
    expect(bootstrapErrorOf(() => parseBootstrap(minimal({ xds_servers: [] }))).message).toContain('expected at least 1 item');
    expect(bootstrapErrorOf(() => parseBootstrap(minimal({ failout: { fallbackProbeCap: 1 } }))).message).toContain('unrecognized keys (fallbackProbeCap)');
    expect(bootstrapErrorOf(() => parseBootstrap(minimal({ failout: { fallbackProbeCapMs: 1.5 } }))).message).toContain('expected a positive integer, got 1.5');
    expect(bootstrapErrorOf(() => parseBootstrap(minimal({ authorities: { a: [] } }))).field).toBe('authorities.a');
  });

  it('rejects a non-object bootstrap', () => {
    expect(bootstrapErrorOf(() => parseBootstrap('nope')).kind).toBe('bootstrap');
  });
});

describe('bootstrap sources', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'xds-bootstrap-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file', () => {
    const file = path.join(dir, 'b.json');
    writeFileSync(file, JSON.stringify(minimal()));

    expect(readBootstrapFile(file).xdsServers).toHaveLength(2);
    expect(loadBootstrap({ file }).node.id).toBe('n1');
  });

  it('reports an unreadable file and invalid JSON as bootstrap errors', () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');

    expect(bootstrapErrorOf(() => readBootstrapFile(path.join(dir, 'missing.json'))).kind).toBe('bootstrap');
    expect(bootstrapErrorOf(() => readBootstrapFile(bad)).message).toContain('not valid JSON');
    expect(bootstrapErrorOf(() => parseBootstrapJson('[')).kind).toBe('bootstrap');
  });

  it('never quotes invalid bootstrap JSON in its error, which may hold credentials', () => {
    // Prepare: V8 quotes the text around an unexpected token ("…"{"token": sekrit-tok"… is not valid JSON")
    const text = '{"xds_servers": [{"server_uri": "cp:443", "channel_creds": [{"type": "tls", "config": {"token": sekrit-token}}]}]}';

    // Act
    const error = bootstrapErrorOf(() => parseBootstrapJson(text, 'GRPC_XDS_BOOTSTRAP_CONFIG'));

    // Assess: where, never what (nor in a cause a logger would print)
    expect(error.message).toContain('GRPC_XDS_BOOTSTRAP_CONFIG is not valid JSON');
    let shown = '';
    for (let e: unknown = error; e instanceof Error; e = e.cause) shown += `${e.message} ${e.stack ?? ''}`;
    expect(shown).not.toContain('sekrit');
  });

  it('prefers GRPC_XDS_BOOTSTRAP (a path) over GRPC_XDS_BOOTSTRAP_CONFIG (JSON)', () => {
    const file = path.join(dir, 'b.json');
    writeFileSync(file, JSON.stringify(minimal({ node: { id: 'from-file' } })));
    const config = JSON.stringify(minimal({ node: { id: 'from-config' } }));

    expect(loadBootstrapFromEnv({ GRPC_XDS_BOOTSTRAP: file, GRPC_XDS_BOOTSTRAP_CONFIG: config }).node.id).toBe('from-file');
    expect(loadBootstrapFromEnv({ GRPC_XDS_BOOTSTRAP_CONFIG: config }).node.id).toBe('from-config');
    expect(loadBootstrap({ env: { GRPC_XDS_BOOTSTRAP_CONFIG: config } }).node.id).toBe('from-config');
    expect(bootstrapErrorOf(() => loadBootstrapFromEnv({})).kind).toBe('bootstrap');
  });

  it('reads GRPC_EXPERIMENTAL_XDS_FALLBACK from the same environment as the bootstrap', () => {
    const config = JSON.stringify(minimal());

    expect(loadBootstrap({ env: { GRPC_XDS_BOOTSTRAP_CONFIG: config } }).failout.fallback).toBe(true);
    expect(loadBootstrap({ env: { GRPC_XDS_BOOTSTRAP_CONFIG: config, GRPC_EXPERIMENTAL_XDS_FALLBACK: 'false' } }).failout.fallback).toBe(false);
  });

  it('builds insecure credentials, and TLS credentials from files', () => {
    const ca = path.join(dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
    const b = parseBootstrap(
      minimal({ xds_servers: [server('a:1'), server('b:2', { channel_creds: [{ type: 'tls', config: { ca_certificate_file: ca } }] })] }),
    );

    expect(channelCredentials(b.xdsServers[0]!)._isSecure()).toBe(false);
    expect(channelCredentials(b.xdsServers[1]!)).toBeInstanceOf(grpc.ChannelCredentials);
    expect(channelCredentials(b.xdsServers[1]!)._isSecure()).toBe(true);
  });

  it('names the credential file field when it cannot be read', () => {
    const b = parseBootstrap(minimal({ xds_servers: [server('a:1', { channel_creds: [{ type: 'tls', config: { ca_certificate_file: path.join(dir, 'nope.pem') } }] })] }));

    expect(bootstrapErrorOf(() => channelCredentials(b.xdsServers[0]!)).field).toBe('xds_servers[0].channel_creds.config.ca_certificate_file');
  });
});

describe('nodeMessage', () => {
  it('converts locality and metadata to the Node message with client features', () => {
    const node = nodeMessage(parseBootstrap(minimal()).node);

    expect(node).toMatchObject({
      id: 'n1',
      cluster: 'c1',
      locality: { region: 'r', zone: 'z', sub_zone: 's' },
      metadata: { fields: { k: { stringValue: 'v' } } },
      client_features: ['envoy.lb.does_not_support_overprovisioning', 'xds.config.resource-in-sotw'],
    });
  });

  it('keeps every metadata value kind through the wire encoding (google.protobuf.Value uses its JSON names)', () => {
    // Prepare: metadata of every Value kind
    const metadata = { s: 'v', n: 1.5, b: true, nil: null, list: ['a', 2], nested: { deep: 'x' } };
    const node = nodeMessage(parseBootstrap({ ...minimal(), node: { id: 'n1', cluster: 'c1', metadata } }).node);
    const type = loadXdsProtos().resourceRoot.lookupType('envoy.config.core.v3.Node');

    // Act: what the management server receives
    const decoded = type.toObject(type.decode(type.encode(type.fromObject(node)).finish()), { defaults: false }) as {
      metadata: { fields: Record<string, Record<string, unknown>> };
    };

    // Assess
    expect(decoded.metadata.fields).toEqual({
      s: { stringValue: 'v' },
      n: { numberValue: 1.5 },
      b: { boolValue: true },
      nil: { nullValue: 0 },
      list: { listValue: { values: [{ stringValue: 'a' }, { numberValue: 2 }] } },
      nested: { structValue: { fields: { deep: { stringValue: 'x' } } } },
    });
  });
});
