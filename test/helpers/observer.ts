/**
 * Helpers of the observer's integration tests: a raw ADS stream from @grpc/grpc-js that queues what
 * an observer sends, decoding its D2 nodes as a client would, and reading one sample of /metrics.
 */
import * as grpc from '@grpc/grpc-js';
import { indis } from '../../lib/xds';
import { loadXdsProtos, type DiscoveryRequest, type DiscoveryResponse } from '../../lib/xds/envoy-protos';

/** A raw ADS stream that queues what the observer sends. */
export class RawAdsStream {
  readonly responses: DiscoveryResponse[] = [];
  private taken = 0;
  private readonly client: grpc.Client;
  private readonly call: grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;

  constructor(address: string, credentials = grpc.credentials.createInsecure()) {
    const { AdsClient } = loadXdsProtos();
    this.client = new AdsClient(address, credentials);
    this.call = (this.client as unknown as { StreamAggregatedResources(): grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse> }).StreamAggregatedResources();
    this.call.on('data', (r: DiscoveryResponse) => this.responses.push(r));
    this.call.on('error', () => undefined);
  }

  send(req: Partial<DiscoveryRequest> & Pick<DiscoveryRequest, 'type_url' | 'resource_names'>): void {
    this.call.write({ version_info: '', response_nonce: '', node: { id: 'raw-test' }, ...req });
  }

  /** The next response, or undefined when none came within `ms`. */
  async next(ms = 5000): Promise<DiscoveryResponse | undefined> {
    const deadline = Date.now() + ms;
    while (this.responses.length <= this.taken && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.responses.length > this.taken ? this.responses[this.taken++] : undefined;
  }

  /** ACKs `response`, keeping `names` subscribed. */
  ack(response: DiscoveryResponse, names: string[]): void {
    this.send({ type_url: response.type_url, resource_names: names, version_info: response.version_info, response_nonce: response.nonce });
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}

/** The resources of a response as a client decodes them. */
export function nodesOf(response: DiscoveryResponse | undefined): indis.D2Node[] {
  return (response?.resources ?? []).map((any) => {
    const decoded = indis.d2NodeType.decode(any, undefined);
    if (!decoded.ok) throw decoded.error;
    return decoded.value;
  });
}

/** The URI maps of a response as a client decodes them. */
export function uriMapsOf(response: DiscoveryResponse | undefined): indis.D2UriMap[] {
  return (response?.resources ?? []).map((any) => {
    const decoded = indis.d2UriMapType.decode(any, undefined);
    if (!decoded.ok) throw decoded.error;
    return decoded.value;
  });
}

export async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

export function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

