/**
 * `canaryConfigs` and `canaryDistributionStrategy`, with the same rules for clusters and services
 * (`ClusterPropertiesJsonSerializer.fromMap`, `ServicePropertiesJsonSerializer.fromMap`).
 */

import type { Canary, CanaryDistributionStrategy } from '../model';
import type { ObjectReader } from './json';
import { appendExtra } from './json-writer';

/** The two top-level keys that hold a canary. */
export const CANARY_KEYS: readonly string[] = ['canaryConfigs', 'canaryDistributionStrategy'];

const STRATEGY_KEYS: ReadonlySet<string> = new Set([
  'strategy',
  'percentageStrategyProperties',
  'targetHostsStrategyProperties',
  'targetApplicationsStrategyProperties',
]);

/**
 * Reads the canary of a document. Both keys must be objects or null (rest.li casts both to Map before
 * looking at them), and the canary exists only when both are non-empty: either one alone is ignored.
 * @param readConfig - reads `canaryConfigs` with the same schema as the stable configuration.
 */
export function readCanary<T>(root: ObjectReader, readConfig: (configs: ObjectReader) => T): Canary<T> | null {
  const configs = root.optionalObject('canaryConfigs');
  const strategy = root.optionalObject('canaryDistributionStrategy');
  if (configs === null || strategy === null || configs.isEmpty() || strategy.isEmpty()) {
    return null;
  }
  return { configs: readConfig(configs), distributionStrategy: readDistributionStrategy(strategy) };
}

function readDistributionStrategy(r: ObjectReader): CanaryDistributionStrategy {
  return {
    strategy: r.optionalString('strategy', 'disabled'),
    percentageStrategyProperties: r.map('percentageStrategyProperties'),
    targetHostsStrategyProperties: r.map('targetHostsStrategyProperties'),
    targetApplicationsStrategyProperties: r.map('targetApplicationsStrategyProperties'),
    extra: r.extra(STRATEGY_KEYS),
  };
}

/**
 * Adds `canaryConfigs` and `canaryDistributionStrategy` to `out` when there is a canary.
 * @param configToJson - writes the canary configuration the way rest.li writes a bare configuration.
 */
export function appendCanary<T>(
  out: Map<string, unknown>,
  canary: Canary<T> | null,
  configToJson: (configs: T) => Map<string, unknown>,
): void {
  if (canary === null) {
    return;
  }
  const s = canary.distributionStrategy;
  const strategy = new Map<string, unknown>([
    ['strategy', s.strategy],
    ['percentageStrategyProperties', s.percentageStrategyProperties],
    ['targetHostsStrategyProperties', s.targetHostsStrategyProperties],
    ['targetApplicationsStrategyProperties', s.targetApplicationsStrategyProperties],
  ]);
  out.set('canaryConfigs', configToJson(canary.configs));
  out.set('canaryDistributionStrategy', appendExtra(strategy, s.extra, STRATEGY_KEYS));
}
