/**
 * Load reporting (LRS, gRFC A27/A47): per-cluster load stores and one LRS stream per server.
 *
 * - A {@link LoadStore} counts calls started, succeeded, failed (per locality) and dropped (per
 *   category) for one cluster / EDS service name; each report takes the counts since the last one.
 * - An {@link LrsClient} holds one `StreamLoadStats` call to one server: the first request carries
 *   the node (with `envoy.lrs.supports_send_all_clusters`); the server's response sets the clusters
 *   and the interval; reports follow at that interval. A failed call is retried with the ADS
 *   backoff (1 s × 1.6, ±20 %, 120 s cap), immediately after a call that had a response.
 * - Which server a store reports to is decided by client.ts: the server that delivered the CDS
 *   resource (lrs_server: self), moving when that server changes.
 *
 * Concurrency: event-loop only; `stores` changes only through add/remove.
 */
import * as grpc from '@grpc/grpc-js';
import { channelCredentials, type XdsServerConfig } from './bootstrap';
import { RETRY_CAP_MS, retryDelayMs } from './channel';
import { loadXdsProtos, type ClusterStatsMessage, type LoadStatsRequest, type LoadStatsResponse, type NodeMessage } from './protos';
import type { Lifecycle } from '../lifecycle';

/** A locality as LRS reports it. */
export interface LrsLocality {
  /** `region`; reported as '' when absent. */
  readonly region?: string;
  /** `zone`; reported as '' when absent. */
  readonly zone?: string;
  /** `sub_zone`; reported as '' when absent. */
  readonly subZone?: string;
}

/** Counts the load of one cluster. */
export interface LoadStore {
  /** The CDS cluster counted; reported as `cluster_name`. */
  readonly clusterName: string;
  /** The cluster's EDS service name, reported as `cluster_service_name`; '' when none. */
  readonly edsServiceName: string;
  /** A call was sent to an endpoint of `locality`. */
  callStarted(locality?: LrsLocality): void;
  /** A started call finished. */
  callFinished(locality: LrsLocality | undefined, ok: boolean): void;
  /** A call was dropped before being sent (`category` as in the EDS drop_overloads). */
  callDropped(category?: string): void;
  /**
   * The stats since the last snapshot (in-progress is a gauge, kept); resets the counters.
   * @internal The LRS client's side: a `LoadReporter` does not offer it.
   */
  takeSnapshot(): ClusterStatsMessage;
}

interface LocalityCounts {
  readonly locality: LrsLocality;
  inProgress: number;
  succeeded: number;
  failed: number;
  issued: number;
}

/** Creates a {@link LoadStore}. */
export function createLoadStore(clusterName: string, edsServiceName = ''): LoadStore {
  const localities = new Map<string, LocalityCounts>();
  const dropped = new Map<string, number>();
  let lastSnapshot = process.hrtime.bigint();
  const counts = (locality: LrsLocality = {}): LocalityCounts => {
    const key = JSON.stringify([locality.region ?? '', locality.zone ?? '', locality.subZone ?? '']);
    let c = localities.get(key);
    if (!c) localities.set(key, (c = { locality, inProgress: 0, succeeded: 0, failed: 0, issued: 0 }));
    return c;
  };
  return {
    clusterName,
    edsServiceName,
    callStarted(locality) {
      const c = counts(locality);
      c.inProgress += 1;
      c.issued += 1;
    },
    callFinished(locality, ok) {
      const c = counts(locality);
      c.inProgress = Math.max(0, c.inProgress - 1);
      if (ok) c.succeeded += 1;
      else c.failed += 1;
    },
    callDropped(category = '') {
      dropped.set(category, (dropped.get(category) ?? 0) + 1);
    },
    takeSnapshot() {
      const now = process.hrtime.bigint();
      const elapsedNs = now - lastSnapshot;
      lastSnapshot = now;
      const stats: ClusterStatsMessage = {
        cluster_name: clusterName,
        cluster_service_name: edsServiceName,
        upstream_locality_stats: [...localities.values()].map((c) => ({
          locality: { region: c.locality.region ?? '', zone: c.locality.zone ?? '', sub_zone: c.locality.subZone ?? '' },
          total_successful_requests: c.succeeded,
          total_requests_in_progress: c.inProgress,
          total_error_requests: c.failed,
          total_issued_requests: c.issued,
        })),
        total_dropped_requests: [...dropped.values()].reduce((a, b) => a + b, 0),
        dropped_requests: [...dropped].filter(([category]) => category !== '').map(([category, n]) => ({ category, dropped_count: n })),
        load_report_interval: { seconds: Number(elapsedNs / 1_000_000_000n), nanos: Number(elapsedNs % 1_000_000_000n) },
      };
      for (const [key, c] of localities) {
        c.succeeded = c.failed = c.issued = 0;
        if (c.inProgress === 0) localities.delete(key);
      }
      dropped.clear();
      return stats;
    },
  };
}

/** Options of {@link LrsClient}. */
export interface LrsClientOptions {
  /** The management server to report load to. */
  readonly server: XdsServerConfig;
  /** Sent in the first request of each stream. */
  readonly node: NodeMessage;
  /** Aborting it closes the client. */
  readonly signal?: AbortSignal;
}

type LrsCall = grpc.ClientDuplexStream<LoadStatsRequest, LoadStatsResponse>;

/** One LRS stream to one server, reporting the stores added to it. */
export class LrsClient {
  private readonly stores = new Set<LoadStore>();
  private readonly grpcClient: grpc.Client;
  /** The stream: idle until the first store, streaming, backoff between calls, closed for good. */
  private stateValue: 'idle' | 'streaming' | 'backoff' | 'closed' = 'idle';
  private call: LrsCall | undefined;
  private received = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private reportTimer: NodeJS.Timeout | undefined;
  private sendAll = false;
  private clusters = new Set<string>();
  private readonly onAbort = (): void => this.close();

  constructor(private readonly options: LrsClientOptions) {
    const { LrsClient: Ctor } = loadXdsProtos();
    this.grpcClient = new Ctor(options.server.serverUri, channelCredentials(options.server));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The server's URI. */
  get serverUri(): string {
    return this.options.server.serverUri;
  }

  /** `idle` until the first store, `closed` after {@link close}, else `running` (derived from the stream's state). */
  get lifecycle(): Lifecycle {
    return this.stateValue === 'idle' || this.stateValue === 'closed' ? this.stateValue : 'running';
  }

  /** Number of stores reported here. */
  get size(): number {
    return this.stores.size;
  }

  /** Starts reporting a store (opens the stream on the first one). */
  addStore(store: LoadStore): void {
    if (this.stateValue === 'closed') return;
    this.stores.add(store);
    if (this.stateValue === 'idle') this.open();
  }

  /** Stops reporting a store. */
  removeStore(store: LoadStore): void {
    this.stores.delete(store);
  }

  /** Ends the stream and every timer. Idempotent. */
  close(): void {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    this.options.signal?.removeEventListener('abort', this.onAbort);
    clearTimeout(this.retryTimer);
    clearInterval(this.reportTimer);
    this.call?.cancel();
    this.call = undefined;
    this.grpcClient.close();
  }

  private open(): void {
    this.stateValue = 'streaming';
    this.received = false;
    const method = (this.grpcClient as unknown as Record<string, () => LrsCall>).StreamLoadStats;
    const call = method.call(this.grpcClient);
    this.call = call;
    let finished = false;
    const finish = (): void => {
      if (finished || this.call !== call) return;
      finished = true;
      this.onCallEnded();
    };
    call.on('data', (response: LoadStatsResponse) => {
      if (this.call === call) this.onResponse(response);
    });
    call.on('error', finish);
    call.on('status', finish);
    call.write({ node: this.options.node, cluster_stats: [] });
  }

  private onResponse(response: LoadStatsResponse): void {
    this.received = true;
    this.attempt = 0;
    this.sendAll = response.send_all_clusters;
    this.clusters = new Set(response.clusters);
    const interval = response.load_reporting_interval;
    const ms = interval ? Number(interval.seconds) * 1000 + Math.floor(interval.nanos / 1e6) : 10_000;
    clearInterval(this.reportTimer);
    this.reportTimer = setInterval(() => this.report(), Math.max(100, ms));
    this.reportTimer.unref?.();
  }

  private report(): void {
    const stats = [...this.stores]
      .filter((s) => this.sendAll || this.clusters.has(s.clusterName))
      .map((s) => s.takeSnapshot());
    this.call?.write({ cluster_stats: stats });
  }

  private onCallEnded(): void {
    this.call = undefined;
    clearInterval(this.reportTimer);
    if (this.stateValue === 'closed') return;
    this.stateValue = 'backoff';
    const delay = this.received ? 0 : retryDelayMs(this.attempt++, RETRY_CAP_MS);
    this.retryTimer = setTimeout(() => {
      if (this.stateValue === 'backoff') this.open();
    }, delay);
    this.retryTimer.unref?.();
  }
}
