/**
 * The observer's boundaries: which resource names it serves (and watches), and its configuration
 * from the environment, refused with the variable at fault.
 */
import { loadObserverConfig, type ObserverError } from '../../../lib/observer';
import { targetOf } from '../../../lib/observer/resource-names';
import { indis } from '../../../lib/xds';

const { D2_NODE_TYPE_URL: NODE, D2_URI_MAP_TYPE_URL: URIS, D2_SYMLINK_NODE_TYPE_URL: LINK } = indis;

describe('resource names', () => {
  it.each([
    [NODE, '/d2/services/greetings', 'service'],
    [NODE, '/d2/clusters/greetings-lor1', 'cluster'],
    [URIS, '/d2/uris/greetings-lor1', 'uriMap'],
    [LINK, '/d2/clusters/$GreetingsMaster', 'symlink'],
    [NODE, '/d2/clusters/$GreetingsMaster', 'none'],
    [LINK, '/d2/uris/$GreetingsMaster', 'symlink'],
    // Only a leading `$` makes a link (rest.li SymlinkUtil), as the client reads it.
    [NODE, '/d2/clusters/greetings$lor1', 'cluster'],
    [LINK, '/d2/clusters/greetings$lor1', 'none'],
    [NODE, '/d2/uris/greetings-lor1', 'none'],
    [URIS, '/d2/uris/greetings-lor1/h1', 'none'],
    [NODE, '/failout/requests/r1', 'none'],
    [NODE, '/d2/clusters/..', 'none'],
    // Names ZooKeeper cannot hold: never sent to it (a NUL read fails for good, a path past its 1 MiB
    // packet limit drops the session), so they read as absent instead of holding a response back.
    [NODE, '/d2/clusters/a\u0000b', 'none'],
    [URIS, '/d2/uris/a\u0001b', 'none'],
    [LINK, '/d2/clusters/$a\ud800', 'none'],
    [NODE, `/d2/clusters/${'x'.repeat(1024)}`, 'cluster'],
    [NODE, `/d2/clusters/${'x'.repeat(1025)}`, 'none'],
    [NODE, '/d2x/clusters/a', 'none'],
    ['type.googleapis.com/envoy.config.cluster.v3.Cluster', '/d2/clusters/a', 'none'],
  ])('%s %s is %s', (typeUrl, name, kind) => {
    expect(targetOf(typeUrl, name, '/d2').kind).toBe(kind);
  });
});

describe('loadObserverConfig', () => {
  it('reads the defaults: loopback everywhere, /d2, no token', () => {
    const config = loadObserverConfig({ ZK_CONNECT: 'zk1:2181' });

    expect(config).toMatchObject({ basePath: '/d2', grpc: { host: '127.0.0.1' }, admin: { host: '127.0.0.1', token: undefined }, lingerMs: 10_000, zookeeper: { connectString: 'zk1:2181', tls: undefined } });
  });

  it.each([
    [{}, 'ZK_CONNECT'],
    [{ ZK_CONNECT: 'zk:1', D2_BASE_PATH: 'd2' }, 'D2_BASE_PATH'],
    [{ ZK_CONNECT: 'zk:1', OBSERVER_GRPC_PORT: '70000' }, 'OBSERVER_GRPC_PORT'],
    [{ ZK_CONNECT: 'zk:1', OBSERVER_LINGER_MS: '-1' }, 'OBSERVER_LINGER_MS'],
    [{ ZK_CONNECT: 'zk:1', OBSERVER_ADMIN_HOST: '0.0.0.0' }, 'admin.token'],
    [{ ZK_CONNECT: 'zk:1', OBSERVER_ADMIN_TOKEN: 'short' }, 'admin.token'],
  ])('refuses %j naming %s', (env, field) => {
    let error: ObserverError | undefined;
    try {
      loadObserverConfig(env);
    } catch (e) {
      error = e as ObserverError;
    }

    expect([error?.kind, error?.field]).toEqual(['config', field]);
  });

  it('binds the admin HTTP off loopback with a strong token', () => {
    const token = 'x'.repeat(32);

    expect(loadObserverConfig({ ZK_CONNECT: 'zk:1', OBSERVER_ADMIN_HOST: '0.0.0.0', OBSERVER_ADMIN_TOKEN: token }).admin).toEqual({ host: '0.0.0.0', port: 9901, token });
  });
});
