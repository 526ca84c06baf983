import { judgeRequest, viewPathFor, projectPeerLoad, type CapacityProjection, type ChangeRequest, type ForceOverride, type Rejection, type RequestRates } from '../requests';
import type { ZkSession } from '../zk';
import { describeCluster, type ClusterStatus } from './cluster-status';
import type { OperatorSettings } from './settings';

/**
 * What `--dry-run` found: the cluster before and after (and a failout's load projection per peer:
 * `capacity` from host counts, as the worker judges; `capacityByRates` from measured request rates,
 * when they were given and cover X and every peer with hosts, else `ratesUnused` says why not), or
 * the rejection the worker would record.
 */
export type DryRunResult =
  | {
      readonly ok: true;
      readonly before: ClusterStatus;
      readonly after: ClusterStatus;
      readonly capacity?: CapacityProjection;
      readonly capacityByRates?: CapacityProjection;
      readonly ratesUnused?: string;
      /** With `--force`: what force overrides (issue 21 audit); empty when it overrides nothing. */
      readonly forced?: readonly ForceOverride[];
      /** A restore of a cluster whose `failoutProperties` do not read: the codec's error (the restore removes them). */
      readonly unreadableFailout?: string;
    }
  | {
      readonly ok: false;
      readonly rejection: Rejection;
      /** For `insufficientPeerCapacity`: the projections, as for an accepted failout. */
      readonly capacity?: CapacityProjection;
      readonly capacityByRates?: CapacityProjection;
      readonly ratesUnused?: string;
    };

/**
 * Judges a request (already through the worker's schema: `validateLocally`) against the live ZooKeeper
 * state the way the worker would at this moment: read the cluster and its peers, `applyRequest`.
 * Writes nothing. The worker decides again when the request arrives; the state may have changed by then.
 */
export async function dryRun(session: ZkSession, settings: OperatorSettings, request: ChangeRequest, now: number, rates?: RequestRates): Promise<DryRunResult> {
  const judgement = await judgeRequest(session, settings.d2Base, request, now, { maxPeerLoadFactor: settings.maxPeerLoadFactor, viewPath: viewPathFor(settings.requestsBase) });
  if (judgement.verdict === 'reject') {
    const refused = { ok: false, rejection: judgement.rejection } as const;
    return judgement.capacity === undefined ? refused : { ...refused, capacity: judgement.capacity, ...projectByRates(judgement.capacity, rates) };
  }
  const result = {
    ok: true,
    before: describeCluster(request.cluster, judgement.beforeText, now),
    after: describeCluster(request.cluster, judgement.afterText, now),
    ...(judgement.forced === undefined ? {} : { forced: judgement.forced }),
    ...(judgement.unreadableFailout === undefined ? {} : { unreadableFailout: judgement.unreadableFailout }),
  } as const;
  if (judgement.capacity === undefined) return result;
  return { ...result, capacity: judgement.capacity, ...projectByRates(judgement.capacity, rates) };
}

/**
 * The host-count projection again from request rates (the same peers, weights, moved share and
 * limit): `capacityByRates` when the rates cover X and every peer with hosts, else why not.
 */
export function projectByRates(capacity: CapacityProjection, rates: RequestRates | undefined): { capacityByRates?: CapacityProjection; ratesUnused?: string } {
  if (rates === undefined) return {};
  const byRates = projectPeerLoad({ ...capacity.input, rates });
  if (byRates.basis === 'requestRates') return { capacityByRates: byRates };
  return byRates.ratesUnused === undefined ? {} : { ratesUnused: byRates.ratesUnused };
}

/**
 * The projections as text: from request rates first when there is one, then the worker's (host
 * counts), saying which one the worker judges by; or why measured rates were not used.
 */
export function formatProjections(result: { readonly ok?: boolean; readonly capacity?: CapacityProjection | undefined; readonly capacityByRates?: CapacityProjection | undefined; readonly ratesUnused?: string | undefined }): string {
  if (result.capacity === undefined) return '';
  // Over the limit and applied: only force gets there. Rejected: force was not used (yet).
  const hosts = formatCapacity(result.capacity, { applied: result.ok === true });
  if (result.capacityByRates !== undefined) return `${formatCapacity(result.capacityByRates)}\nthe worker judges by host counts (it cannot see request rates): ${hosts}`;
  if (result.ratesUnused !== undefined) return `request rates not used (${result.ratesUnused}): ${hosts}`;
  return hosts;
}

/** A projection for `--json`: what it found, without the input it was made from (shown elsewhere). */
export function projectionJson(capacity: CapacityProjection | undefined): Omit<CapacityProjection, 'input'> | undefined {
  if (capacity === undefined) return undefined;
  const { input: _input, ...rest } = capacity;
  return rest;
}

/**
 * A failout's projection, one line per peer: hosts, load moved to it and the load factor against the
 * limit, marked when over. From host counts, load is in units of "one host's load of the failed-out
 * cluster" (an `applied` request this far over the limit was forced: marked so); from request rates, in requests/s
 * (over the limit there is a warning only: the worker judges by host counts).
 */
export function formatCapacity(capacity: CapacityProjection, options: { readonly applied?: boolean } = {}): string {
  if (capacity.basis === 'requestRates') {
    const lines = capacity.peers.map((p) => {
      const factor = p.loadFactor === null ? 'no hosts, gets nothing' : `×${round(p.loadFactor)}${p.over ? ' OVER THE LIMIT' : ''}`;
      const rate = p.rate === undefined ? '' : `${round(p.rate)} req/s, `;
      const other = p.otherLoad === undefined ? '' : `+${round(p.otherLoad)} req/s from failouts starting later, `;
      return `  ${p.cluster}: ${p.hosts} hosts, ${rate}${other}+${round(p.addedLoad)} req/s → ${factor}`;
    });
    const source = capacity.ratesSource === undefined ? '' : `${capacity.ratesSource}; `;
    const of = capacity.input.cluster === undefined ? '' : ` of ${capacity.input.cluster}'s ${round(capacity.clusterRate ?? 0)} req/s`;
    return `projection from request rates (${source}${round(capacity.movedLoad)} req/s${of} move, limit ×${capacity.maxPeerLoadFactor}):\n${lines.join('\n')}`;
  }
  const lines = capacity.peers.map((p) => {
    const factor = p.loadFactor === null ? 'no hosts, gets nothing' : `×${round(p.loadFactor)}${p.over ? ` OVER THE LIMIT${options.applied === true ? ' (forced)' : ''}` : ''}`;
    const other = p.otherLoad === undefined ? '' : `${p.otherLoad >= 0 ? '+' : ''}${round(p.otherLoad)} hosts' load from other failouts, `;
    return `  ${p.cluster}: ${p.hosts} hosts, ${other}+${round(p.addedLoad)} hosts' load → ${factor}`;
  });
  return `peer load projection (from host counts; ${round(capacity.movedLoad)} hosts' load moves, limit ×${capacity.maxPeerLoadFactor}):\n${lines.join('\n')}`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
