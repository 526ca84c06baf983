/**
 * The observer's resource cache fed by its ZooKeeper watches (on the in-memory ZooKeeper): a change
 * is encoded once whatever the number of subscribers, an absent node reads as absent (left out of
 * SotW responses), malformed data keeps the last good version and is counted, and a watch stops
 * only after its last subscriber's linger.
 */
import { serializeUriProperties } from '../../../lib/d2';
import { digestAcl } from '../../../lib/zk';
import { ObserverError } from '../../../lib/observer/errors';
import { ResourceCache } from '../../../lib/observer/resource-cache';
import { resourceKey } from '../../../lib/observer/resource-names';
import { watchResource } from '../../../lib/observer/resource-watches';
import { Subscriptions, type Subscriber } from '../../../lib/observer/subscriptions';
import { indis } from '../../../lib/xds';
import { unwrapResource } from '../../../lib/xds/envoy-protos';
import { clusterDoc, put, putCluster } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

const BASE = '/d2';
const CLUSTER = '/d2/clusters/greetings-lor1';
const URIS = '/d2/uris/greetings-lor1';

let zk: InMemoryZk;
let writer: InMemoryZkSession;
let reader: InMemoryZkSession;
let cache: ResourceCache;
let subscriptions: Subscriptions;
let encodes: string[];
let malformed: ObserverError[];

/** A subscriber that counts the changes it hears. */
function counter(): Subscriber & { heard: number } {
  const s = { heard: 0, resourceChanged: () => void s.heard++ };
  return s;
}

/** A URI child's JSON announcing `http://<host>:80`. */
const uri = (host: string): string => serializeUriProperties({ clusterName: 'greetings-lor1', partitionDesc: { [`http://${host}:80`]: { 0: 1 } }, uriSpecificProperties: {} });

/** Turns of the event loop until `done` holds (zk.idle() would wait for a read the test holds up). */
async function turnsUntil(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 100 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** The D2 node the cache holds for `path`, decoded as a client would. */
function served(typeUrl: string, path: string): unknown {
  const entry = cache.get(resourceKey(typeUrl, path));
  if (entry.status !== 'present') return entry.status;
  const type = typeUrl === indis.D2_NODE_TYPE_URL ? indis.d2NodeType : indis.d2UriMapType;
  const decoded = type.decode(unwrapResource(entry.resource).any, path);
  if (!decoded.ok) throw decoded.error;
  return decoded.value;
}

beforeEach(() => {
  zk = new InMemoryZk();
  writer = zk.session();
  reader = zk.session();
  encodes = [];
  malformed = [];
  const hooks = { malformed: (e: ObserverError) => malformed.push(e), read: () => undefined };
  cache = new ResourceCache({ encoded: (t) => encodes.push(t), malformed: hooks.malformed });
  subscriptions = new Subscriptions({ cache, basePath: BASE, lingerMs: 50, watch: (key, typeUrl, target) => watchResource(reader, cache, hooks, key, typeUrl, target) });
});

afterEach(() => subscriptions.close());

describe('the observer cache', () => {
  it('encodes a change once and tells each of many subscribers once', async () => {
    // Prepare
    await putCluster(writer, BASE, clusterDoc('greetings-lor1'));
    const subscribers = Array.from({ length: 200 }, counter);
    for (const s of subscribers) subscriptions.add(indis.D2_NODE_TYPE_URL, CLUSTER, s);
    await zk.idle();
    encodes.length = 0;
    for (const s of subscribers) s.heard = 0;

    // Act
    await putCluster(writer, BASE, clusterDoc('greetings-lor1', { properties: { v: '2' } }));
    await zk.idle();

    // Assess
    expect(encodes).toEqual([indis.D2_NODE_TYPE_URL]);
    expect(subscribers.every((s) => s.heard === 1)).toBe(true);
    expect(served(indis.D2_NODE_TYPE_URL, CLUSTER)).toMatchObject({ name: CLUSTER, data: { clusterName: 'greetings-lor1', properties: { v: '2' } } });
  });

  it('reads an absent node as absent, and a deleted one too', async () => {
    // Prepare
    subscriptions.add(indis.D2_NODE_TYPE_URL, '/d2/services/nowhere', counter());
    subscriptions.add(indis.D2_NODE_TYPE_URL, CLUSTER, counter());
    await putCluster(writer, BASE, clusterDoc('greetings-lor1'));
    await zk.idle();

    // Act
    await writer.remove(CLUSTER);
    await zk.idle();

    // Assess
    expect(served(indis.D2_NODE_TYPE_URL, '/d2/services/nowhere')).toBe('absent');
    expect(served(indis.D2_NODE_TYPE_URL, CLUSTER)).toBe('absent');
  });

  it.each([
    ['not JSON', '{"clusterName": '],
    ['not an object', '[1, 2]'],
    ['not a valid cluster document', '{"clusterName": 42}'],
  ])('keeps the last good version of a node whose data is %s, and counts it', async (_what, text) => {
    // Prepare
    subscriptions.add(indis.D2_NODE_TYPE_URL, CLUSTER, counter());
    await putCluster(writer, BASE, clusterDoc('greetings-lor1', { properties: { v: 'good' } }));
    await zk.idle();
    const good = cache.get(resourceKey(indis.D2_NODE_TYPE_URL, CLUSTER));

    // Act
    await put(writer, CLUSTER, text);
    await zk.idle();

    // Assess
    expect(cache.get(resourceKey(indis.D2_NODE_TYPE_URL, CLUSTER))).toBe(good);
    expect(malformed.map((e) => [e.kind, e.path])).toEqual([['malformed', CLUSTER]]);
  });

  it('reads a node that was never good as absent', async () => {
    // Prepare
    await put(writer, CLUSTER, 'garbage');

    // Act
    subscriptions.add(indis.D2_NODE_TYPE_URL, CLUSTER, counter());
    await zk.idle();

    // Assess
    expect(served(indis.D2_NODE_TYPE_URL, CLUSTER)).toBe('absent');
    expect(malformed).toHaveLength(1);
  });

  it('builds a URI map from every child, keeping a malformed child at its last good data', async () => {
    // Prepare
    await put(writer, `${URIS}/h1`, uri('h1'));
    await put(writer, `${URIS}/h2`, uri('h2'));
    subscriptions.add(indis.D2_URI_MAP_TYPE_URL, URIS, counter());
    await zk.idle();

    // Act
    await put(writer, `${URIS}/h2`, '{"partitionDesc": {}}'); // no clusterName: our client would NACK it
    await zk.idle();

    // Assess
    const map = served(indis.D2_URI_MAP_TYPE_URL, URIS) as indis.D2UriMap;
    expect(map.nodes.map((n) => [n.name, Object.keys(n.data.partitionDesc as object)])).toEqual([
      ['h1', ['http://h1:80']],
      ['h2', ['http://h2:80']],
    ]);
    expect(malformed.map((e) => e.path)).toEqual([`${URIS}/h2`]);
  });

  it('keeps a URI child whose weight JSON reads as infinite at its last good data, so the map it serves decodes', async () => {
    // Prepare
    await put(writer, `${URIS}/h1`, uri('h1'));
    await put(writer, `${URIS}/h2`, uri('h2'));
    subscriptions.add(indis.D2_URI_MAP_TYPE_URL, URIS, counter());
    await zk.idle();

    // Act: 1e999 is valid JSON text, and JSON.parse reads it as Infinity, which no D2URI may carry
    await put(writer, `${URIS}/h2`, '{"clusterName": "greetings-lor1", "partitionDesc": {"http://h2:80": {"0": {"weight": 1e999}}}}');
    await zk.idle();
    await put(writer, `${URIS}/h1`, '{"clusterName": "greetings-lor1", "weights": {"http://h1:80": -1e999}}');
    await zk.idle();

    // Assess: the client decodes the map (no NACK), each child at its last good announcement
    const map = served(indis.D2_URI_MAP_TYPE_URL, URIS) as indis.D2UriMap;
    expect(map.nodes.map((n) => [n.name, Object.keys(n.data.partitionDesc as object)])).toEqual([
      ['h1', ['http://h1:80']],
      ['h2', ['http://h2:80']],
    ]);
    expect(malformed.map((e) => e.path)).toEqual([`${URIS}/h2`, `${URIS}/h1`]);
  });

  it('serves nothing outside the D2 tree and watches nothing for it', async () => {
    // Act
    subscriptions.add(indis.D2_NODE_TYPE_URL, '/failout/requests/r1', counter());
    subscriptions.add(indis.D2_URI_MAP_TYPE_URL, CLUSTER, counter());
    await zk.idle();

    // Assess
    expect(served(indis.D2_NODE_TYPE_URL, '/failout/requests/r1')).toBe('absent');
    expect(served(indis.D2_URI_MAP_TYPE_URL, CLUSTER)).toBe('absent');
  });

  it('stops a watch only after the linger of its last subscriber, and keeps it when one comes back', async () => {
    // Prepare
    await putCluster(writer, BASE, clusterDoc('greetings-lor1'));
    const a = counter();
    subscriptions.add(indis.D2_NODE_TYPE_URL, CLUSTER, a);
    await zk.idle();

    // Act
    subscriptions.remove(indis.D2_NODE_TYPE_URL, CLUSTER, a);
    subscriptions.add(indis.D2_NODE_TYPE_URL, CLUSTER, a);
    await new Promise((r) => setTimeout(r, 80));
    const keptWhileHeld = subscriptions.watched;
    subscriptions.remove(indis.D2_NODE_TYPE_URL, CLUSTER, a);
    const lingering = subscriptions.watched;
    await new Promise((r) => setTimeout(r, 80));

    // Assess
    expect([keptWhileHeld, lingering, subscriptions.watched]).toEqual([1, 1, 0]);
    expect(cache.get(resourceKey(indis.D2_NODE_TYPE_URL, CLUSTER)).status).toBe('pending');
  });

  it('serves a symlink node with its target, and keeps it over a target that is no path', async () => {
    // Prepare
    const link = '/d2/clusters/$GreetingsMaster';
    await put(writer, link, CLUSTER);
    subscriptions.add(indis.D2_SYMLINK_NODE_TYPE_URL, link, counter());
    await zk.idle();

    // Act
    await put(writer, link, 'nowhere');
    await zk.idle();

    // Assess
    const entry = cache.get(resourceKey(indis.D2_SYMLINK_NODE_TYPE_URL, link));
    const decoded = entry.status === 'present' ? indis.d2SymlinkNodeType.decode(entry.resource, undefined) : undefined;
    expect(decoded).toMatchObject({ ok: true, value: { name: link, masterClusterNodePath: CLUSTER } });
    expect(malformed.map((e) => e.path)).toEqual([link]);
  });

  it('never publishes a URI map before every listed child was read', async () => {
    // Prepare: the read of h2 is held up
    await put(writer, `${URIS}/h1`, uri('h1'));
    await put(writer, `${URIS}/h2`, uri('h2'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached = false;
    reader.inject({ op: 'getData', path: `${URIS}/h2`, before: () => ((reached = true), held) });

    // Act
    subscriptions.add(indis.D2_URI_MAP_TYPE_URL, URIS, counter());
    await turnsUntil(() => reached);
    await turnsUntil(() => false);
    const whileHeld = cache.get(resourceKey(indis.D2_URI_MAP_TYPE_URL, URIS)).status;
    release();
    await zk.idle();

    // Assess
    expect(whileHeld).toBe('pending');
    expect((served(indis.D2_URI_MAP_TYPE_URL, URIS) as indis.D2UriMap).nodes.map((n) => n.name)).toEqual(['h1', 'h2']);
  });
  it('settles a node it may not read as absent, and says so, instead of holding up its type', async () => {
    // Prepare: a cluster only another user may read, beside a good one.
    const LOCKED = '/d2/clusters/locked-lor1';
    await putCluster(writer, BASE, clusterDoc('greetings-lor1'));
    await put(writer, LOCKED, JSON.stringify({ clusterName: 'locked-lor1' }), [digestAcl('someone-else', 'secret')]);

    // Act
    subscriptions.add(indis.D2_NODE_TYPE_URL, LOCKED, counter());
    subscriptions.add(indis.D2_NODE_TYPE_URL, CLUSTER, counter());
    await zk.idle();

    // Assess
    expect(served(indis.D2_NODE_TYPE_URL, LOCKED)).toBe('absent');
    expect(served(indis.D2_NODE_TYPE_URL, CLUSTER)).toMatchObject({ name: CLUSTER });
    expect(malformed.map((e) => [e.kind, e.path])).toEqual([['malformed', LOCKED]]);
    expect(malformed[0]?.message).toMatch(/may not read it/);
  });

  it('publishes a URI map without a child it may not read, and a map whose directory it may not read as absent', async () => {
    // Prepare
    const LOCKED_URIS = '/d2/uris/locked-lor1';
    await put(writer, `${URIS}/h1`, uri('h1'));
    await put(writer, `${URIS}/h2`, uri('h2'), [digestAcl('someone-else', 'secret')]);
    await writer.ensurePath(LOCKED_URIS, [digestAcl('someone-else', 'secret')]);

    // Act
    subscriptions.add(indis.D2_URI_MAP_TYPE_URL, URIS, counter());
    subscriptions.add(indis.D2_URI_MAP_TYPE_URL, LOCKED_URIS, counter());
    await zk.idle();

    // Assess
    expect((served(indis.D2_URI_MAP_TYPE_URL, URIS) as { nodes: { name: string }[] }).nodes.map((n) => n.name)).toEqual(['h1']);
    expect(served(indis.D2_URI_MAP_TYPE_URL, LOCKED_URIS)).toBe('absent');
    expect(malformed.map((e) => e.path).sort()).toEqual([`${URIS}/h2`, LOCKED_URIS]);
  });
});
