import { Registry } from 'prom-client';
import { D2Client, type D2ClientOptions, type D2Response, type D2Target, type LoadBalancerState } from '../d2';
import { createLogger, type Logger } from '../logging';
import { FailoutClient, type FailoutRequestInit, type FailoutResolveOptions } from './failout-client';
import { D2ConnectionWarmUpHandler, registerWarmUpCounters } from './d2-connection-warm-up-handler';
import { FailoutClusterInfoProvider } from './failout-cluster-info-provider';
import { discoverState, type D2Discovery, type DiscoveredState } from './d2-discovery';
import type {
  FailoutClusterView,
  FailoutConfigProvider,
  FailoutConfigProviderFactory,
  FailoutProviderContext,
  FailoutRedirectStrategy,
  WarmUpHandlerFactory,
} from './types';

/** What a strategy factory gets besides the view: the built client's registry and logger, for its counters. */
export interface FailoutStrategyContext {
  /** The config's registry (or the client's private one): where the strategy's counters belong. */
  readonly registry: Registry;
  /** The config's logger, if it gave one. */
  readonly logger?: Logger;
}

/** Builds the strategy once the provider exists (the default strategy needs a view over it). */
export type FailoutRedirectStrategyFactory = (view: FailoutClusterView, context: FailoutStrategyContext) => FailoutRedirectStrategy;

/**
 * How to build a D2 client (rest.li `D2ClientConfig`, the failout part plus what the client needs here).
 * As in rest.li, the client is wrapped in a {@link FailoutClient} only when `enableClusterFailout` is on
 * and a strategy is given; otherwise a warning says what is missing.
 *
 * Warm-up (rest.li's `warmUp`, `warmUpTimeoutSeconds`, `warmUpConcurrentRequests`): when a cluster is
 * failed out, the client opens connections to its peers' hosts through its own pools, the very pools
 * redirected requests then use, so they find the connections open. On by default.
 */
export interface D2ClientConfig {
  /**
   * Discovery data; shared, not owned (close it yourself after the client). Give this or
   * `discovery`, not both.
   */
  readonly state?: LoadBalancerState;
  /**
   * Where to read D2 data from, when the client builds (and owns) its `LoadBalancerState`:
   * `{ zookeeper: { session } }`, `{ xds: { bootstrap } }` (rest.li's D2 over xDS, A71 fallback over
   * the bootstrap's observers) or `{ dualRead: { primary, secondary } }`; see {@link D2Discovery}.
   * Without it, `state` is required (a state over a ZooKeeper session, as before).
   */
  readonly discovery?: D2Discovery;
  /** Options of the underlying D2Client, minus the state. */
  readonly d2?: Omit<D2ClientOptions, 'state'>;
  /** Default false. */
  readonly enableClusterFailout?: boolean;
  /** Creates the provider from the state; required for failout. */
  readonly failoutConfigProviderFactory?: FailoutConfigProviderFactory;
  /** A strategy, or a factory given a view over the provider and the client's host counts. Required for failout. */
  readonly failoutRedirectStrategy?: FailoutRedirectStrategy | FailoutRedirectStrategyFactory;
  /** Warm up a failed-out cluster's peers before their traffic arrives. Default true. */
  readonly warmUp?: boolean;
  /** Deadline of one peer's warm-up, in ms; requests still open then count as failed. Default 5 s. */
  readonly warmUpTimeoutMs?: number;
  /** Hosts of one peer warmed at the same time. Default 16. */
  readonly warmUpConcurrency?: number;
  /** Connections opened per peer host. Default 1. */
  readonly warmUpConnectionsPerHost?: number;
  /** Path requested on each peer host, appended to its announced URI. Default `/`. */
  readonly warmUpPath?: string;
  /**
   * Each warm-up first waits a random 0…this many ms, so the clients that hear a failout at once do
   * not all connect to the peer at once (rest.li #779). Default 1000; 0 disables.
   */
  readonly warmUpMaxJitterMs?: number;
  /**
   * How long a peer stays watched after the failout that needed it ends, so in-flight requests can
   * finish; then every watch the failout created is torn down. Default 60 s (rest.li's).
   */
  readonly peerWatchTeardownDelayMs?: number;
  /**
   * Where every counter of the client goes: FailoutClient's, the provider's (`failout_config_malformed_total`),
   * the warm-ups' (`failout_warmups_*_total`) and the strategy's when its factory uses the context.
   * Default a private registry, exposed as {@link BuiltD2Client.registry}. Several clients may share one
   * registry: each counter is registered once and reports the sum of theirs, under the same labels.
   */
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
  /** The registry every counter of this client went to (the config's, or a private one): serve it as `/metrics`. */
  readonly registry: Registry;
  /** The state requests are routed by: the config's, or the one built from `discovery`. */
  readonly state: LoadBalancerState;
  /** Closes the client(s) and closes the provider. A given state stays open; one built from `discovery` is closed. */
  close(): Promise<void>;
}

/** rest.li's wording (D2ClientBuilder), kept so that operators find the same message. */
export const MISSING_STRATEGY_WARNING = 'A URI rewrite strategy is required for failout.';
/** Our addition: without a provider a FailoutClient could never see a failout. */
export const MISSING_PROVIDER_WARNING = 'A failout config provider factory is required for failout.';

/** What a build has started so far (closed again if a later part throws). */
interface Started {
  d2?: D2Client;
  provider?: FailoutConfigProvider;
}

/** rest.li's default peer watch teardown delay. */
const DEFAULT_TEARDOWN_DELAY_MS = 60_000;

/**
 * Builds a D2 client from a {@link D2ClientConfig} (rest.li `D2ClientBuilder#build`, failout part):
 * with failout enabled, a provider and a strategy it creates and starts the provider — handing it the
 * client's warm-up, teardown delay and registry — and wraps the client in a {@link FailoutClient};
 * with failout enabled but a part missing it warns and returns the unwrapped client.
 */
export function buildD2Client(config: D2ClientConfig): BuiltD2Client {
  const log = config.logger ?? createLogger('d2-client-builder');
  const registry = config.registry ?? new Registry();
  const teardownDelayMs = config.peerWatchTeardownDelayMs ?? DEFAULT_TEARDOWN_DELAY_MS;
  if ((config.state === undefined) === (config.discovery === undefined)) {
    throw new TypeError('buildD2Client needs either `state` or `discovery` (exactly one)');
  }
  const discovered = config.discovery ? discoverState(config.discovery, registry, config.logger) : undefined;
  // What this build starts is closed again when a later part throws (a strategy factory, a registry
  // holding another metric of a counter's name): an orphan provider would otherwise keep following
  // failout peers on the caller's state, and a state built from `discovery` would never close.
  const started: Started = {};
  try {
    return assemble(config, log, registry, teardownDelayMs, discovered, started);
  } catch (err) {
    started.provider?.close();
    started.d2?.close().catch(() => undefined);
    discovered?.close();
    throw err;
  }
}

/** The rest of {@link buildD2Client}: records in `started` what it starts, for the caller to close on a throw. */
function assemble(
  config: D2ClientConfig,
  log: Logger,
  registry: Registry,
  teardownDelayMs: number,
  discovered: DiscoveredState | undefined,
  started: Started,
): BuiltD2Client {
  const state = discovered?.state ?? config.state!;
  const closeState = (): void => discovered?.close();
  // A cluster a request was routed to that nobody watches is kept as long as a failout peer would be.
  const d2 = new D2Client({ borrowedClusterIdleMs: teardownDelayMs, registry, ...config.d2, state });
  started.d2 = d2;
  const plain = (): BuiltD2Client => ({
    request: (url, init) => d2.request(url, init === undefined || !('routingKey' in init) ? init : stripKey(init)),
    resolve: (url) => d2.resolve(url),
    failoutEnabled: false,
    provider: undefined,
    registry,
    state,
    close: async () => {
      try {
        await d2.close();
      } finally {
        closeState();
      }
    },
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
  const context: FailoutProviderContext = {
    warmUpHandlerFactory: config.warmUp === false ? undefined : warmUpThrough(d2, config, registry),
    peerWatchTeardownDelayMs: teardownDelayMs,
    registry,
    logger: config.logger,
  };
  const provider = config.failoutConfigProviderFactory.create(state, context);
  started.provider = provider;
  provider.start();
  const given = config.failoutRedirectStrategy;
  const view = new FailoutClusterInfoProvider(state, provider, d2);
  const strategy = typeof given === 'function' ? given(view, { registry, logger: config.logger }) : given;
  const client = new FailoutClient({ d2, provider, strategy, registry, logger: config.logger, discoveryTimeoutMs: config.d2?.discoveryTimeoutMs });
  return {
    request: (url, init) => client.request(url, init),
    resolve: (url, options) => client.resolve(url, options),
    failoutEnabled: true,
    provider,
    registry,
    state,
    close: async () => {
      try {
        await client.close();
      } finally {
        provider.close();
        closeState();
      }
    },
  };
}

/** One warm-up handler per failed-out cluster, each opening connections in `d2`'s own pools. */
function warmUpThrough(d2: D2Client, config: D2ClientConfig, registry: Registry): WarmUpHandlerFactory {
  // The handlers are made at the first failout; their counters are exported from the start.
  registerWarmUpCounters(registry);
  return () =>
    new D2ConnectionWarmUpHandler({
      client: d2,
      path: config.warmUpPath,
      timeoutMs: config.warmUpTimeoutMs,
      hostConcurrency: config.warmUpConcurrency,
      connectionsPerHost: config.warmUpConnectionsPerHost,
      maxJitterMs: config.warmUpMaxJitterMs,
      registry,
      logger: config.logger,
    });
}

function stripKey(init: FailoutRequestInit): Omit<FailoutRequestInit, 'routingKey'> {
  const { routingKey: _routingKey, ...rest } = init;
  return rest;
}
