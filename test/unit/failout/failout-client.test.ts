import { Readable } from 'node:stream';
import { Registry } from 'prom-client';
import type { D2RequestInit, D2Response, D2Target, ServiceProperties } from '../../../lib/d2';
import { FailoutError } from '../../../lib/failout/errors';
import { FailoutClient, type FailoutDelegate, type FailoutServiceLookup } from '../../../lib/failout/failout-client';
import type { FailoutConfig, FailoutRedirectStrategy } from '../../../lib/failout/types';
import { configOf } from './config-factories';

// FailoutClient against a fake delegate: rest.li FailoutClientTest's cases plus the weak spots it fixes.

interface Sent {
  kind: 'request' | 'requestToCluster' | 'resolve' | 'resolveInCluster';
  cluster: string | undefined;
  url: string;
  init: D2RequestInit | undefined;
}

/** Records every call; `fail` makes sends reject. */
function fakeDelegate(fail?: Error): FailoutDelegate & { sent: Sent[]; closed: number } {
  const sent: Sent[] = [];
  const respond = (cluster: string): D2Response => ({ statusCode: 200, target: { cluster } }) as unknown as D2Response;
  const target = (cluster: string, url: string): D2Target => ({ service: 'greetings', cluster, host: 'h', url, origin: 'o', path: '/' });
  const delegate = {
    sent,
    closed: 0,
    request: async (url: string | URL, init?: D2RequestInit) => {
      sent.push({ kind: 'request', cluster: undefined, url: String(url), init });
      if (fail) throw fail;
      return respond('foo');
    },
    requestToCluster: async (cluster: string, url: string | URL, init?: D2RequestInit) => {
      sent.push({ kind: 'requestToCluster', cluster, url: String(url), init });
      if (fail) throw fail;
      return respond(cluster);
    },
    resolve: async (url: string | URL) => {
      sent.push({ kind: 'resolve', cluster: undefined, url: String(url), init: undefined });
      return target('foo', String(url));
    },
    resolveInCluster: async (cluster: string, url: string | URL) => {
      sent.push({ kind: 'resolveInCluster', cluster, url: String(url), init: undefined });
      return target(cluster, String(url));
    },
    close: async () => {
      delegate.closed++;
    },
  };
  return delegate;
}

/** A state that maps service `greetings` to cluster `foo`, or throws / loads late as asked. */
function fakeState(mode: 'loaded' | 'throws' | 'late' | 'neverLoads' = 'loaded'): FailoutServiceLookup & { holds: number } {
  let loaded = mode === 'loaded' || mode === 'throws';
  const props = { serviceName: 'greetings', clusterName: 'foo' } as ServiceProperties;
  const state = {
    holds: 0,
    getServiceProperties: (service: string) => {
      if (mode === 'throws') throw new Error('load balancer error');
      return loaded && service === 'greetings' ? props : undefined;
    },
    isServiceLoaded: () => loaded,
    listenToService: async () => {
      state.holds++;
      if (mode === 'neverLoads') return new Promise<void>(() => undefined);
      await new Promise((r) => setTimeout(r, 5));
      loaded = true;
    },
    stopListenToService: () => {
      state.holds--;
    },
  };
  return state;
}

/** A strategy that always names `target` (or throws it), recording its calls. */
function fixedStrategy(target: string | Error): FailoutRedirectStrategy & { calls: number } {
  const strategy = {
    calls: 0,
    redirect: () => {
      strategy.calls++;
      if (target instanceof Error) throw target;
      return target;
    },
  };
  return strategy;
}

function clientWith(options: { state?: FailoutServiceLookup; config?: FailoutConfig; strategy?: FailoutRedirectStrategy; delegate?: FailoutDelegate; registry?: Registry }): FailoutClient {
  return new FailoutClient({
    d2: options.delegate ?? fakeDelegate(),
    state: options.state ?? fakeState(),
    provider: { getFailoutConfig: (cluster) => (cluster === options.config?.cluster ? options.config : undefined) },
    strategy: options.strategy ?? fixedStrategy('foo-baz'),
    discoveryTimeoutMs: 50,
    registry: options.registry,
  });
}

const failedOut = (): FailoutConfig => configOf('foo', ['foo-baz']);
const notFailedOut = (): FailoutConfig => configOf('foo', ['foo-baz'], []);

// rest.li sends REST and stream requests; here: without a body, and with a streamed body.
const variants: [string, () => D2RequestInit][] = [
  ['a request without body', () => ({})],
  ['a request with a streamed body', () => ({ method: 'POST', body: Readable.from(['chunk']) })],
];

describe('FailoutClient (rest.li FailoutClientTest)', () => {
  it.each(variants)('sends the original %s when the load balancer fails, and it succeeds', async (_name, init) => {
    // Prepare
    const delegate = fakeDelegate();
    const client = clientWith({ delegate, state: fakeState('throws'), config: failedOut() });
    const body = init();

    // Act
    const response = await client.request('d2://greetings/hello', body);

    // Assess
    expect(response.statusCode).toBe(200);
    expect(delegate.sent).toEqual([{ kind: 'request', cluster: undefined, url: 'd2://greetings/hello', init: body }]);
    expect(client.stats().failOpen).toEqual([{ cluster: '(unknown)', reason: 'lookupError', count: 1 }]);
  });

  it.each(variants)('leaves %s unchanged without an active failout', async (_name, init) => {
    // Prepare
    const delegate = fakeDelegate();
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ delegate, config: notFailedOut(), strategy });
    const body = init();

    // Act
    await client.request('d2://greetings/hello', body);

    // Assess
    expect(delegate.sent).toEqual([{ kind: 'request', cluster: undefined, url: 'd2://greetings/hello', init: body }]);
    expect(strategy.calls).toBe(0);
  });

  it.each(variants)('sends %s to the redirected cluster exactly once during a failout', async (_name, init) => {
    // Prepare
    const delegate = fakeDelegate();
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ delegate, config: failedOut(), strategy });
    const body = init();

    // Act
    const response = await client.request('d2://greetings/hello', body);

    // Assess
    expect(delegate.sent).toEqual([{ kind: 'requestToCluster', cluster: 'foo-baz', url: 'd2://greetings/hello', init: body }]);
    expect(strategy.calls).toBe(1);
    expect((response as unknown as { target: { cluster: string } }).target.cluster).toBe('foo-baz');
    expect(client.stats().redirected).toEqual([{ cluster: 'foo', peer: 'foo-baz', count: 1 }]);
  });
});

describe('FailoutClient', () => {
  it('fails open when the strategy throws, and logs and counts it', async () => {
    // Prepare
    const delegate = fakeDelegate();
    const client = clientWith({ delegate, config: failedOut(), strategy: fixedStrategy(new Error('boom')) });

    // Act
    await client.request('d2://greetings/hello');

    // Assess
    expect(delegate.sent.map((s) => s.kind)).toEqual(['request']);
    expect(client.stats()).toMatchObject({
      strategyErrors: [{ cluster: 'foo', count: 1 }],
      failOpen: [{ cluster: 'foo', reason: 'strategyError', count: 1 }],
    });
  });

  it.each([
    ['an empty string', ''],
    ['a non-string', 42 as unknown as string],
  ])('treats a strategy answer that is %s as a strategy error', async (_name, answer) => {
    // Prepare
    const delegate = fakeDelegate();
    const client = clientWith({ delegate, config: failedOut(), strategy: fixedStrategy(answer) });

    // Act
    await client.request('d2://greetings/hello');

    // Assess
    expect(delegate.sent.map((s) => s.kind)).toEqual(['request']);
    expect(client.stats().strategyErrors).toEqual([{ cluster: 'foo', count: 1 }]);
  });

  it('rejects with the typed error and sends nothing when the strategy fails closed', async () => {
    // Prepare
    const delegate = fakeDelegate();
    const refusal = new FailoutError('noEligiblePeer', 'no peer', { cluster: 'foo' });
    const client = clientWith({ delegate, config: failedOut(), strategy: fixedStrategy(refusal) });

    // Act
    const sending = client.request('d2://greetings/hello');

    // Assess
    await expect(sending).rejects.toBe(refusal);
    expect(delegate.sent).toEqual([]);
    expect(client.stats().failClosed).toEqual([{ cluster: 'foo', count: 1 }]);
  });

  it('sends once and does not retry on the original cluster when the redirected send fails (rest.li #804)', async () => {
    // Prepare
    const delegate = fakeDelegate(new Error('connection refused'));
    const client = clientWith({ delegate, config: failedOut() });

    // Act
    const sending = client.request('d2://greetings/hello');

    // Assess
    await expect(sending).rejects.toThrow('connection refused');
    expect(delegate.sent.map((s) => [s.kind, s.cluster])).toEqual([['requestToCluster', 'foo-baz']]);
  });

  it('passes the routing key to the strategy and strips it from what the delegate sees', async () => {
    // Prepare
    const delegate = fakeDelegate();
    const keys: (string | undefined)[] = [];
    const strategy: FailoutRedirectStrategy = { redirect: (_config, request) => (keys.push(request.key), 'foo-baz') };
    const client = clientWith({ delegate, config: failedOut(), strategy });

    // Act
    await client.request('d2://greetings/hello', { routingKey: 'member-7', headers: { a: 'b' } });

    // Assess
    expect(keys).toEqual(['member-7']);
    expect(delegate.sent[0]!.init).toEqual({ headers: { a: 'b' } });
  });

  it('waits for a service that is not loaded yet, then redirects, holding it until close', async () => {
    // Prepare
    const delegate = fakeDelegate();
    const state = fakeState('late');
    const client = clientWith({ delegate, state, config: failedOut() });

    // Act
    await Promise.all([client.request('d2://greetings/a'), client.request('d2://greetings/b')]);
    const holdsBeforeClose = state.holds;
    await client.close();

    // Assess
    expect(delegate.sent.map((s) => s.cluster)).toEqual(['foo-baz', 'foo-baz']);
    expect(holdsBeforeClose).toBe(1);
    expect(state.holds).toBe(0);
    expect(delegate.closed).toBe(1);
  });

  it('sends the original request when the service does not load in time', async () => {
    // Prepare
    const delegate = fakeDelegate();
    const client = clientWith({ delegate, state: fakeState('neverLoads'), config: failedOut() });

    // Act
    await client.request('d2://greetings/hello');

    // Assess
    expect(delegate.sent.map((s) => s.kind)).toEqual(['request']);
    expect(client.stats().failOpen).toEqual([{ cluster: '(unknown)', reason: 'lookupError', count: 1 }]);
  });

  it('leaves a URL that is not d2 to the delegate', async () => {
    // Prepare
    const delegate = fakeDelegate();
    const strategy = fixedStrategy('foo-baz');
    const client = clientWith({ delegate, config: failedOut(), strategy });

    // Act
    await client.request('http://example.com/x');

    // Assess
    expect(delegate.sent.map((s) => s.kind)).toEqual(['request']);
    expect(strategy.calls).toBe(0);
  });

  it.each([
    ['failed out', failedOut, 'resolveInCluster', 'foo-baz'],
    ['not failed out', notFailedOut, 'resolve', undefined],
  ])('resolves by the same decision as it sends (%s)', async (_name, config, kind, cluster) => {
    // Prepare
    const delegate = fakeDelegate();
    const client = clientWith({ delegate, config: config() });

    // Act
    const target = await client.resolve('d2://greetings/hello', { routingKey: 'k' });

    // Assess
    expect(delegate.sent).toEqual([{ kind, cluster, url: 'd2://greetings/hello', init: undefined }]);
    expect(target.cluster).toBe(cluster ?? 'foo');
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
});
