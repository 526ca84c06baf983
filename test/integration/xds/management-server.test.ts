/**
 * The management server over a raw ADS stream: responses, nonces, ACK/NACK recording, the stale-nonce
 * rule, LDS/CDS wildcards, fault hooks and stop/start on the same port.
 */
import * as grpc from '@grpc/grpc-js';
import { loadXdsProtos, unpackAny, type DiscoveryRequest, type DiscoveryResponse } from '../../../lib/xds/protos';
import { CDS_TYPE_URL, EDS_TYPE_URL, LDS_TYPE_URL, RDS_TYPE_URL, RESOURCE_WRAPPER_TYPE_URL, clusterType } from '../../../lib/xds/resource-types';
import { buildCluster } from '../../../lib/xds/resource-types';
import { garbageResource, invalidResource } from '../../../lib/xds/server/fault-hooks';
import { XdsManagementServer, type ManagementServerOptions } from '../../../lib/xds/server/management-server';
import { serviceSnapshot } from '../../helpers/xds';

type AdsCall = grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;

/** A raw ADS stream that queues responses and reports how it ended. */
class RawAds {
  readonly responses: DiscoveryResponse[] = [];
  private waiters: Array<() => void> = [];
  status: grpc.StatusObject | undefined;
  readonly client: grpc.Client;
  readonly call: AdsCall;

  constructor(uri: string) {
    const { AdsClient } = loadXdsProtos();
    this.client = new AdsClient(uri, grpc.credentials.createInsecure());
    this.call = (this.client as unknown as { StreamAggregatedResources(): AdsCall }).StreamAggregatedResources();
    this.call.on('data', (r: DiscoveryResponse) => {
      this.responses.push(r);
      this.wake();
    });
    this.call.on('error', () => undefined);
    this.call.on('status', (s: grpc.StatusObject) => {
      this.status = s;
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  send(typeUrl: string, names: string[], extra: Partial<DiscoveryRequest> = {}): void {
    this.call.write({ version_info: '', resource_names: names, type_url: typeUrl, response_nonce: '', node: { id: 'raw-node' }, ...extra });
  }

  /** The `count`-th response (1-based) overall. */
  async response(count: number, timeoutMs = 3000): Promise<DiscoveryResponse> {
    const deadline = Date.now() + timeoutMs;
    while (this.responses.length < count) {
      if (Date.now() > deadline) throw new Error(`no response #${count} (have ${this.responses.length})`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.responses[count - 1]!;
  }

  async ended(timeoutMs = 3000): Promise<grpc.StatusObject> {
    const deadline = Date.now() + timeoutMs;
    while (!this.status && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (!this.status) throw new Error('stream did not end');
    return this.status;
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}

const names = (r: DiscoveryResponse): string[] =>
  r.resources.map((a) => {
    const raw = unpackAny(a);
    return String(raw.name || raw.cluster_name);
  });

/** Waits `ms` for something that must NOT happen. */
const quiet = (ms = 150): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('XdsManagementServer over a raw ADS stream', () => {
  let server: XdsManagementServer;
  const streams: RawAds[] = [];

  async function startServer(options: ManagementServerOptions = {}): Promise<void> {
    server = await XdsManagementServer.start(options);
    server.setSnapshot('*', {
      ...serviceSnapshot('svc-a', [1001], '1'),
      clusters: [buildCluster('c1'), buildCluster('c2')],
    });
  }

  function open(): RawAds {
    const s = new RawAds(server.uri);
    streams.push(s);
    return s;
  }

  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await server.close();
  });

  it('answers a request with the named resources, the snapshot version and a nonce', async () => {
    await startServer();
    const ads = open();

    ads.send(EDS_TYPE_URL, ['svc-a-eds']);
    const response = await ads.response(1);

    expect(response).toMatchObject({ type_url: EDS_TYPE_URL, version_info: '1' });
    expect(response.nonce).not.toBe('');
    expect(names(response)).toEqual(['svc-a-eds']);
    expect(server.recorder.requests[0]).toMatchObject({ classification: 'initial', nodeId: 'raw-node' });
  });

  it('sends every resource for a wildcard LDS/CDS request (empty names) but nothing for empty EDS', async () => {
    await startServer();
    const ads = open();

    ads.send(CDS_TYPE_URL, []);
    ads.send(EDS_TYPE_URL, []);
    const response = await ads.response(1);
    await quiet();

    expect(names(response).sort()).toEqual(['c1', 'c2']);
    expect(ads.responses).toHaveLength(1);
  });

  it('records an ACK and a NACK with its error detail, and resends nothing for either', async () => {
    await startServer();
    const ads = open();
    ads.send(LDS_TYPE_URL, ['svc-a']);
    ads.send(RDS_TYPE_URL, ['svc-a-route']);
    const [lds, rds] = [await ads.response(1), await ads.response(2)];

    ads.send(LDS_TYPE_URL, ['svc-a'], { version_info: lds.version_info, response_nonce: lds.nonce });
    ads.send(RDS_TYPE_URL, ['svc-a-route'], { response_nonce: rds.nonce, error_detail: { code: 3, message: 'bad route' } });
    await server.recorder.waitFor(() => server.recorder.requests.length === 4);
    await quiet();

    expect(server.recorder.acks).toEqual([expect.objectContaining({ typeUrl: LDS_TYPE_URL, versionInfo: '1' })]);
    expect(server.recorder.nacks).toEqual([expect.objectContaining({ typeUrl: RDS_TYPE_URL, errorDetail: { code: 3, message: 'bad route' } })]);
    expect(ads.responses).toHaveLength(2);
  });

  it('ignores a request whose nonce is not the last one sent for its type (stale-nonce rule)', async () => {
    await startServer();
    const ads = open();
    ads.send(CDS_TYPE_URL, ['c1']);
    const first = await ads.response(1);
    server.setSnapshot('*', { ...serviceSnapshot('svc-a', [1001], '2'), clusters: [buildCluster('c1'), buildCluster('c2')] });
    const second = await ads.response(2);

    ads.send(CDS_TYPE_URL, ['c1', 'c2'], { response_nonce: first.nonce });
    ads.send(CDS_TYPE_URL, ['c1', 'c2'], { response_nonce: '' });
    await server.recorder.waitFor(() => server.recorder.staleRequests.length === 2);
    await quiet();
    expect(ads.responses).toHaveLength(2);

    ads.send(CDS_TYPE_URL, ['c1', 'c2'], { version_info: '2', response_nonce: second.nonce });
    const third = await ads.response(3);
    expect(names(third).sort()).toEqual(['c1', 'c2']);
    expect(third.nonce).not.toBe(second.nonce);
  });

  it('pushes a new snapshot version to subscribed streams only for subscribed types', async () => {
    await startServer();
    const ads = open();
    ads.send(EDS_TYPE_URL, ['svc-a-eds']);
    await ads.response(1);

    server.setSnapshot('*', serviceSnapshot('svc-a', [2002], '2'));
    const pushed = await ads.response(2);
    await quiet();

    expect(pushed).toMatchObject({ type_url: EDS_TYPE_URL, version_info: '2' });
    expect(ads.responses).toHaveLength(2);
  });

  it('serves a node its own snapshot rather than the default', async () => {
    await startServer();
    server.setSnapshot('raw-node', { version: 'mine', clusters: [buildCluster('only-mine')] });
    const ads = open();

    ads.send(CDS_TYPE_URL, []);

    expect(names(await ads.response(1))).toEqual(['only-mine']);
  });

  it('wraps resources in envoy.service.discovery.v3.Resource only when asked', async () => {
    await startServer({ wrapResources: true });
    const ads = open();

    ads.send(CDS_TYPE_URL, ['c1']);
    const response = await ads.response(1);

    expect(response.resources[0]!.type_url).toBe(RESOURCE_WRAPPER_TYPE_URL);
    expect(clusterType.decode(response.resources[0]!)).toMatchObject({ ok: true, name: 'c1' });
  });

  it('fails the stream when an armed resource name is requested', async () => {
    await startServer();
    server.faults.failStreamWhenRequested({ resourceName: 'c2', code: grpc.status.RESOURCE_EXHAUSTED });
    const ads = open();

    ads.send(CDS_TYPE_URL, ['c1', 'c2']);

    expect((await ads.ended()).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(ads.responses).toHaveLength(0);
  });

  it('delays and drops responses on request', async () => {
    await startServer();
    server.faults.delayResponses(300, CDS_TYPE_URL);
    server.faults.dropResponses(EDS_TYPE_URL);
    const ads = open();
    const started = Date.now();

    ads.send(CDS_TYPE_URL, ['c1']);
    ads.send(EDS_TYPE_URL, ['svc-a-eds']);
    const response = await ads.response(1);
    await quiet();

    expect(response.type_url).toBe(CDS_TYPE_URL);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(ads.responses).toHaveLength(1);
    expect(server.recorder.responses.filter((r) => r.dropped)).toHaveLength(1);
  });

  it('serves an invalid resource and garbage bytes when told to', async () => {
    await startServer();
    server.setSnapshot('*', { version: 'bad', clusters: { c1: buildCluster('c1'), broken: invalidResource('cluster', 'broken') } });
    const ads = open();
    ads.send(CDS_TYPE_URL, []);
    const response = await ads.response(1);

    const decoded = response.resources.map((a) => clusterType.decode(a).ok);
    expect(decoded).toEqual([true, false]);

    expect(server.pushRaw(CDS_TYPE_URL, [garbageResource(CDS_TYPE_URL)])).toBe(1);
    const garbage = await ads.response(2);
    expect(clusterType.decode(garbage.resources[0]!)).toMatchObject({ ok: false });
  });

  it('stops and starts the listener on the same port, killing open streams', async () => {
    await startServer();
    const port = server.port;
    const ads = open();
    ads.send(CDS_TYPE_URL, ['c1']);
    await ads.response(1);

    await server.stopServing();
    expect((await ads.ended()).code).toBe(grpc.status.UNAVAILABLE);
    expect(server.lifecycle).toBe('idle');

    await server.start();
    expect(server.port).toBe(port);
    const again = open();
    again.send(EDS_TYPE_URL, ['svc-a-eds']);
    expect(names(await again.response(1))).toEqual(['svc-a-eds']);
  });

  it('stops the listener when a fault says so', async () => {
    await startServer();
    server.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, stopListener: true, once: true });
    const ads = open();

    ads.send(CDS_TYPE_URL, ['c1']);
    await ads.ended();

    await server.recorder.waitFor(() => server.lifecycle === 'idle' || undefined);
    expect(server.activeAdsStreams).toBe(0);
  });
});
