import * as format from '../d2/data';
import type { FailoutProperties } from '../d2/data';
import type { FailoutConfig, FailoutPeer, FailoutWindow } from './types';

// The format's rules, bound once: a re-exported binding is a getter call per use once compiled to
// CommonJS (two levels here), and `isFailedOut` runs on every request of a cluster with a failout.
const { effectiveBucket, isBucketFailedOutAt, isFailedOutAt, redirectWeight } = format;

// The constants belong to the format (lib/d2/codecs/failout.ts); re-exported for the routing code here.
export { ALL_BUCKETS, BUCKETS, DEFAULT_PARTITION } from '../d2/data';

/**
 * Builds the runtime view of a cluster's failout (rest.li `ZKFailoutConfigProvider.createFailoutConfig`)
 * from the typed properties `LoadBalancerState.getFailoutProperties` gives. The codec has validated
 * them already, so this cannot fail.
 *
 * - `null` (absent, `null` or `{}`) → `undefined`: no failout.
 * - Present with both lists empty → a config that is never failed out (rest.li's test provider:
 *   "config present, not failed out"), so `FailoutConfigProvider.getFailoutConfig` stays non-null.
 * - Peers are the redirect entries in order, weight defaulted to 1; the `{}` entries rest.li's tests
 *   write (`ignoredRedirectEntries`) name no peer and are left out.
 * - Windows are the bucket entries with the format's defaults applied (all buckets, partition `main`,
 *   offline since epoch 0). The partition is kept but does not narrow the decision: requests carry none.
 *
 * @param cluster - the cluster the properties belong to.
 * @param props - the cluster's typed failout properties, or null when it has none.
 * @param previous - the cluster's config until now, if any: when its peers are the same (names and
 * weights, in order), its frozen peer list and peer set are shared rather than built again. Every client
 * builds a config for every write of every cluster it follows, and most writes (a window, a ramp step,
 * a restore) leave the peers as they were.
 */
export function createFailoutConfig(cluster: string, props: FailoutProperties | null, previous?: FailoutConfig): FailoutConfig | undefined {
  if (props === null) return undefined;
  const shared = previous instanceof TypedFailoutConfig && previous.cluster === cluster && samePeers(previous.peers, props) ? previous : undefined;
  const peers = shared?.peers ?? props.redirects.map((r): FailoutPeer => Object.freeze({ cluster: r.peer, weight: redirectWeight(r) }));
  const windows = props.buckets.map((b): FailoutWindow => {
    const effective = effectiveBucket(b);
    return Object.freeze({
      partition: effective.partition,
      buckets: Object.freeze({ from: effective.range.from, to: effective.range.to }),
      offlineAt: effective.offlineAt,
      onlineAt: effective.onlineAt,
      requestId: b.requestId,
      requestedBy: b.requestedBy,
      reason: b.reason,
    });
  });
  // The rules read the model's own shape; this copy holds only what they read, so the config stays
  // immutable even if somebody mutates the state's cached properties. It never leaves the config, so
  // its entries need no freezing.
  const timing: FailoutProperties = {
    redirects: [],
    ignoredRedirectEntries: 0,
    buckets: windows.map((w) => ({ bucketOfflineRange: w.buckets, offlineAt: w.offlineAt, onlineAt: w.onlineAt })),
  };
  return new TypedFailoutConfig(cluster, timing, peers, windows, shared?.getPeerClusters());
}

/** Whether `props` name the same peers with the same weights, in the same order, as `peers`. */
function samePeers(peers: readonly FailoutPeer[], props: FailoutProperties): boolean {
  const redirects = props.redirects;
  if (redirects.length !== peers.length) return false;
  for (let i = 0; i < redirects.length; i++) {
    const r = redirects[i]!;
    const p = peers[i]!;
    if (r.peer !== p.cluster || redirectWeight(r) !== p.weight) return false;
  }
  return true;
}

/**
 * The immutable runtime config. Fixed after construction; the time-dependent answers are computed on
 * every call (a few windows at most) by the format's own rules (`isFailedOutAt`, `isBucketFailedOutAt`
 * in lib/d2), so scheduled starts and ends need no further write and the rule lives once.
 */
class TypedFailoutConfig implements FailoutConfig {
  private readonly peerClusters: ReadonlySet<string>;
  /** `isFailedOut`'s last answer and the span `[memoFrom, memoUntil)` between window boundaries where it holds. */
  private memoFrom = 0;
  private memoUntil = 0;
  private memoAnswer = false;

  constructor(
    readonly cluster: string,
    /** The windows' timing in the model's shape, for the format's rules. */
    private readonly timing: FailoutProperties,
    readonly peers: readonly FailoutPeer[],
    readonly windows: readonly FailoutWindow[],
    /** The set of `peers`' names when a config with the same peers has built it already. */
    peerClusters?: ReadonlySet<string>,
  ) {
    Object.freeze(peers);
    Object.freeze(windows);
    this.peerClusters = peerClusters ?? new Set(peers.map((p) => p.cluster));
  }

  isFailedOut(now: number = Date.now()): boolean {
    // Asked on every request: the last answer holds until the next window boundary, so it is kept
    // with the span it is valid for and re-derived from the format's rule only outside it.
    if (now >= this.memoFrom && now < this.memoUntil) return this.memoAnswer;
    const answer = isFailedOutAt(this.timing, now);
    let from = -Infinity;
    let until = Infinity;
    for (const w of this.windows) {
      const end = w.onlineAt ?? Infinity;
      if (w.offlineAt <= now) from = Math.max(from, w.offlineAt);
      else until = Math.min(until, w.offlineAt);
      if (end <= now) from = Math.max(from, end);
      else until = Math.min(until, end);
    }
    this.memoFrom = from;
    this.memoUntil = until;
    this.memoAnswer = answer;
    return answer;
  }

  isBucketFailedOut(bucket: number, now: number = Date.now()): boolean {
    return isBucketFailedOutAt(this.timing, bucket, now);
  }

  getPeerClusters(): ReadonlySet<string> {
    return this.peerClusters;
  }
}
