/**
 * The bridge's Prometheus metrics, on a private registry (several bridges in one process — the tests —
 * must not share counters). Gauges read their value at scrape time from the bridge.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { XdsClientDump } from '../xds';
import type { MultiOp } from '../zk';

/** What the gauges read at scrape time. */
export interface MetricsSource {
  dump(): XdsClientDump;
  isLeader(): boolean;
  /** Age of the oldest entity waiting to be written, in seconds (0 when none). */
  pendingLagSeconds(): number;
}

/** True when an authority is served by a lower-priority server than its first. */
export function fallbackActive(authority: XdsClientDump['authorities'][number]): boolean {
  return authority.activeServer !== undefined && authority.activeServer !== authority.servers[0]?.serverUri;
}

/** The metric families of one bridge. */
export class BridgeMetrics {
  readonly registry = new Registry();
  private readonly serverSwitches: Counter<'authority' | 'reason'>;
  private readonly writes: Counter<'op'>;
  private readonly writeFailures: Counter<'kind'>;
  private readonly syncLag: Histogram;

  constructor(source: MetricsSource) {
    const registers = [this.registry];
    new Gauge({
      name: 'xds_bridge_fallback_active',
      help: '1 while the authority is served by a fallback (lower-priority) xDS server',
      labelNames: ['authority'],
      registers,
      collect() {
        this.reset();
        for (const a of source.dump().authorities) this.set({ authority: a.authority || 'default' }, fallbackActive(a) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'xds_bridge_leader',
      help: '1 while this replica leads (writes to ZooKeeper)',
      registers,
      collect() {
        this.set(source.isLeader() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'xds_bridge_sync_lag_seconds',
      help: 'Age of the oldest xDS change not yet written to ZooKeeper',
      registers,
      collect() {
        this.set(source.pendingLagSeconds());
      },
    });
    this.serverSwitches = new Counter({ name: 'xds_bridge_server_switches_total', help: 'xDS server switches (fallback and return)', labelNames: ['authority', 'reason'], registers });
    this.writes = new Counter({ name: 'xds_bridge_zk_writes_total', help: 'ZooKeeper write operations that landed', labelNames: ['op'], registers });
    this.writeFailures = new Counter({ name: 'xds_bridge_zk_write_failures_total', help: 'ZooKeeper write batches or reads that failed', labelNames: ['kind'], registers });
    this.syncLag = new Histogram({
      name: 'xds_bridge_sync_duration_seconds',
      help: 'From an xDS change to its ZooKeeper write',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
  }

  /** An authority switched server. */
  serverSwitched(authority: string, reason: 'fallback' | 'return'): void {
    this.serverSwitches.inc({ authority: authority || 'default', reason });
  }

  /** A batch landed. */
  batchWritten(ops: readonly MultiOp[]): void {
    for (const op of ops) this.writes.inc({ op: op.op });
  }

  /** A write or read failed. */
  writeFailed(kind: string): void {
    this.writeFailures.inc({ kind });
  }

  /** An entity reached its target. */
  synced(lagMs: number): void {
    this.syncLag.observe(lagMs / 1000);
  }

  /** Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
