import type { LoadBalancerState } from '../d2';
import { ZooKeeperFailoutConfigProvider, type ZooKeeperFailoutConfigProviderOptions } from './failout-config-provider';
import type { FailoutConfigProvider, FailoutConfigProviderFactory, FailoutProviderContext } from './types';

/** Options for {@link ZooKeeperFailoutConfigProviderFactory}: the provider's, minus the state. */
export type ZooKeeperFailoutConfigProviderFactoryOptions = Omit<ZooKeeperFailoutConfigProviderOptions, 'state'>;

/**
 * Creates a {@link ZooKeeperFailoutConfigProvider} per load balancer state (rest.li
 * `FailoutConfigProviderFactory`). Every `create` returns a new provider: a load balancer rebuilt after
 * a session expiry, or a second one for dual read, must not share peer holds with the old one. The
 * caller starts and closes what it gets.
 *
 * The context `buildD2Client` passes (the built client's warm-up, the config's teardown delay, registry
 * and logger) fills in what this factory's own options leave unset; an option set here wins.
 */
export class ZooKeeperFailoutConfigProviderFactory implements FailoutConfigProviderFactory {
  constructor(private readonly options: ZooKeeperFailoutConfigProviderFactoryOptions = {}) {}

  /** A new, not yet started provider over `state`, with `context` filling in unset options. */
  create(state: LoadBalancerState, context: FailoutProviderContext = {}): FailoutConfigProvider {
    const o = this.options;
    return new ZooKeeperFailoutConfigProvider({
      ...o,
      state,
      warmUpHandlerFactory: o.warmUpHandlerFactory ?? context.warmUpHandlerFactory,
      peerWatchTeardownDelayMs: o.peerWatchTeardownDelayMs ?? context.peerWatchTeardownDelayMs,
      registry: o.registry ?? context.registry,
      logger: o.logger ?? context.logger,
    });
  }
}
