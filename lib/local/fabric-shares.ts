/**
 * Where each service's traffic went, by fabric (issue 23): the figures of the scenario's evacuation
 * step and the live view's fabric line. A sample's fabric comes from its cluster's name by the fabric
 * rule (lib/fabrics `ruleMatch`, docs/operators.md "Fabrics": `<service>-<fabric>`), so nothing here
 * knows the sample topology. Pure: no clock, no I/O.
 */
import { ruleMatch } from '../fabrics';
import type { Sample } from './traffic';

/** What the shares read of a sample. */
export type FabricSample = Pick<Sample, 'service' | 'cluster' | 'ok'>;

/** One service's requests, counted by the fabric they landed in. */
export interface ServiceFabricShares {
  readonly service: string;
  /** Every request to the service in the samples. */
  readonly total: number;
  /** Requests that failed (an answer ≥ 500, or no answer). */
  readonly errors: number;
  /** Requests that reached no cluster (failed before a target was chosen). */
  readonly unrouted: number;
  /** Requests by fabric; a cluster the rule places in no fabric counts under its own name. */
  readonly byFabric: ReadonlyMap<string, number>;
}

/** The fabric of `cluster` of `service` by the fabric rule, or undefined when its name does not follow it. */
export function fabricOfCluster(service: string, cluster: string): string | undefined {
  return ruleMatch(new Set([service]), cluster)?.fabric;
}

/**
 * Each service's requests by fabric, for `services` in that order (a service with no sample has
 * `total` 0); samples of other services are left out.
 */
export function sharesByFabric(samples: readonly FabricSample[], services: readonly string[]): ServiceFabricShares[] {
  const counts = new Map(services.map((service) => [service, { total: 0, errors: 0, unrouted: 0, byFabric: new Map<string, number>() }]));
  for (const s of samples) {
    const c = counts.get(s.service);
    if (c === undefined) continue;
    c.total++;
    if (!s.ok) c.errors++;
    if (s.cluster === undefined) {
      c.unrouted++;
      continue;
    }
    const fabric = fabricOfCluster(s.service, s.cluster) ?? s.cluster;
    c.byFabric.set(fabric, (c.byFabric.get(fabric) ?? 0) + 1);
  }
  return services.map((service) => ({ service, ...counts.get(service)! }));
}

/** The percentage of `shares`' requests that landed in `fabric` (0 with no request). */
export function fabricPercent(shares: ServiceFabricShares, fabric: string): number {
  return shares.total === 0 ? 0 : (100 * (shares.byFabric.get(fabric) ?? 0)) / shares.total;
}

/** A target fabric of an evacuation and its weight (`--to lva1:2,ltx1:1`). */
export interface WeightedFabric {
  readonly fabric: string;
  readonly weight: number;
}

/** How one service's traffic matched an evacuation of `from` to weighted targets. */
export interface EvacuatedSharesVerdict {
  readonly service: string;
  readonly total: number;
  /** Percent of the service's requests still landing in the evacuated fabric. */
  readonly leftPct: number;
  /** Per target: its percentage of the requests that landed in the targets, and the planned one. */
  readonly split: readonly { readonly fabric: string; readonly pct: number; readonly plannedPct: number }[];
  /** Percent of the service's requests that landed in neither the evacuated fabric nor a target. */
  readonly elsewherePct: number;
  readonly errors: number;
  /** Requests seen, none left in `from` nor elsewhere, no error, every target within the tolerance. */
  readonly passed: boolean;
}

/**
 * Judges one service's shares after an evacuation of `from` to `targets`: everything off `from`, all
 * of it in the targets, split by their weights within `tolerancePct` percentage points, no errors.
 */
export function judgeEvacuatedShares(shares: ServiceFabricShares, from: string, targets: readonly WeightedFabric[], tolerancePct: number): EvacuatedSharesVerdict {
  const weights = targets.reduce((sum, t) => sum + t.weight, 0);
  const moved = targets.reduce((sum, t) => sum + (shares.byFabric.get(t.fabric) ?? 0), 0);
  const split = targets.map((t) => ({ fabric: t.fabric, pct: moved === 0 ? 0 : (100 * (shares.byFabric.get(t.fabric) ?? 0)) / moved, plannedPct: weights === 0 ? 0 : (100 * t.weight) / weights }));
  const leftPct = fabricPercent(shares, from);
  const elsewherePct = shares.total === 0 ? 0 : (100 * (shares.total - moved - (shares.byFabric.get(from) ?? 0))) / shares.total;
  const within = split.every((t) => Math.abs(t.pct - t.plannedPct) <= tolerancePct);
  return { service: shares.service, total: shares.total, leftPct, split, elsewherePct, errors: shares.errors, passed: shares.total > 0 && leftPct === 0 && elsewherePct === 0 && shares.errors === 0 && within };
}
