/**
 * CSDS (gRFC A40) served over a real XdsClient, read by a client that is not our code (a plain
 * @grpc/grpc-js client decoding with envoy's .proto files, `test/helpers/csds-client.ts`): the
 * statuses, versions, resources and NACK details it reports are the client's own state, through a
 * NACK, a SotW deletion, a fallback to the second management server (gRFC A71) and the return.
 */
import * as grpc from '@grpc/grpc-js';
import { createXdsClient, type XdsClient, type XdsClientDump } from '../../../lib/xds/client';
import { addCsdsService } from '../../../lib/xds/csds';
import { buildCluster, CDS_TYPE_URL } from '../../../lib/xds/resource-types';
import { invalidResource, type XdsManagementServer } from '../../../lib/xds/server';
import { CsdsTestClient, timestampMs, unpackXdsConfig, type DecodedClientStatusResponse, type DecodedGenericXdsConfig } from '../../helpers/csds-client';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { eventually, fallbackBootstrap, startXdsServer } from '../../helpers/xds-chain';

const STATUS_NAMES: Record<string, string> = { requested: 'REQUESTED', acked: 'ACKED', nacked: 'NACKED', doesNotExist: 'DOES_NOT_EXIST' };

/** Every resource of the CSDS response says what the client's dump says (one client, one ClientConfig). */
function expectMatchesDump(response: DecodedClientStatusResponse, dump: XdsClientDump): void {
  const dumped = dump.authorities.flatMap((a) => a.resources);
  const reported = response.config[0]!.generic_xds_configs;
  expect(response.config).toHaveLength(1);
  expect(response.config[0]).toMatchObject({ client_scope: dump.clientScope, node: { id: dump.node.id, user_agent_name: 'failout' } });
  expect(reported.map((g) => [g.type_url, g.name]).sort()).toEqual(dumped.map((r) => [r.typeUrl, r.name]).sort());
  for (const r of dumped) {
    const g = reported.find((x) => x.type_url === r.typeUrl && x.name === r.name)!;
    expect([r.name, g.client_status, g.version_info, timestampMs(g.last_updated)]).toEqual([r.name, STATUS_NAMES[r.status], r.version, r.lastUpdated]);
    expect([r.name, g.xds_config === null]).toEqual([r.name, r.raw === undefined]);
    if (r.raw) expect(g.xds_config?.value.equals(Buffer.from(r.raw.value))).toBe(true);
    expect([r.name, g.error_state?.details, g.error_state?.version_info, timestampMs(g.error_state?.last_update_attempt ?? null)]).toEqual(
      r.rejected === undefined ? [r.name, undefined, undefined, undefined] : [r.name, r.error, r.rejected.version, r.rejected.at],
    );
  }
}

/** The EDS service name of the cluster an `xds_config` holds (what tells the servers' versions apart). */
function serviceNameOf(config: DecodedGenericXdsConfig | undefined): unknown {
  const cluster = config?.xds_config ? unpackXdsConfig(config.xds_config) : undefined;
  return (cluster?.eds_cluster_config as { service_name?: string } | undefined)?.service_name;
}

const byName = (response: DecodedClientStatusResponse, name: string): DecodedGenericXdsConfig | undefined =>
  response.config[0]!.generic_xds_configs.find((g) => g.name === name);

describe('CSDS over an XdsClient', () => {
  const servers: XdsManagementServer[] = [];
  let client: XdsClient | undefined;
  let csdsServer: grpc.Server | undefined;
  let csds: CsdsTestClient | undefined;

  /** Serves CSDS over `xds` on loopback and connects the test client. */
  async function serveCsds(xds: XdsClient): Promise<CsdsTestClient> {
    csdsServer = new grpc.Server();
    addCsdsService(csdsServer, () => [xds]);
    const port = await new Promise<number>((resolve, reject) =>
      csdsServer!.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    csds = new CsdsTestClient(port);
    return csds;
  }

  afterEach(async () => {
    csds?.close();
    csdsServer?.forceShutdown();
    client?.close();
    csds = csdsServer = client = undefined;
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('reports ACKED, NACKED (with the rejected version and details), DOES_NOT_EXIST and REQUESTED as the client knows them', async () => {
    // Prepare
    const server = await startXdsServer();
    servers.push(server);
    server.setSnapshot('*', { version: 'v1', clusters: [buildCluster('good', { edsServiceName: 'good-v1' }), buildCluster('bad', { edsServiceName: 'bad-v1' }), buildCluster('gone')] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([server.uri]) });
    for (const name of ['good', 'bad', 'gone', 'missing']) client.watch('cluster', name, recordingWatcher());
    const status = (name: string): string | undefined => client!.dump().authorities[0]?.resources.find((r) => r.name === name)?.status;
    await eventually('v1 accepted', () => ['good', 'bad', 'gone'].every((n) => status(n) === 'acked'), 10_000);
    const reader = await serveCsds(client);
    const first = await reader.fetch();
    expectMatchesDump(first, client.dump());

    // Act: v2 changes good, breaks bad and leaves gone out of the CDS state of the world
    const before = Date.now();
    server.setSnapshot('*', { version: 'v2', clusters: { good: buildCluster('good', { edsServiceName: 'good-v2' }), bad: invalidResource('cluster', 'bad') } });
    await eventually('v2 processed', () => status('bad') === 'nacked' && status('gone') === 'doesNotExist', 10_000);
    const second = await reader.fetch();

    // Assess
    expectMatchesDump(second, client.dump());
    expect(byName(first, 'good')).toMatchObject({ client_status: 'ACKED', version_info: 'v1' });
    expect(serviceNameOf(byName(first, 'good'))).toBe('good-v1');
    expect(byName(second, 'good')).toMatchObject({ client_status: 'ACKED', version_info: 'v2', error_state: null });
    expect(serviceNameOf(byName(second, 'good'))).toBe('good-v2');
    const bad = byName(second, 'bad')!;
    expect(bad).toMatchObject({ client_status: 'NACKED', version_info: 'v1', error_state: { version_info: 'v2' } });
    expect(serviceNameOf(bad)).toBe('bad-v1'); // the accepted config stays (A40)
    expect(bad.error_state?.details).toContain('bad');
    expect(timestampMs(bad.error_state!.last_update_attempt)).toBeGreaterThanOrEqual(before - 1); // timestamps are whole ms
    expect(byName(second, 'gone')).toMatchObject({ client_status: 'DOES_NOT_EXIST', xds_config: null });
    expect(byName(second, 'missing')).toMatchObject({ client_status: 'REQUESTED', version_info: '', xds_config: null, last_updated: null });
  });

  it('follows a fallback to the second management server and the return to the first', async () => {
    // Prepare
    const primary = await startXdsServer();
    const secondary = await startXdsServer();
    servers.push(primary, secondary);
    primary.setSnapshot('*', { version: 'p1', clusters: [buildCluster('c1', { edsServiceName: 'p1-c1' })] });
    secondary.setSnapshot('*', { version: 's1', clusters: [buildCluster('c1', { edsServiceName: 's1-c1' }), buildCluster('c2', { edsServiceName: 's1-c2' })] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]), fallbackProbeCapMs: 500 });
    client.watch('cluster', 'c1', recordingWatcher());
    const reader = await serveCsds(client);
    const version = async (name: string): Promise<string | undefined> => byName(await reader.fetch(), name)?.version_info;
    await eventually('c1 from the primary', () => client!.dump().authorities[0]?.resources[0]?.version === 'p1', 10_000);
    const onPrimary = await reader.fetch();

    // Act 1: the primary dies when c2 is requested, so an uncached resource is watched (A71 falls back)
    primary.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, resourceName: 'c2', stopListener: true, once: true });
    client.watch('cluster', 'c2', recordingWatcher());
    await eventually('both from the secondary', () => client!.dump().authorities[0]?.resources.every((r) => r.version === 's1') ?? false, 15_000);
    const onSecondary = await reader.fetch();

    // Act 2: the primary comes back with new data
    primary.setSnapshot('*', { version: 'p2', clusters: [buildCluster('c1', { edsServiceName: 'p2-c1' }), buildCluster('c2', { edsServiceName: 'p2-c2' })] });
    await primary.start();
    await eventually('both from the primary again', () => client!.dump().authorities[0]?.resources.every((r) => r.version === 'p2') ?? false, 15_000);
    const back = await reader.fetch();

    // Assess
    expectMatchesDump(back, client.dump());
    expect(byName(onPrimary, 'c1')).toMatchObject({ client_status: 'ACKED', version_info: 'p1' });
    expect(serviceNameOf(byName(onPrimary, 'c1'))).toBe('p1-c1');
    expect(onSecondary.config[0]!.generic_xds_configs.map((g) => [g.name, g.client_status, g.version_info, serviceNameOf(g)])).toEqual([
      ['c1', 'ACKED', 's1', 's1-c1'],
      ['c2', 'ACKED', 's1', 's1-c2'],
    ]);
    expect(back.config[0]!.generic_xds_configs.map((g) => [g.name, g.client_status, g.version_info, serviceNameOf(g)])).toEqual([
      ['c1', 'ACKED', 'p2', 'p2-c1'],
      ['c2', 'ACKED', 'p2', 'p2-c2'],
    ]);
    expect(client.dump().authorities[0]?.activeServer).toBe(primary.uri);
    expect(await version('c1')).toBe('p2');
  });

  it('answers every request on a StreamClientStatus stream with the state at that moment, and ends when the client does', async () => {
    // Prepare
    const server = await startXdsServer();
    servers.push(server);
    server.setSnapshot('*', { version: 'v1', clusters: [buildCluster('c1')] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([server.uri]) });
    client.watch('cluster', 'c1', recordingWatcher());
    const versionNow = (): string | undefined => client!.dump().authorities[0]?.resources[0]?.version;
    await eventually('v1', () => versionNow() === 'v1', 10_000);
    const stream = (await serveCsds(client)).stream();
    const received: DecodedClientStatusResponse[] = [];
    stream.on('data', (response: DecodedClientStatusResponse) => received.push(response));
    const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));

    // Act
    stream.write({});
    await eventually('first answer', () => received.length === 1, 5000);
    server.setSnapshot('*', { version: 'v2', clusters: [buildCluster('c1', { edsServiceName: 'second' })] });
    await eventually('v2', () => versionNow() === 'v2', 10_000);
    stream.write({ exclude_resource_contents: true });
    await eventually('second answer', () => received.length === 2, 5000);
    stream.end();
    const status = await ended;

    // Assess
    expect(received.map((r) => [byName(r, 'c1')?.version_info, byName(r, 'c1')?.xds_config === null])).toEqual([
      ['v1', false],
      ['v2', true],
    ]);
    expect(status.code).toBe(grpc.status.OK);
  });

  it('refuses node matchers with INVALID_ARGUMENT, on the unary call and the stream (A40 leaves node matching out)', async () => {
    // Prepare
    const server = await startXdsServer();
    servers.push(server);
    client = createXdsClient({ bootstrap: fallbackBootstrap([server.uri]) });
    const reader = await serveCsds(client);

    // Act
    const fetched = reader.fetch({ node_matchers: [{ node_id: { exact: 'test-node' } }] });
    const stream = reader.stream();
    const streamed = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
    stream.on('error', () => undefined); // the status carries it
    stream.write({ node_matchers: [{ node_id: { exact: 'test-node' } }] });
    stream.write({});

    // Assess
    await expect(fetched).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect((await streamed).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await reader.fetch()).config).toHaveLength(1);
  });
});
