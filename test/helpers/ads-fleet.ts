/**
 * Many raw ADS streams from grpc-js multiplexed over a few channels (one HTTP/2 connection each), for
 * the observer's scale test. Every stream subscribes to the same names of one type, ACKs each
 * response and keeps only its latest one; waiting is event-driven (no timer per stream), so ten
 * thousand streams cost the test process little more than their responses.
 */
import * as grpc from '@grpc/grpc-js';
import { loadXdsProtos } from '../../lib/xds';
import type { DiscoveryRequest, DiscoveryResponse } from '../../lib/xds/envoy-protos';

/** What a fleet opens. */
export interface AdsFleetOptions {
  /** Channels, each its own connection (a local subchannel pool keeps grpc-js from sharing one). */
  readonly channels: number;
  /** Streams in all, spread round-robin over the channels. */
  readonly streams: number;
  /** The type every stream subscribes to. */
  readonly typeUrl: string;
  /** The names every stream subscribes to. */
  readonly names: readonly string[];
}

type AdsCall = grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;

/** A fleet of raw ADS streams; {@link close} ends them all. */
export class AdsFleet {
  /** The latest response of each stream (undefined before its first). */
  readonly latest: (DiscoveryResponse | undefined)[];
  /** Streams that ended with an error. */
  errors = 0;
  private readonly clients: grpc.Client[] = [];
  private readonly calls: AdsCall[] = [];
  private waiter: { predicate: (r: DiscoveryResponse) => boolean; done: boolean[]; left: number; resolve: () => void } | undefined;

  constructor(address: string, private readonly options: AdsFleetOptions) {
    this.latest = new Array<DiscoveryResponse | undefined>(options.streams).fill(undefined);
    const { AdsClient } = loadXdsProtos();
    for (let c = 0; c < options.channels; c++) {
      this.clients.push(new AdsClient(address, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
    }
  }

  /** Opens every stream and sends its subscription. */
  open(): void {
    const { typeUrl, names, streams } = this.options;
    for (let i = 0; i < streams; i++) {
      const client = this.clients[i % this.clients.length] as unknown as { StreamAggregatedResources(): AdsCall };
      const call = client.StreamAggregatedResources();
      this.calls.push(call);
      call.on('data', (response: DiscoveryResponse) => {
        this.latest[i] = response;
        call.write({ version_info: response.version_info, response_nonce: response.nonce, type_url: typeUrl, resource_names: [...names] });
        this.check(i, response);
      });
      call.on('error', () => this.errors++);
      call.write({ version_info: '', response_nonce: '', node: { id: `fleet-${i}` }, type_url: typeUrl, resource_names: [...names] });
    }
  }

  /** Resolves once the latest response of every stream satisfies `predicate`; rejects after `timeoutMs`. */
  async waitAll(predicate: (r: DiscoveryResponse) => boolean, timeoutMs: number): Promise<void> {
    const done = this.latest.map((r) => r !== undefined && predicate(r));
    const left = done.filter((d) => !d).length;
    if (left === 0) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.waiter = { predicate, done, left, resolve };
        timer = setTimeout(() => reject(new Error(`${this.waiter?.left ?? 0} of ${this.options.streams} streams not there within ${timeoutMs} ms (${this.errors} errors)`)), timeoutMs);
      });
    } finally {
      clearTimeout(timer);
      this.waiter = undefined;
    }
  }

  /** Cancels every stream and closes every channel. */
  close(): void {
    for (const call of this.calls) call.cancel();
    for (const client of this.clients) client.close();
  }

  private check(i: number, response: DiscoveryResponse): void {
    const w = this.waiter;
    if (!w || w.done[i] || !w.predicate(response)) return;
    w.done[i] = true;
    if (--w.left === 0) w.resolve();
  }
}
