import { findVirtualHost, selectServiceRoute } from '../../../lib/bridge/route-selection';
import type { Route, RouteConfiguration, VirtualHost } from '../../../lib/xds/resource-types';

function vh(name: string, domains: string[], routes: Route[] = [route('', name)]): VirtualHost {
  return { name, domains, routes };
}

function route(prefix: string, cluster: string): Route {
  return { match: { kind: 'prefix', prefix }, caseSensitive: true, action: { kind: 'cluster', cluster } };
}

describe('bridge route selection', () => {
  it.each<[string, string[], string]>([
    ['an exact domain over wildcards', ['*', '*.svc', 'greetings'], 'greetings'],
    ['the longest suffix wildcard', ['*', 'gr*', '*ings', '*etings'], '*etings'],
    ['a suffix wildcard over a prefix wildcard', ['*', 'greet*', '*ings'], '*ings'],
    ['a prefix wildcard over *', ['*', 'greet*'], 'greet*'],
    ['* last', ['other', '*'], '*'],
  ])('picks %s', (_name, domains, expected) => {
    const hosts = domains.map((d) => vh(d, [d]));
    expect(findVirtualHost(hosts, 'greetings')?.name).toBe(expected);
  });

  it('follows the catch-all route of the matching virtual host', () => {
    const config: RouteConfiguration = { name: 'r', virtualHosts: [vh('v', ['greetings'], [route('/admin', 'admin'), route('/', 'main')])] };
    expect(selectServiceRoute(config, 'greetings', (n) => n)).toEqual({ primary: 'main', clusters: [{ name: 'main', weight: 1 }] });
  });

  it('points the service at the heaviest of weighted clusters and keeps them all', () => {
    const weighted: Route = { match: { kind: 'prefix', prefix: '' }, caseSensitive: true, action: { kind: 'weightedClusters', clusters: [{ name: 'a', weight: 1 }, { name: 'b', weight: 3 }, { name: 'c', weight: 0 }] } };
    const config: RouteConfiguration = { name: 'r', virtualHosts: [vh('v', ['*'], [weighted])] };
    expect(selectServiceRoute(config, 'greetings', (n) => n.toUpperCase())).toEqual({ primary: 'B', clusters: [{ name: 'a', weight: 1 }, { name: 'b', weight: 3 }] });
  });

  it('gives nothing when no virtual host matches', () => {
    expect(selectServiceRoute({ name: 'r', virtualHosts: [vh('v', ['other'])] }, 'greetings', (n) => n)).toBeUndefined();
  });
});
