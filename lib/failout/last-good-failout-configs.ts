import type { FailoutPropertiesJson } from '../d2';
import { createLogger, type Logger } from '../logging';
import { isFailoutError } from './errors';
import { parseFailoutConfig } from './failout-config';
import type { FailoutConfig } from './types';

/** Options for {@link LastGoodFailoutConfigs}. */
export interface LastGoodFailoutConfigsOptions {
  /** Called after a malformed update is logged and counted (for a metric or an alert). */
  readonly onMalformed?: (cluster: string, error: Error) => void;
  /** Where malformed updates are logged; default a `failout-config` logger from `createLogger`. */
  readonly logger?: Logger;
}

/** Counters of a {@link LastGoodFailoutConfigs}. */
export interface LastGoodFailoutConfigsStats {
  /** Updates rejected as malformed since construction. */
  malformed: number;
  /** Clusters that currently have a config. */
  clusters: number;
}

/**
 * Parses every update of a cluster's `failoutProperties` and keeps the last good config per cluster:
 * a malformed update is logged, counted and ignored, so the failout in effect stays in effect
 * (ARCHITECTURE "Failout properties"; rest.li gets the same by publishing null, which its bus ignores).
 * An update without failout properties (`null`) is good and clears the config.
 *
 * Concurrency: plain maps, all on the event loop (the provider calls it from cluster listener callbacks).
 */
export class LastGoodFailoutConfigs {
  private readonly configs = new Map<string, FailoutConfig>();
  private readonly log: Logger;
  private malformed = 0;

  constructor(private readonly options: LastGoodFailoutConfigsOptions = {}) {
    this.log = options.logger ?? createLogger('failout-config');
  }

  /**
   * Applies one update and returns the config now in effect: the new one when `raw` parses, undefined
   * when it is `null`/`undefined` (no failout), and the previous one (possibly undefined) when `raw`
   * is malformed.
   */
  update(cluster: string, raw: FailoutPropertiesJson | null | undefined): FailoutConfig | undefined {
    try {
      const config = parseFailoutConfig(cluster, raw);
      if (config) this.configs.set(cluster, config);
      else this.configs.delete(cluster);
      return config;
    } catch (err) {
      if (!isFailoutError(err, 'malformedConfig')) throw err;
      this.malformed++;
      const kept = this.configs.get(cluster);
      this.log.error({ err, cluster, field: err.field, kept: kept !== undefined }, 'malformed failoutProperties ignored; last good config stays');
      this.options.onMalformed?.(cluster, err);
      return kept;
    }
  }

  /** The config in effect for `cluster`, if any. */
  get(cluster: string): FailoutConfig | undefined {
    return this.configs.get(cluster);
  }

  /** Forgets the cluster (its node is gone). */
  remove(cluster: string): void {
    this.configs.delete(cluster);
  }

  /** Counters. */
  stats(): LastGoodFailoutConfigsStats {
    return { malformed: this.malformed, clusters: this.configs.size };
  }
}
