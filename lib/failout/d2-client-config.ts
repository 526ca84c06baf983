import type { Registry } from 'prom-client';
import { D2Client, type D2ClientOptions, type D2Response, type D2Target, type LoadBalancerState } from '../d2';
import { createLogger, type Logger } from '../logging';
import { FailoutClient, type FailoutRequestInit, type FailoutResolveOptions } from './failout-client';
import { FailoutClusterInfoProvider } from './failout-cluster-info-provider';
import type { FailoutClusterView, FailoutConfigProvider, FailoutConfigProviderFactory, FailoutRedirectStrategy } from './types';

/** Builds the strategy once the provider exists (the default strategy needs a view over it). */
export type FailoutRedirectStrategyFactory = (view: FailoutClusterView) => FailoutRedirectStrategy;

/**
 * How to build a D2 client (rest.li `D2ClientConfig`, the failout part plus what the client needs here).
 * As in rest.li, the client is wrapped in a {@link FailoutClient} only when `enableClusterFailout` is on
 * and a strategy is given; otherwise a warning says what is missing.
 */
export interface D2ClientConfig {
  /** Discovery data; shared, not owned (shut it down yourself after the client). */
  readonly state: LoadBalancerState;
  /** Options of the underlying D2Client, minus the state. */
  readonly d2?: Omit<D2ClientOptions, 'state'>;
  /** Default false. */
  readonly enableClusterFailout?: boolean;
  /** Creates the provider from the state; required for failout. */
  readonly failoutConfigProviderFactory?: FailoutConfigProviderFactory;
  /** A strategy, or a factory given a view over the provider and the state's host counts. Required for failout. */
  readonly failoutRedirectStrategy?: FailoutRedirectStrategy | FailoutRedirectStrategyFactory;
  /** Counter registry of the FailoutClient; default a private one. */
  readonly registry?: Registry;
  /** For the builder's warnings and the FailoutClient (the D2Client takes `d2.logger`); default: each creates its own. */
  readonly logger?: Logger;
}

/** A built client: `request` and `resolve` with an optional routing key, and one `close`. */
export interface BuiltD2Client {
  /** Sends a `d2://<service>/<path>` request (see {@link FailoutClient.request}); the routing key is dropped without failout. */
  request(url: string | URL, init?: FailoutRequestInit): Promise<D2Response>;
  /** The host a request would go to, without sending (see {@link FailoutClient.resolve}); the key is ignored without failout. */
  resolve(url: string | URL, options?: FailoutResolveOptions): Promise<D2Target>;
  /** True when requests go through a FailoutClient. */
  readonly failoutEnabled: boolean;
  /** The started provider, when failout is enabled. */
  readonly provider: FailoutConfigProvider | undefined;
  /** Closes the client(s) and shuts the provider down. The state stays open. */
  close(): Promise<void>;
}

/** rest.li's wording (D2ClientBuilder), kept so that operators find the same message. */
export const MISSING_STRATEGY_WARNING = 'A URI rewrite strategy is required for failout.';
/** Our addition: without a provider a FailoutClient could never see a failout. */
export const MISSING_PROVIDER_WARNING = 'A failout config provider factory is required for failout.';

/**
 * Builds a D2 client from a {@link D2ClientConfig} (rest.li `D2ClientBuilder#build`, failout part):
 * with failout enabled, a provider and a strategy it creates and starts the provider and wraps the
 * client in a {@link FailoutClient}; with failout enabled but a part missing it warns and returns the
 * unwrapped client.
 */
export function buildD2Client(config: D2ClientConfig): BuiltD2Client {
  const log = config.logger ?? createLogger('d2-client-builder');
  const d2 = new D2Client({ ...config.d2, state: config.state });
  const plain = (): BuiltD2Client => ({
    request: (url, init) => d2.request(url, init === undefined || !('routingKey' in init) ? init : stripKey(init)),
    resolve: (url) => d2.resolve(url),
    failoutEnabled: false,
    provider: undefined,
    close: () => d2.close(),
  });
  if (config.enableClusterFailout !== true) return plain();
  if (!config.failoutRedirectStrategy) {
    log.warn(MISSING_STRATEGY_WARNING);
    return plain();
  }
  if (!config.failoutConfigProviderFactory) {
    log.warn(MISSING_PROVIDER_WARNING);
    return plain();
  }
  const provider = config.failoutConfigProviderFactory.create(config.state);
  provider.start();
  const given = config.failoutRedirectStrategy;
  const strategy = typeof given === 'function' ? given(new FailoutClusterInfoProvider(config.state, provider)) : given;
  const client = new FailoutClient({ d2, state: config.state, provider, strategy, registry: config.registry, logger: config.logger });
  return {
    request: (url, init) => client.request(url, init),
    resolve: (url, options) => client.resolve(url, options),
    failoutEnabled: true,
    provider,
    close: async () => {
      try {
        await client.close();
      } finally {
        provider.shutdown();
      }
    },
  };
}

function stripKey(init: FailoutRequestInit): Omit<FailoutRequestInit, 'routingKey'> {
  const { routingKey: _routingKey, ...rest } = init;
  return rest;
}
