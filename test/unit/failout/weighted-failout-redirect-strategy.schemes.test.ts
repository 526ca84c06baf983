import type { ClusterInfoSource, ClusterProperties, MergedUriProperties } from '../../../lib/d2';
import { FailoutClusterInfoProvider } from '../../../lib/failout/failout-cluster-info-provider';
import type { FailoutConfig, FailoutRequest } from '../../../lib/failout/types';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { clusterDoc } from '../../helpers/d2';
import { configOf } from './config-factories';

// The default strategy's peer eligibility by the service's schemes (issue 13): a peer takes a request
// only with a host the service would send to (its `prioritizedSchemes`), counted through the
// FailoutClusterInfoProvider by the host pick's own rule, so a peer with https hosts only cannot take
// an http service's request.

const NOW = 5_000;

/** Announced host URIs per cluster (weight 1 unless `uri*weight`), and banned URIs per cluster. */
function sourceOf(hosts: Record<string, string[]>, banned: Record<string, string[]> = {}): ClusterInfoSource {
  const uris = new Map<string, MergedUriProperties>();
  const clusters = new Map<string, ClusterProperties>();
  for (const [cluster, list] of Object.entries(hosts)) {
    clusters.set(cluster, clusterDoc(cluster, { bannedUris: banned[cluster] ?? [] }));
    uris.set(cluster, {
      clusterName: cluster,
      partitionDesc: {},
      uriSpecificProperties: {},
      hosts: list.map((spec) => {
        const [uri, weight] = spec.split('*');
        return { uri: uri!, weight: weight === undefined ? 1 : Number(weight), partitions: {}, properties: {} };
      }),
    });
  }
  return { getUris: (cluster) => uris.get(cluster), getClusterProperties: (cluster) => clusters.get(cluster) };
}

function request(schemes: readonly string[] | undefined): FailoutRequest {
  return { url: 'd2://greetings/hello', service: 'greetings', cluster: 'lor1', key: 'member-1', ...(schemes === undefined ? {} : { schemes }) };
}

function strategyOver(source: ClusterInfoSource, config: FailoutConfig, failClosed = false): WeightedFailoutRedirectStrategy {
  const view = new FailoutClusterInfoProvider(source, { getFailoutConfig: (cluster) => (cluster === config.cluster ? config : undefined) });
  return new WeightedFailoutRedirectStrategy({ view, now: () => NOW, failClosed });
}

const HTTPS_ONLY = ['https://lva1-a:443'];
const HTTP_ONLY = ['http://lva1-a:80'];
const BOTH = ['http://lva1-a:80', 'https://lva1-b:443'];

describe('WeightedFailoutRedirectStrategy eligibility by the service schemes', () => {
  it.each<[string, readonly string[] | undefined, string[], string]>([
    ['an http service, a peer with https hosts only: stays (fail open)', ['http'], HTTPS_ONLY, 'lor1'],
    ['an https service, a peer with https hosts only: moves', ['https'], HTTPS_ONLY, 'lva1'],
    ['an http service, a peer with http and https hosts: moves', ['http'], BOTH, 'lva1'],
    ['an https-then-http service, a peer with http hosts only: moves', ['https', 'http'], HTTP_ONLY, 'lva1'],
    ['an HTTP service (upper case), a peer with http hosts: moves', ['HTTP'], HTTP_ONLY, 'lva1'],
    ['a service listing no scheme, a peer with https hosts only: moves', [], HTTPS_ONLY, 'lva1'],
    ['a request without schemes, a peer with https hosts only: moves', undefined, HTTPS_ONLY, 'lva1'],
    ['an http service, a peer whose http host has weight 0: stays', ['http'], ['http://lva1-a:80*0', ...HTTPS_ONLY], 'lor1'],
    ['an h2c service, a peer with http and https hosts: stays', ['h2c'], BOTH, 'lor1'],
  ])('%s', (_what, schemes, peerHosts, expected) => {
    // Prepare
    const config = configOf('lor1', ['lva1']);
    const strategy = strategyOver(sourceOf({ lor1: HTTP_ONLY, lva1: peerHosts }), config);

    // Act
    const target = strategy.redirect(config, request(schemes));

    // Assess
    expect(target).toBe(expected);
    expect(strategy.stats().skipped).toEqual(expected === 'lor1' ? [{ cluster: 'lor1', peer: 'lva1', reason: 'noHosts', count: 1 }] : []);
  });

  it('does not count a banned host of the service scheme', () => {
    // Prepare
    const config = configOf('lor1', ['lva1']);
    const strategy = strategyOver(sourceOf({ lva1: BOTH }, { lva1: ['http://lva1-a:80'] }), config);

    // Act
    const targets = [strategy.redirect(config, request(['http'])), strategy.redirect(config, request(['https']))];

    // Assess
    expect(targets).toEqual(['lor1', 'lva1']);
  });

  it.each<[string, readonly string[], string]>([
    ['an http service', ['http'], 'ltx1'],
    ['an https service', ['https'], 'lva1'],
  ])('sends %s only to the peer that speaks its scheme', (_what, schemes, peer) => {
    // Prepare
    const config = configOf('lor1', [['lva1', 1], ['ltx1', 1]]);
    const strategy = strategyOver(sourceOf({ lva1: HTTPS_ONLY, ltx1: ['http://ltx1-a:80'] }), config);

    // Act
    const targets = new Set(Array.from({ length: 20 }, (_, i) => strategy.redirect(config, { ...request(schemes), key: `member-${i}` })));

    // Assess
    expect(targets).toEqual(new Set([peer]));
  });

  it('fails closed for an http service when the only peer has https hosts only, when configured to', () => {
    // Prepare
    const config = configOf('lor1', ['lva1']);
    const strategy = strategyOver(sourceOf({ lva1: HTTPS_ONLY }), config, true);

    // Act
    const run = (): string => strategy.redirect(config, request(['http']));

    // Assess
    expect(run).toThrow(expect.objectContaining({ name: 'FailoutError', kind: 'noEligiblePeer', cluster: 'lor1' }));
    expect(strategy.stats().noEligiblePeer).toEqual([{ cluster: 'lor1', outcome: 'failClosed', count: 1 }]);
  });
});
