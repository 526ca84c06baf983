import { Readable } from 'node:stream';
import { Registry } from 'prom-client';
import type { ClusterRouter, D2RequestInit, D2Response, D2Target, ServiceProperties } from '../../../lib/d2';
import { FailoutError } from '../../../lib/failout/errors';
import { FailoutClient, type FailoutClientOptions, type FailoutDelegate } from '../../../lib/failout/failout-client';
import type { FailoutConfig, FailoutRedirectStrategy, FailoutRequest } from '../../../lib/failout/types';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { serviceDoc } from '../../helpers/d2';
import { capturingLogger } from '../../helpers/logging';
import { configOf, viewOf } from './config-factories';
import { deferred, flush } from './fakes';

// FailoutClient as the ClusterRouter of a fake delegate: rest.li FailoutClientTest's cases plus the weak
// spots it fixes. Parsing the URL and looking the service up now belong to D2Client (asserted in
// test/unit/d2/d2-client.routed.test.ts); here the delegate does them as D2Client does and asks the
// client for the cluster.

/** The service every request names: `greetings` in cluster `foo`, http only. */
const SERVICE: ServiceProperties = serviceDoc('greetings', 'foo', '/greetings');

interface Sent {
  kind: 'request' | 'resolve';
  /** What the router answered: undefined keeps the service cluster. */
  route: string | undefined;
  url: string;
  init: D2RequestInit | undefined;
  key: string | undefined;
}

/**
 * Does what D2Client's routed path does, minus the network: the service is `greetings`, the router is
 * asked once and awaited, and its error rejects before anything is sent. Records every send; `fail`
 * makes sends reject after they are recorded.
 */
function fakeDelegate(fail?: Error): FailoutDelegate & { sent: Sent[]; closed: number } {
  const sent: Sent[] = [];
  const routeOf = async (url: string | URL, router: ClusterRouter, key: string | undefined): Promise<string | undefined> =>
    router.route('greetings', SERVICE, String(url), key);
  const target = (route: string | undefined, url: string): D2Target => ({ service: 'greetings', cluster: route ?? SERVICE.clusterName, host: 'h', url, origin: 'o', path: '/' });
  const delegate = {
    sent,
    closed: 0,
    requestRouted: async (url: string | URL, init: D2RequestInit, router: ClusterRouter, key: string | undefined): Promise<D2Response> => {
      const route = await routeOf(url, router, key);
      sent.push({ kind: 'request', route, url: String(url), init, key });
      if (fail) throw fail;
      return { statusCode: 200, target: target(route, String(url)) } as unknown as D2Response;
    },
    resolveRouted: async (url: string | URL, router: ClusterRouter, key: string | undefined): Promise<D2Target> => {
      const route = await routeOf(url, router, key);
      sent.push({ kind: 'resolve', route, url: String(url), init: undefined, key });
      return target(route, String(url));
    },
    close: async () => {
      delegate.closed++;
    },
  };
  return delegate;
}

/** A strategy that always names `target` (or throws it), recording the requests it was asked about. */
function fixedStrategy(target: string | Error): FailoutRedirectStrategy & { calls: number; requests: FailoutRequest[] } {
  const strategy = {
    calls: 0,
    requests: [] as FailoutRequest[],
    redirect: (_config: FailoutConfig, request: FailoutRequest) => {
      strategy.calls++;
      strategy.requests.push(request);
      if (target instanceof Error) throw target;
      return target;
    },
  };
  return strategy;
}

type Provider = FailoutClientOptions['provider'];

/** A provider that knows `config` (for its cluster) and whose peers are loaded. */
function providerOf(config: FailoutConfig | undefined): Provider {
  return { getFailoutConfig: (cluster) => (cluster === config?.cluster ? config : undefined), whenPeersLoaded: () => undefined };
}

function clientWith(options: Partial<FailoutClientOptions> & { config?: FailoutConfig }): FailoutClient {
  return new FailoutClient({
    d2: options.d2 ?? fakeDelegate(),
    provider: options.provider ?? providerOf(options.config),
    strategy: options.strategy ?? fixedStrategy('foo-baz'),
    discoveryTimeoutMs: options.discoveryTimeoutMs ?? 50,
    registry: options.registry,
    logger: options.logger,
    now: options.now,
  });
}

const failedOut = (): FailoutConfig => configOf('foo', ['foo-baz']);
const notFailedOut = (): FailoutConfig => configOf('foo', ['foo-baz'], []);

// rest.li sends REST and stream requests; here: without a body, and with a streamed body.
const variants: [string, () => D2RequestInit][] = [
  ['a request without body', () => ({})],
  ['a request with a streamed body', () => ({ method: 'POST', body: Readable.from(['chunk']) })],
];

/** The load balancer failing while the decision is made (rest.li: an exception from the balancer). */
const lookupFaults: [string, () => Provider][] = [
  [
    'the failout config lookup',
    () => ({
      getFailoutConfig: () => {
        throw new Error('load balancer error');
      },
      whenPeersLoaded: () => undefined,
    }),
  ],
  [
    'the peers lookup',
    () => ({
      getFailoutConfig: () => failedOut(),
      whenPeersLoaded: () => {
        throw new Error('load balancer error');
      },
    }),
  ],
];

describe('FailoutClient (rest.li FailoutClientTest)', () => {
  it.each(variants.flatMap(([name, init]) => lookupFaults.map(([fault, provider]) => [name, fault, init, provider] as const)))(
    'sends the original %s when %s fails, and it succeeds',
    async (_name, _fault, init, provider) => {
      // Prepare
      const d2 = fakeDelegate();
      const strategy = fixedStrategy('foo-baz');
      const client = clientWith({ d2, provider: provider(), strategy });
      const body = init();

      // Act
      const response = await client.request('d2://greetings/hello', body);

      // Assess
      expect(response.statusCode).toBe(200);
      expect(d2.sent).toEqual([{ kind: 'request', route: undefined, url: 'd2://greetings/hello', init: body, key: undefined }]);
      expect(strategy.calls).toBe(0);
      expect(client.stats().failOpen).toEqual([{ cluster: 'foo', reason: 'lookupError', count: 1 }]);
    },
  );

  it.each(variants)('leaves %s unchanged without an active failout', async (_name, init) => {
    // Prepare
    const d2 = fakeDelegate();
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ d2, config: notFailedOut(), strategy });
    const body = init();

    // Act
    await client.request('d2://greetings/hello', body);

    // Assess
    expect(d2.sent).toEqual([{ kind: 'request', route: undefined, url: 'd2://greetings/hello', init: body, key: undefined }]);
    expect(strategy.calls).toBe(0);
  });

  it.each(variants)('sends %s to the redirected cluster exactly once during a failout', async (_name, init) => {
    // Prepare
    const d2 = fakeDelegate();
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ d2, config: failedOut(), strategy });
    const body = init();

    // Act
    const response = await client.request('d2://greetings/hello', body);

    // Assess
    expect(d2.sent).toEqual([{ kind: 'request', route: 'foo-baz', url: 'd2://greetings/hello', init: body, key: undefined }]);
    expect(strategy.calls).toBe(1);
    expect(response.target.cluster).toBe('foo-baz');
    expect(client.stats().redirected).toEqual([{ cluster: 'foo', peer: 'foo-baz', count: 1 }]);
  });
});

describe('FailoutClient', () => {
  it('fails open when the strategy throws, and logs and counts it', async () => {
    // Prepare
    const d2 = fakeDelegate();
    const { logger, lines } = capturingLogger();
    const client = clientWith({ d2, config: failedOut(), strategy: fixedStrategy(new Error('boom')), logger });

    // Act
    await client.request('d2://greetings/hello');

    // Assess
    expect(d2.sent.map((s) => s.route)).toEqual([undefined]);
    expect(client.stats()).toMatchObject({
      strategyErrors: [{ cluster: 'foo', count: 1 }],
      failOpen: [{ cluster: 'foo', reason: 'strategyError', count: 1 }],
    });
    expect(lines.map((l) => [l.level, l.msg, l.record.cluster])).toEqual([['warn', 'failout redirect strategy failed; original request will be used', 'foo']]);
  });

  it.each([
    ['an empty string', ''],
    ['a non-string', 42 as unknown as string],
  ])('treats a strategy answer that is %s as a strategy error', async (_name, answer) => {
    // Prepare
    const d2 = fakeDelegate();
    const client = clientWith({ d2, config: failedOut(), strategy: fixedStrategy(answer) });

    // Act
    await client.request('d2://greetings/hello');

    // Assess
    expect(d2.sent.map((s) => s.route)).toEqual([undefined]);
    expect(client.stats().strategyErrors).toEqual([{ cluster: 'foo', count: 1 }]);
  });

  it('rejects with the typed error and sends nothing when the strategy fails closed', async () => {
    // Prepare
    const d2 = fakeDelegate();
    const refusal = new FailoutError('noEligiblePeer', 'no peer', { cluster: 'foo' });
    const client = clientWith({ d2, config: failedOut(), strategy: fixedStrategy(refusal) });

    // Act
    const sending = client.request('d2://greetings/hello');

    // Assess
    await expect(sending).rejects.toBe(refusal);
    expect(d2.sent).toEqual([]);
    expect(client.stats().failClosed).toEqual([{ cluster: 'foo', count: 1 }]);
  });

  it('sends once and does not retry on the original cluster when the redirected send fails (rest.li #804)', async () => {
    // Prepare
    const d2 = fakeDelegate(new Error('connection refused'));
    const client = clientWith({ d2, config: failedOut() });

    // Act
    const sending = client.request('d2://greetings/hello');

    // Assess
    await expect(sending).rejects.toThrow('connection refused');
    expect(d2.sent.map((s) => [s.kind, s.route])).toEqual([['request', 'foo-baz']]);
  });

  it('passes the routing key to the strategy and the delegate, and strips it from the options the delegate sends', async () => {
    // Prepare
    const d2 = fakeDelegate();
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ d2, config: failedOut(), strategy });

    // Act
    await client.request('d2://greetings/hello', { routingKey: 'member-7', headers: { a: 'b' } });

    // Assess
    expect(strategy.requests.map((r) => r.key)).toEqual(['member-7']);
    expect(d2.sent[0]!.init).toEqual({ headers: { a: 'b' } });
    expect(d2.sent[0]!.key).toBe('member-7');
  });

  it("tells the strategy the service, its cluster, the URL, the time it judged the failout at and the service's schemes", async () => {
    // Prepare
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ config: failedOut(), strategy, now: () => 1_234 });

    // Act
    await client.request('d2://greetings/hello?x=1');

    // Assess
    expect(strategy.requests).toEqual([{ url: 'd2://greetings/hello?x=1', service: 'greetings', cluster: 'foo', now: 1_234, schemes: ['http'], onNoEligiblePeer: expect.any(Function) }]);
    expect(strategy.requests[0]!.schemes).toBe(SERVICE.prioritizedSchemes);
  });

  it.each([
    ['failed out', failedOut, 'foo-baz', 'foo-baz'],
    ['not failed out', notFailedOut, undefined, 'foo'],
  ])('resolves by the same decision as it sends (%s)', async (_name, config, route, cluster) => {
    // Prepare
    const d2 = fakeDelegate();
    const client = clientWith({ d2, config: config() });

    // Act
    const target = await client.resolve('d2://greetings/hello', { routingKey: 'k' });

    // Assess
    expect(d2.sent).toEqual([{ kind: 'resolve', route, url: 'd2://greetings/hello', init: undefined, key: 'k' }]);
    expect(target.cluster).toBe(cluster);
  });

  it('closes the wrapped client once, however often it is closed, and routes nothing after', async () => {
    // Prepare
    const d2 = fakeDelegate();
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ d2, config: failedOut(), strategy });

    // Act
    await client.close();
    await client.close();
    const route = client.route('greetings', SERVICE, 'd2://greetings/hello', undefined);

    // Assess
    expect(d2.closed).toBe(1);
    expect(route).toBeUndefined();
    expect(strategy.calls).toBe(0);
  });

  it('exposes its counters on the registry it is given', async () => {
    // Prepare
    const registry = new Registry();
    const client = clientWith({ config: failedOut(), registry });
    await client.request('d2://greetings/hello');
    await client.request('d2://greetings/hello');

    // Act
    const text = await registry.metrics();

    // Assess
    expect(text).toContain('failout_client_redirected_total{cluster="foo",peer="foo-baz"} 2');
  });

  it('shares its counters with another client on the same registry: the registry sums, each client keeps its own stats', async () => {
    // Prepare: two clients (two services of one process) and their strategies on one registry, as D2Client's request metrics and the provider's counters allow.
    const registry = new Registry();
    const config = configOf('foo', ['foo-baz']);
    const strategyOn = (): WeightedFailoutRedirectStrategy => new WeightedFailoutRedirectStrategy({ view: viewOf([config], { 'foo-baz': 1 }), registry });
    const first = clientWith({ config, registry, strategy: strategyOn() });
    const second = clientWith({ config, registry, strategy: strategyOn() });

    // Act
    await first.request('d2://greetings/hello');
    await second.request('d2://greetings/hello');
    await second.request('d2://greetings/hello');
    const text = await registry.metrics();
    await first.request('d2://greetings/hello');
    const later = await registry.metrics();

    // Assess: one series, labelled the same, with both clients' requests; scraped again, nothing counted twice.
    expect(text).toContain('failout_client_redirected_total{cluster="foo",peer="foo-baz"} 3');
    expect(later).toContain('failout_client_redirected_total{cluster="foo",peer="foo-baz"} 4');
    expect(first.stats().redirected).toEqual([{ cluster: 'foo', peer: 'foo-baz', count: 2 }]);
    expect(second.stats().redirected).toEqual([{ cluster: 'foo', peer: 'foo-baz', count: 2 }]);
  });
});

describe('FailoutClient while the peers of a failed-out cluster load', () => {
  /** A provider whose peers of `config.cluster` load when the test calls `finish`, which also gives the peer its hosts in `hosts`. */
  function loadingProvider(config: FailoutConfig): { provider: Provider; hosts: Record<string, number>; finish(): void; asked: number } {
    const load = deferred();
    const hosts: Record<string, number> = {};
    const state = {
      provider: {
        getFailoutConfig: (cluster: string) => (cluster === config.cluster ? config : undefined),
        whenPeersLoaded: () => {
          state.asked++;
          return load.promise;
        },
      },
      hosts,
      asked: 0,
      finish: () => {
        hosts['foo-baz'] = 2;
        load.resolve();
      },
    };
    return state;
  }

  it('waits for them, then decides on their hosts and redirects', async () => {
    // Prepare: the default strategy, reading the peer's hosts through a view.
    const config = failedOut();
    const loading = loadingProvider(config);
    const d2 = fakeDelegate();
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], loading.hosts) });
    const client = clientWith({ d2, provider: loading.provider, strategy, discoveryTimeoutMs: 5_000 });

    // Act
    const sending = client.request('d2://greetings/hello');
    await flush();
    const sentWhileLoading = [...d2.sent];
    loading.finish();
    const response = await sending;

    // Assess
    expect(sentWhileLoading).toEqual([]);
    expect(response.target.cluster).toBe('foo-baz');
    expect(d2.sent.map((s) => s.route)).toEqual(['foo-baz']);
    expect(loading.asked).toBe(1);
    expect(strategy.stats().noEligiblePeer).toEqual([]);
  });

  it('decides on what is known when they do not load within discoveryTimeoutMs: fails open, and logs it', async () => {
    // Prepare
    const config = failedOut();
    const loading = loadingProvider(config);
    const d2 = fakeDelegate();
    const { logger, lines } = capturingLogger();
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], loading.hosts) });
    const client = clientWith({ d2, provider: loading.provider, strategy, discoveryTimeoutMs: 50, logger });
    const started = performance.now();

    // Act
    const response = await client.request('d2://greetings/hello');
    const waited = performance.now() - started;

    // Assess
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(response.target.cluster).toBe('foo');
    expect(d2.sent.map((s) => s.route)).toEqual([undefined]);
    expect(strategy.stats().noEligiblePeer).toEqual([{ cluster: 'foo', outcome: 'failOpen', count: 1 }]);
    // A fail-open for want of an eligible peer (the peer still loading has no hosts), not a lookup error.
    expect(client.stats().failOpen).toEqual([{ cluster: 'foo', reason: 'noEligiblePeer', count: 1 }]);
    expect(lines.filter((l) => l.level === 'warn').map((l) => [l.msg, l.record.cluster, l.record.service])).toEqual([
      ['failout peers still loading; deciding on what is known', 'foo', 'greetings'],
    ]);
  });

  it.each<[string, FailoutConfig | undefined]>([
    ['restored (no failout properties any more)', undefined],
    ['written back to no active window', notFailedOut()],
  ])('keeps the request on its cluster when the failout is %s while its peers load', async (_what, written) => {
    // Prepare: the provider answers with whatever config is current when asked.
    const loading = loadingProvider(failedOut());
    let current: FailoutConfig | undefined = failedOut();
    const provider: Provider = { getFailoutConfig: (cluster) => (cluster === 'foo' ? current : undefined), whenPeersLoaded: loading.provider.whenPeersLoaded };
    const d2 = fakeDelegate();
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([failedOut()], loading.hosts) });
    const client = clientWith({ d2, provider, strategy, discoveryTimeoutMs: 5_000 });

    // Act: the write lands while the decision waits for the peers.
    const sending = client.request('d2://greetings/hello');
    await flush();
    current = written;
    loading.finish();
    const response = await sending;

    // Assess
    expect(response.target.cluster).toBe('foo');
    expect(d2.sent.map((s) => s.route)).toEqual([undefined]);
    expect(client.stats().redirected).toEqual([]);
  });

  it('decides on the config written while its peers load: its peers, not the ones it waited for', async () => {
    // Prepare
    const loading = loadingProvider(failedOut());
    let current: FailoutConfig = failedOut();
    const provider: Provider = { getFailoutConfig: (cluster) => (cluster === 'foo' ? current : undefined), whenPeersLoaded: loading.provider.whenPeersLoaded };
    const d2 = fakeDelegate();
    const client = clientWith({ d2, provider, strategy: { redirect: (config) => config.peers[0]!.cluster }, discoveryTimeoutMs: 5_000 });

    // Act
    const sending = client.request('d2://greetings/hello');
    await flush();
    current = configOf('foo', ['foo-qux']);
    loading.finish();
    const response = await sending;

    // Assess
    expect(response.target.cluster).toBe('foo-qux');
  });

  it('decides at once, without asking whether the peers load, for a cluster that is not failed out', async () => {
    // Prepare
    const loading = loadingProvider(notFailedOut());
    const d2 = fakeDelegate();
    const client = clientWith({ d2, provider: loading.provider });

    // Act
    const route = client.route('greetings', SERVICE, 'd2://greetings/hello', undefined);

    // Assess
    expect(route).toBeUndefined();
    expect(loading.asked).toBe(0);
  });

  it('decides synchronously once the peers are loaded (no await over the bare client)', () => {
    // Prepare
    const client = clientWith({ config: failedOut() });

    // Act
    const route = client.route('greetings', SERVICE, 'd2://greetings/hello', 'k');

    // Assess
    expect(route).toBe('foo-baz');
  });
});
