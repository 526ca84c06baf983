/**
 * The observer's Prometheus metrics, on a private registry (several observers in one process — the
 * tests — must not share counters). Gauges read their value at scrape time.
 */
import { Counter, Gauge, Registry } from 'prom-client';

/** What the gauges read at scrape time. */
export interface ObserverMetricsSource {
  /** ADS streams open now (SotW and delta). */
  streams(): number;
  /** Delta (incremental) ADS streams open now, counted in {@link streams} too. */
  deltaStreams(): number;
  /** (resource, stream) subscriptions now. */
  subscriptions(): number;
  /** Resources watched in ZooKeeper now (lingering ones included). */
  watchedResources(): number;
  /** 1 while the ZooKeeper session is connected. */
  zkConnected(): boolean;
  /** Seconds since the last successful ZooKeeper read (0 before any). */
  secondsSinceLastRead(): number;
  /** Seconds the ZooKeeper session has been disconnected (0 while connected). */
  secondsDisconnected(): number;
}

/** The metric families of one observer. */
export class ObserverMetrics {
  /** The registry `/metrics` renders. */
  readonly registry = new Registry();
  private readonly pushes: Counter<'type'>;
  private readonly pushedResources: Counter<'type'>;
  private readonly encodes: Counter<'type'>;
  private readonly encodedResponses: Counter<'type'>;
  private readonly nacks: Counter<'type'>;
  private readonly malformed: Counter;

  constructor(source: ObserverMetricsSource) {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => number): void => {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    };
    gauge('d2_observer_ads_streams', 'ADS streams open now (SotW and delta)', () => source.streams());
    // Its own family rather than a protocol label on the one above, so the streams gauge keeps its series.
    gauge('d2_observer_ads_delta_streams', 'Delta (incremental) ADS streams open now, counted in d2_observer_ads_streams too', () => source.deltaStreams());
    gauge('d2_observer_subscriptions', 'Subscriptions (resource, stream) now', () => source.subscriptions());
    gauge('d2_observer_watched_resources', 'Resources watched in ZooKeeper now, lingering ones included', () => source.watchedResources());
    gauge('d2_observer_zk_connected', '1 while the ZooKeeper session is connected', () => (source.zkConnected() ? 1 : 0));
    gauge('d2_observer_zk_last_read_age_seconds', 'Seconds since a ZooKeeper read last delivered (reads follow changes: a quiet tree ages too; alarm with d2_observer_zk_connected)', () => source.secondsSinceLastRead());
    gauge('d2_observer_zk_disconnected_seconds', 'Seconds the ZooKeeper session has been disconnected (0 while connected)', () => source.secondsDisconnected());
    this.pushes = new Counter({ name: 'd2_observer_pushes_total', help: 'ADS responses sent', labelNames: ['type'], registers });
    this.pushedResources = new Counter({ name: 'd2_observer_pushed_resources_total', help: 'Resources sent in ADS responses', labelNames: ['type'], registers });
    this.encodes = new Counter({ name: 'd2_observer_encodes_total', help: 'Resources encoded (once per change, for every subscriber)', labelNames: ['type'], registers });
    this.encodedResponses = new Counter({ name: 'd2_observer_encoded_responses_total', help: 'ADS responses encoded (once for all the streams with the same subscription; pushes over this is the sharing)', labelNames: ['type'], registers });
    this.nacks = new Counter({ name: 'd2_observer_nacks_total', help: 'Responses clients rejected', labelNames: ['type'], registers });
    this.malformed = new Counter({ name: 'd2_observer_malformed_nodes_total', help: 'Znode reads not served (not JSON or not a valid D2 document); the last good version stays', registers });
  }

  /** A response of `typeUrl` with `resources` resources went out. */
  pushed(typeUrl: string, resources: number): void {
    const type = shortType(typeUrl);
    this.pushes.inc({ type });
    this.pushedResources.inc({ type }, resources);
  }

  /** A resource of `typeUrl` was encoded. */
  encoded(typeUrl: string): void {
    this.encodes.inc({ type: shortType(typeUrl) });
  }

  /** A response of `typeUrl` was encoded. */
  responseEncoded(typeUrl: string): void {
    this.encodedResponses.inc({ type: shortType(typeUrl) });
  }

  /** A client NACKed a response of `typeUrl`. */
  nacked(typeUrl: string): void {
    this.nacks.inc({ type: shortType(typeUrl) });
  }

  /** A znode read was not served. */
  malformedNode(): void {
    this.malformed.inc();
  }

  /** Prometheus text exposition and its content type. */
  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

/** `type.googleapis.com/indis.D2Node` → `D2Node` (short label values). */
function shortType(typeUrl: string): string {
  return typeUrl.substring(typeUrl.lastIndexOf('.') + 1);
}
