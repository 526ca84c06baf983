import { parseBridgeConfig } from '../../../lib/bridge/config';
import type { EntityKey } from '../../../lib/bridge/model';
import { XdsResolver } from '../../../lib/bridge/resolver';
import { entityTarget } from '../../../lib/bridge/targets';
import type { XdsClient } from '../../../lib/xds/client';
import { XdsError } from '../../../lib/xds/errors';
import type { Cluster, ClusterLoadAssignment, Listener, RouteConfiguration } from '../../../lib/xds/resource-types';
import type { XdsWatcher } from '../../../lib/xds/watcher';

/** A fake XdsClient: records watches and lets the test deliver events synchronously. */
class FakeClient {
  readonly watchers = new Map<string, XdsWatcher<unknown>>();
  watch(kind: string, name: string, watcher: XdsWatcher<unknown>): () => void {
    const key = `${kind}/${name}`;
    this.watchers.set(key, watcher);
    return () => this.watchers.delete(key);
  }
  watched(kind: string): string[] {
    return [...this.watchers.keys()].filter((k) => k.startsWith(`${kind}/`)).map((k) => k.slice(kind.length + 1));
  }
  update(kind: string, name: string, value: unknown): void {
    this.get(kind, name).onUpdate(value, () => undefined);
  }
  missing(kind: string, name: string): void {
    this.get(kind, name).onResourceDoesNotExist(() => undefined);
  }
  error(kind: string, name: string, ambient: boolean): void {
    this.get(kind, name).onError(new XdsError('connection', 'down'), { ambient }, () => undefined);
  }
  private get(kind: string, name: string): XdsWatcher<unknown> {
    const w = this.watchers.get(`${kind}/${name}`);
    if (!w) throw new Error(`no watch on ${kind}/${name}`);
    return w;
  }
}

const listener = (name: string, routeConfigName: string): Listener => ({ name, routeConfig: { source: 'rds', routeConfigName }, httpFilters: [] });
const routeTo = (name: string, cluster: string): RouteConfiguration => ({
  name,
  virtualHosts: [{ name: 'vh', domains: ['*'], routes: [{ match: { kind: 'prefix', prefix: '' }, caseSensitive: true, action: { kind: 'cluster', cluster } }] }],
});
const cluster = (name: string, edsServiceName: string): Cluster => ({ name, discoveryType: 'EDS', edsServiceName, lbPolicy: 'ROUND_ROBIN', lrs: 'none' });
const cla = (name: string, ports: number[]): ClusterLoadAssignment => ({
  name,
  localities: [{ locality: { region: '', zone: '', subZone: '' }, weight: 1, priority: 0, endpoints: ports.map((port) => ({ address: '10.0.0.1', port, healthStatus: 'HEALTHY' as const, weight: 1 })) }],
});

const config = parseBridgeConfig({
  bootstrap: { xds_servers: [{ server_uri: 'x:1', channel_creds: [{ type: 'insecure' }] }] },
  services: ['greetings'],
  zookeeper: { connectString: 'zk:2181' },
  deletionGraceMs: 1000,
});

describe('bridge resolver and targets', () => {
  let client: FakeClient;
  let resolver: XdsResolver;
  let changes: EntityKey[];

  beforeEach(() => {
    client = new FakeClient();
    changes = [];
    resolver = new XdsResolver({ client: client as unknown as XdsClient, services: config.services, onChange: (keys) => changes.push(...keys) });
    resolver.start();
  });

  function resolveChain(): void {
    client.update('listener', 'greetings', listener('greetings', 'r1'));
    client.update('routeConfiguration', 'r1', routeTo('r1', 'c1'));
    client.update('cluster', 'c1', cluster('c1', 'c1-eds'));
    client.update('clusterLoadAssignment', 'c1-eds', cla('c1-eds', [80, 81]));
  }

  const target = (key: EntityKey, now = Date.now()) => entityTarget(key, resolver, config, now);

  it('follows LDS → RDS → CDS → EDS and targets every entity', () => {
    expect(target('service:greetings').kind).toBe('keep');
    resolveChain();
    expect(client.watched('clusterLoadAssignment')).toEqual(['c1-eds']);
    expect(target('service:greetings').kind).toBe('node');
    expect(target('cluster:c1').kind).toBe('node');
    const uris = target('uris:c1');
    expect(uris.kind === 'uris' && [...uris.children.keys()]).toEqual(['xds-bridge-10.0.0.1-80', 'xds-bridge-10.0.0.1-81']);
    expect(resolver.isWarm()).toBe(true);
    expect(new Set(changes)).toEqual(new Set(['service:greetings', 'cluster:c1', 'uris:c1']));
  });

  it('moves its watches when the route changes, and withdraws the old cluster’s endpoints once the new cluster is in', () => {
    resolveChain();
    client.update('listener', 'greetings', listener('greetings', 'r2'));
    expect(client.watched('routeConfiguration')).toEqual(['r2']);
    client.update('routeConfiguration', 'r2', routeTo('r2', 'c2'));
    expect(client.watched('cluster')).toEqual(['c1', 'c2']);
    client.update('cluster', 'c2', cluster('c2', 'c2-eds'));
    client.update('clusterLoadAssignment', 'c2-eds', cla('c2-eds', [90]));
    expect(client.watched('cluster')).toEqual(['c2']);
    expect(client.watched('clusterLoadAssignment')).toEqual(['c2-eds']);
    const old = target('uris:c1');
    expect(old.kind === 'uris' && old.children.size).toBe(0);
    expect(target('cluster:c1').kind).toBe('keep');
  });

  it('keeps the service on its cluster, with its endpoints, until the cluster a new route names has its CDS and EDS (gRFC A74)', () => {
    // Prepare
    resolveChain();
    const clusterNameOf = (): string | undefined => {
      const t = target('service:greetings');
      return t.kind === 'node' ? (JSON.parse(t.render(undefined) ?? '{}') as { clusterName?: string }).clusterName : undefined;
    };
    const endpoints = (name: string): number | false => {
      const t = target(`uris:${name}` as EntityKey);
      return t.kind === 'uris' && t.children.size;
    };

    // Act 1: the route moves to c2, whose CDS and then EDS arrive later
    client.update('routeConfiguration', 'r1', routeTo('r1', 'c2'));
    const named = [clusterNameOf()];
    client.update('cluster', 'c2', cluster('c2', 'c2-eds'));
    named.push(clusterNameOf());
    const c1Before = endpoints('c1');
    changes = [];
    client.update('clusterLoadAssignment', 'c2-eds', cla('c2-eds', [90]));

    // Assess 1: c1 named with its endpoints until c2 is whole; then c2, and c1 withdrawn
    expect(named).toEqual(['c1', 'c1']);
    expect(c1Before).toBe(2);
    expect(clusterNameOf()).toBe('c2');
    expect(endpoints('c1')).toBe(0);
    expect(changes).toEqual(expect.arrayContaining(['service:greetings', 'uris:c1', 'uris:c2']));

    // Act 2: a route to a cluster the control plane does not have
    client.update('routeConfiguration', 'r1', routeTo('r1', 'c3'));
    client.missing('cluster', 'c3');

    // Assess 2: the last good route stays, endpoints included
    expect(clusterNameOf()).toBe('c2');
    expect(endpoints('c2')).toBe(1);
    expect(resolver.service('greetings')?.route.state).toBe('resolved');
  });

  it('keeps everything on connectivity errors, ambient or not', () => {
    resolveChain();
    changes = [];
    client.error('listener', 'greetings', true);
    client.error('clusterLoadAssignment', 'c1-eds', false);
    expect(changes).toEqual([]);
    expect(target('uris:c1').kind).toBe('uris');
    expect(resolver.service('greetings')?.lastError).toContain('down');
  });

  it('removes a service that does not exist only after the grace period, with its endpoints', () => {
    resolveChain();
    const t = Date.now();
    client.missing('listener', 'greetings');
    expect(target('service:greetings', t + 10)).toEqual({ kind: 'keep', recheckAt: expect.any(Number) });
    expect(target('uris:c1', t + 10).kind).toBe('keep');
    expect(target('service:greetings', t + 2000)).toEqual({ kind: 'absent' });
    const gone = target('uris:c1', t + 2000);
    expect(gone.kind === 'uris' && gone.children.size).toBe(0);
    expect(target('cluster:c1', t + 2000).kind).toBe('node');
  });

  it('comes back from does-not-exist with its last route, without losing its cluster', () => {
    resolveChain();
    client.missing('listener', 'greetings');
    client.update('listener', 'greetings', listener('greetings', 'r1'));
    // (the xDS client does not repeat the unchanged route configuration)
    expect(target('service:greetings').kind).toBe('node');
    expect(target('uris:c1').kind).toBe('uris');
    expect(client.watched('cluster')).toEqual(['c1']);
  });

  it('keeps a service whose listener does not exist gone when its route configuration changes meanwhile (gRPC drops the route with the listener)', () => {
    resolveChain();
    const t = Date.now();
    client.missing('listener', 'greetings');
    client.update('routeConfiguration', 'r1', routeTo('r1', 'c2'));
    expect(resolver.service('greetings')?.route.state).toBe('doesNotExist');
    expect(target('service:greetings', t + 2000)).toEqual({ kind: 'absent' });
    // Back with the listener: the route heard meanwhile is the one used (once its cluster is in, gRFC A74).
    client.update('listener', 'greetings', listener('greetings', 'r1'));
    expect(target('service:greetings').kind).toBe('node');
    expect(client.watched('cluster')).toEqual(['c1', 'c2']);
    client.update('cluster', 'c2', cluster('c2', 'c2-eds'));
    client.update('clusterLoadAssignment', 'c2-eds', cla('c2-eds', [90]));
    const service = target('service:greetings');
    expect(service.kind === 'node' && (JSON.parse(service.render(undefined) ?? '{}') as { clusterName?: string }).clusterName).toBe('c2');
    expect(client.watched('cluster')).toEqual(['c2']);
  });

  it('removes the endpoints of a cluster whose EDS does not exist only after the grace period', () => {
    resolveChain();
    const t = Date.now();
    client.missing('clusterLoadAssignment', 'c1-eds');
    expect(target('uris:c1', t + 10).kind).toBe('keep');
    const gone = target('uris:c1', t + 2000);
    expect(gone.kind === 'uris' && gone.children.size).toBe(0);
  });
});
