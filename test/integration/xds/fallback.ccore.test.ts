/**
 * gRPC C-core's fallback end-to-end tests (test/cpp/end2end/xds/xds_fallback_end2end_test.cc),
 * ported to XdsClient with real management servers on loopback.
 */
import { status } from '@grpc/grpc-js';
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { LDS_TYPE_URL } from '../../../lib/xds/resource-types';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { ChainResolver, chainSnapshot, eventually, fallbackBootstrap, sleep, startXdsServer } from '../../helpers/xds-chain';

const LISTENER = 'ccore-service';

describe('fallback (C-core xds_fallback_end2end_test)', () => {
  const servers: XdsManagementServer[] = [];
  const clients: XdsClient[] = [];

  afterEach(async () => {
    clients.splice(0).forEach((c) => c.close());
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('FallbackAndRecover: primary down, #2 fails its streams → #3; the primary recovers → its data', async () => {
    const [s1, s2, s3] = [await startXdsServer(), await startXdsServer(), await startXdsServer()];
    servers.push(s1, s2, s3);
    s1.setSnapshot('*', chainSnapshot('1', LISTENER, 'c1', 3001, 'one'));
    s2.setSnapshot('*', chainSnapshot('1', LISTENER, 'c2', 3002, 'two'));
    s3.setSnapshot('*', chainSnapshot('1', LISTENER, 'c3', 3003, 'three'));
    s2.faults.failStreamWhenRequested({ typeUrl: LDS_TYPE_URL, code: status.RESOURCE_EXHAUSTED });
    await s1.stopServing();
    const client = createXdsClient({ bootstrap: fallbackBootstrap([s1.uri, s2.uri, s3.uri]) });
    clients.push(client);
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend('127.0.0.1:3003', 5000);
    expect(chain.errors).toEqual([]);
    await s1.start();
    await chain.waitForBackend('127.0.0.1:3001', 10_000);
    await eventually('the #3 stream closed', () => s3.activeAdsStreams === 0);
  });

  it('PrimarySecondaryNotAvailable: one UNAVAILABLE-like connection error naming the last server', async () => {
    const [s1, s2] = [await startXdsServer(), await startXdsServer()];
    servers.push(s1, s2);
    await s1.stopServing();
    await s2.stopServing();
    const client = createXdsClient({ bootstrap: fallbackBootstrap([s1.uri, s2.uri]) });
    clients.push(client);
    const w = recordingWatcher();
    client.watch(LDS_TYPE_URL, LISTENER, w);
    const event = await w.next();
    if (event.type !== 'error') throw new Error('expected an error');
    expect(event.error.kind).toBe('connection');
    expect(event.error.message).toContain(s2.uri);
  });

  it('UsesCachedResourcesAfterFailure: a second target falls back while the first keeps its cached primary data', async () => {
    const [s1, s2] = [await startXdsServer(), await startXdsServer()];
    servers.push(s1, s2);
    s1.setSnapshot('*', chainSnapshot('1', LISTENER, 'c1', 3001, 'one'));
    s2.setSnapshot('*', chainSnapshot('1', LISTENER, 'c2', 3002, 'two'));
    const first = createXdsClient({ bootstrap: fallbackBootstrap([s1.uri, s2.uri]) });
    clients.push(first);
    const chain1 = new ChainResolver(first, LISTENER);
    await chain1.waitForBackend('127.0.0.1:3001');
    await s1.stopServing();
    const second = createXdsClient({ bootstrap: fallbackBootstrap([s1.uri, s2.uri]) });
    clients.push(second);
    const chain2 = new ChainResolver(second, LISTENER);
    await chain2.waitForBackend('127.0.0.1:3002', 5000);
    await sleep(300);
    expect(chain1.backend).toBe('127.0.0.1:3001');
    expect(first.dump().authorities[0]?.activeServer).toBe(s1.uri);
    expect(second.dump().authorities[0]?.activeServer).toBe(s2.uri);
  });
});
