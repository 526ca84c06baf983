import { Writable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import { LoadBalancerState } from '../../../lib/d2';
import type { ZkSession } from '../../../lib/zk';
import { FailoutClusterInfoProvider } from '../../../lib/failout/failout-cluster-info-provider';
import { buildD2Client, MISSING_PROVIDER_WARNING, MISSING_STRATEGY_WARNING, type D2ClientConfig } from '../../../lib/failout/d2-client-config';
import { D2ConnectionWarmUpHandler } from '../../../lib/failout/d2-connection-warm-up-handler';
import type { FailoutConfigProvider, FailoutConfigProviderFactory, FailoutProviderContext, FailoutRedirectStrategy } from '../../../lib/failout/types';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { ZooKeeperFailoutConfigProviderFactory } from '../../../lib/failout/failout-config-provider-factory';
import { configOf } from './config-factories';

// buildD2Client: wraps in a FailoutClient only with the flag, a provider factory and a strategy (rest.li D2ClientBuilder).

function capturingLogger(): { logger: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      messages.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), messages };
}

/** A provider that records its lifecycle; no ZooKeeper behind it. */
function tinyProvider(): FailoutConfigProvider & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    getFailoutConfig: () => undefined,
    getClusters: () => [],
    start: () => events.push('start'),
    close: () => events.push('close'),
  };
}

const strategy: FailoutRedirectStrategy = { redirect: (config) => config.cluster };

describe('buildD2Client', () => {
  // The state only subscribes on demand: none of these cases touch the session.
  const state = new LoadBalancerState({ session: {} as ZkSession, basePath: '/unused' });

  afterAll(() => state.close());

  it.each<[string, Partial<D2ClientConfig>, boolean, string[]]>([
    ['failout disabled', { enableClusterFailout: false, failoutRedirectStrategy: strategy }, false, []],
    ['failout enabled without a strategy', { enableClusterFailout: true }, false, [MISSING_STRATEGY_WARNING]],
    ['failout enabled without a provider factory', { enableClusterFailout: true, failoutRedirectStrategy: strategy, failoutConfigProviderFactory: undefined }, false, [MISSING_PROVIDER_WARNING]],
    ['failout enabled with everything', { enableClusterFailout: true, failoutRedirectStrategy: strategy }, true, []],
  ])('builds with %s', async (name, overrides, wrapped, warnings) => {
    // Prepare
    const { logger, messages } = capturingLogger();
    const provider = tinyProvider();
    const factory: FailoutConfigProviderFactory = { create: () => provider };
    const withFactory = name.includes('without a provider') ? {} : { failoutConfigProviderFactory: factory };

    // Act
    const client = buildD2Client({ state, logger, ...withFactory, ...overrides });
    await client.close();

    // Assess
    expect(client.failoutEnabled).toBe(wrapped);
    expect(messages).toEqual(warnings);
    expect(provider.events).toEqual(wrapped ? ['start', 'close'] : []);
  });

  it('gives a strategy factory a view over the provider and the state, and the client registry', () => {
    // Prepare
    const provider = { ...tinyProvider(), getFailoutConfig: (cluster: string) => (cluster === 'lor1' ? configOf('lor1', ['lva1']) : undefined) };
    let seen: string[] = [];
    let registry: Registry | undefined;

    // Act
    const client = buildD2Client({
      state,
      enableClusterFailout: true,
      failoutConfigProviderFactory: { create: () => provider },
      failoutRedirectStrategy: (view, context) => {
        seen = [String(view.getFailoutConfig('lor1')?.cluster), String(view.getHostCount('lva1'))];
        registry = context.registry;
        return strategy;
      },
    });

    // Assess
    expect(seen).toEqual(['lor1', '0']);
    expect(registry).toBe(client.registry);
    return client.close();
  });

  it.each<[string, Partial<D2ClientConfig>, { warmUp: boolean; teardownMs: number; ownRegistry: boolean }]>([
    ['the defaults', {}, { warmUp: true, teardownMs: 60_000, ownRegistry: false }],
    ['warm-up turned off', { warmUp: false }, { warmUp: false, teardownMs: 60_000, ownRegistry: false }],
    ['a teardown delay', { peerWatchTeardownDelayMs: 5_000 }, { warmUp: true, teardownMs: 5_000, ownRegistry: false }],
    ['a registry', { registry: new Registry() }, { warmUp: true, teardownMs: 60_000, ownRegistry: true }],
  ])("hands the provider factory the client's warm-up, teardown delay and registry with %s", async (_name, overrides, expected) => {
    // Prepare
    let context: FailoutProviderContext | undefined;
    const factory: FailoutConfigProviderFactory = {
      create: (_state, given) => {
        context = given;
        return tinyProvider();
      },
    };

    // Act
    const client = buildD2Client({ state, enableClusterFailout: true, failoutRedirectStrategy: strategy, failoutConfigProviderFactory: factory, ...overrides });
    const handler = context?.warmUpHandlerFactory?.('lor1');
    await client.close();

    // Assess
    expect(handler instanceof D2ConnectionWarmUpHandler).toBe(expected.warmUp);
    expect(context?.peerWatchTeardownDelayMs).toBe(expected.teardownMs);
    expect(context?.registry).toBe(client.registry);
    expect(client.registry === overrides.registry).toBe(expected.ownRegistry);
    handler?.close();
  });

  it('has every counter the service-owner docs name on its registry as soon as it is built', async () => {
    // Prepare: the README's own configuration (docs/service-owners.md "Metrics").
    const names = [
      'failout_client_redirected_total',
      'failout_client_fail_open_total',
      'failout_client_fail_closed_total',
      'failout_strategy_peer_skipped_total',
      'failout_strategy_no_eligible_peer_total',
      'failout_warmups_started_total',
      'failout_warmups_succeeded_total',
      'failout_warmups_failed_total',
      'failout_warmups_cancelled_total',
      'failout_warmup_connections_opened_total',
      'failout_config_malformed_total',
    ];

    // Act
    const client = buildD2Client({
      state,
      enableClusterFailout: true,
      failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
      failoutRedirectStrategy: (view, { registry }) => new WeightedFailoutRedirectStrategy({ view, registry }),
    });
    const registered = (await client.registry.getMetricsAsJSON()).map((m) => m.name);
    await client.close();

    // Assess: before any failout, so that a scrape tells "none yet" from "not exported".
    expect(names.filter((name) => !registered.includes(name))).toEqual([]);
  });

  it('builds a second client on the same registry, its counters registered once and shared', async () => {
    // Prepare: the README's configuration, twice on one registry (two services' clients in one process).
    const registry = new Registry();
    const build = (): ReturnType<typeof buildD2Client> =>
      buildD2Client({
        state,
        registry,
        enableClusterFailout: true,
        failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
        failoutRedirectStrategy: (view, context) => new WeightedFailoutRedirectStrategy({ view, registry: context.registry }),
      });
    const first = build();

    // Act
    const second = build();
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name);
    await second.close();
    await first.close();

    // Assess
    expect(second.failoutEnabled).toBe(true);
    expect(names.filter((name) => name.startsWith('failout_client_') || name.startsWith('failout_strategy_')).sort()).toEqual([
      'failout_client_fail_closed_total',
      'failout_client_fail_open_total',
      'failout_client_redirected_total',
      'failout_client_strategy_errors_total',
      'failout_strategy_no_eligible_peer_total',
      'failout_strategy_peer_skipped_total',
    ]);
  });

  it.each<[string, Partial<D2ClientConfig>]>([
    ['failout disabled', {}],
    ['failout enabled', { enableClusterFailout: true, failoutRedirectStrategy: strategy, failoutConfigProviderFactory: { create: () => tinyProvider() } }],
  ])('exposes the registry it was given with %s', async (_name, overrides) => {
    // Prepare
    const registry = new Registry();

    // Act
    const client = buildD2Client({ state, registry, ...overrides });
    await client.close();

    // Assess
    expect(client.registry).toBe(registry);
  });
});

describe('buildD2Client that fails part-way', () => {
  it('closes the provider it started on a given state when the strategy factory throws', () => {
    // Prepare: a strategy factory that throws once the provider has been started.
    const given = new LoadBalancerState({ session: {} as ZkSession, basePath: '/unused' });
    const provider = tinyProvider();
    const failing = (): FailoutRedirectStrategy => {
      throw new Error('strategy factory failed');
    };

    // Act
    const build = (): unknown => buildD2Client({ state: given, enableClusterFailout: true, failoutConfigProviderFactory: { create: () => provider }, failoutRedirectStrategy: failing });

    // Assess: the error reaches the caller, and the provider started for the client is closed again.
    expect(build).toThrow('strategy factory failed');
    expect(provider.events).toEqual(['start', 'close']);
    given.close();
  });

  it('closes the state it built from discovery when a later part throws', async () => {
    // Prepare: a strategy factory that throws once the provider has been started (a late throw).
    const provider = tinyProvider();
    let built: LoadBalancerState | undefined;

    // Act
    const build = (): unknown =>
      buildD2Client({
        discovery: { xds: { bootstrap: { config: { xds_servers: [{ server_uri: '127.0.0.1:1', channel_creds: [{ type: 'insecure' }] }], node: { id: 't' } } } } },
        enableClusterFailout: true,
        failoutConfigProviderFactory: {
          create: (state) => {
            built = state;
            return provider;
          },
        },
        failoutRedirectStrategy: () => {
          throw new Error('strategy factory failed');
        },
      });

    // Assess: refused, the provider closed, and the built state closed (it refuses to follow anything).
    expect(build).toThrow('strategy factory failed');
    expect(provider.events).toEqual(['start', 'close']);
    await expect(built!.listenToCluster('lor1')).rejects.toThrow('shut down');
  });
});

describe('FailoutClusterInfoProvider', () => {
  it('counts hosts with weight above zero that are not banned, once per URI snapshot', () => {
    // Prepare
    const hosts = [
      { uri: 'http://a:1', weight: 1 },
      { uri: 'http://b:1', weight: 0 },
      { uri: 'http://c:1', weight: 2 },
    ];
    const cluster = { bannedUris: ['http://c:1'] };
    let reads = 0;
    const uris = {
      get hosts() {
        reads++;
        return hosts;
      },
    };
    const view = new FailoutClusterInfoProvider(
      { getUris: (c: string) => (c === 'lva1' ? (uris as never) : undefined), getClusterProperties: () => cluster as never },
      { getFailoutConfig: () => undefined },
    );

    // Act
    const counts = [view.getHostCount('lva1'), view.getHostCount('lva1'), view.getHostCount('unknown')];

    // Assess
    expect(counts).toEqual([1, 1, 0]);
    expect(reads).toBe(1);
  });
});
