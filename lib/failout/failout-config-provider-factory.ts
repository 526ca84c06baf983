import type { LoadBalancerState } from '../d2';
import { ZooKeeperFailoutConfigProvider, type ZooKeeperFailoutConfigProviderOptions } from './failout-config-provider';
import type { FailoutConfigProvider, FailoutConfigProviderFactory } from './types';

/** Options for {@link ZooKeeperFailoutConfigProviderFactory}: the provider's, minus the state. */
export type ZooKeeperFailoutConfigProviderFactoryOptions = Omit<ZooKeeperFailoutConfigProviderOptions, 'state'>;

/**
 * Creates a {@link ZooKeeperFailoutConfigProvider} per load balancer state (rest.li
 * `FailoutConfigProviderFactory`). Every `create` returns a new provider: a load balancer rebuilt after
 * a session expiry, or a second one for dual read, must not share peer holds with the old one. The
 * caller starts and shuts down what it gets.
 */
export class ZooKeeperFailoutConfigProviderFactory implements FailoutConfigProviderFactory {
  constructor(private readonly options: ZooKeeperFailoutConfigProviderFactoryOptions = {}) {}

  /** A new, not yet started provider over `state`. */
  create(state: LoadBalancerState): FailoutConfigProvider {
    return new ZooKeeperFailoutConfigProvider({ ...this.options, state });
  }
}
