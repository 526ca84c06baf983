/**
 * XdsClient with rest.li's `indis` types (D2 over xDS): a watch by kind on a ZooKeeper path receives
 * the decoded D2 node; the name comes from the `Resource` wrapper the ADS stream takes off; a bad
 * resource is NACKed under its name; a node absent from a later response is deleted (SotW).
 */
import type { AdsCallListener } from '../../../lib/xds/ads-stream';
import { parseBootstrap } from '../../../lib/xds/bootstrap';
import type { XdsTransport } from '../../../lib/xds/channel';
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { packAny, wrapResource } from '../../../lib/xds/protos';
import { buildD2Node, buildD2UriMap, D2_NODE_TYPE_URL, D2_URI_MAP_TYPE_URL, type D2Node, type D2UriMap } from '../../../lib/xds/resource-types';
import { FakeAdsTransport, recordingWatcher, settle } from '../../helpers/xds-fakes';

const stat = { czxid: 1n, mzxid: 7n, pzxid: 1n, ephemeralOwner: 0n, mtime: 1_764_518_400_000, version: 2, cversion: 0, aversion: 0, dataLength: 30, numChildren: 0 };
const SERVICE_PATH = '/d2/services/greetings';

describe('XdsClient with the indis types', () => {
  let client: XdsClient;
  let transport: FakeAdsTransport;

  beforeEach(() => {
    transport = new FakeAdsTransport();
    client = createXdsClient({
      bootstrap: parseBootstrap({ xds_servers: [{ server_uri: 'observer:1', channel_creds: [{ type: 'insecure' }] }], node: { id: 'n1' } }),
      transportFactory: (): XdsTransport => ({ openAdsCall: (l: AdsCallListener) => transport.factory(l), isReady: () => true, onReady: () => undefined, close: () => undefined }),
    });
  });
  afterEach(() => client.close());

  it('subscribes by ZooKeeper path and delivers the node named by its Resource wrapper', async () => {
    // Prepare
    const watcher = recordingWatcher();
    client.watch('d2Node', SERVICE_PATH, watcher);
    await settle(5);

    // Act
    transport.current.respond({
      type_url: D2_NODE_TYPE_URL,
      version_info: '7',
      nonce: 'a',
      resources: [wrapResource(buildD2Node(SERVICE_PATH, '{"serviceName":"greetings","clusterName":"greetings-lor1"}', stat), SERVICE_PATH)],
    });
    const event = await watcher.next();

    // Assess
    expect(transport.current.requestsFor(D2_NODE_TYPE_URL)[0]?.resource_names).toEqual([SERVICE_PATH]);
    expect(event).toMatchObject({ type: 'update', value: { name: SERVICE_PATH, data: { serviceName: 'greetings', clusterName: 'greetings-lor1' } } });
    expect((event as { value: D2Node }).value.stat.mzxid).toBe(7n);
    expect(transport.current.requestsFor(D2_NODE_TYPE_URL).at(-1)).toMatchObject({ version_info: '7', response_nonce: 'a' }); // ACK
  });

  it('watches a URI map by type URL', async () => {
    const watcher = recordingWatcher();
    client.watch(D2_URI_MAP_TYPE_URL, '/d2/uris/greetings-lor1', watcher);
    await settle(5);

    transport.current.respond({
      type_url: D2_URI_MAP_TYPE_URL,
      resources: [wrapResource(buildD2UriMap('/d2/uris/greetings-lor1', [{ name: 'h1', data: '{"clusterName":"greetings-lor1","partitionDesc":{"http://h1:80":{"0":{"weight":1.0}}}}', stat }]), '/d2/uris/greetings-lor1')],
    });
    const event = await watcher.next();

    expect((event as { value: D2UriMap }).value.nodes.map((n) => n.name)).toEqual(['h1']);
  });

  it('NACKs an invalid node under its name, and deletes a node a later response leaves out', async () => {
    // Prepare
    const watcher = recordingWatcher();
    client.watch('d2Node', SERVICE_PATH, watcher);
    await settle(5);

    // Act
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '1', nonce: 'a', resources: [wrapResource(packAny(D2_NODE_TYPE_URL, {}), SERVICE_PATH)] });
    const rejected = await watcher.next();
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '2', nonce: 'b', resources: [wrapResource(buildD2Node(SERVICE_PATH, '{}', stat), SERVICE_PATH)] });
    const updated = await watcher.next();
    transport.current.respond({ type_url: D2_NODE_TYPE_URL, version_info: '3', nonce: 'c', resources: [] });
    const deleted = await watcher.next();

    // Assess
    expect(rejected).toMatchObject({ type: 'error', error: { kind: 'nacked' } });
    expect(transport.current.requestsFor(D2_NODE_TYPE_URL)[1]?.error_detail?.message).toContain(`${SERVICE_PATH}: D2Node has no data`);
    expect(updated.type).toBe('update');
    expect(deleted.type).toBe('doesNotExist');
  });
});
