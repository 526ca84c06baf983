/**
 * D2Client in a RANGE or HASH partitioned cluster (d2-json-formats.md §5, rest.li
 * `SimpleLoadBalancer#chooseTrackerClient`): a request goes only to the hosts announced for its
 * partition, by their weight there; partition 0 when the URI names none. Against the in-memory
 * ZooKeeper; nothing is sent (resolve picks the host).
 */
import { D2Client, D2Error, LoadBalancerState } from '../../../lib/d2';
import { putPartitionedUri, putProfileService } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

const BASE = '/d2';

let zk: InMemoryZk;
let writer: InMemoryZkSession;
let state: LoadBalancerState;
let client: D2Client;

/** Announces `uri` under `ProfileService` with these partition weights. */
async function announce(child: string, uri: string, partitions: Record<number, number>): Promise<void> {
  await putPartitionedUri(writer, BASE, 'ProfileService', child, uri, partitions);
}

beforeEach(async () => {
  zk = new InMemoryZk();
  writer = zk.session();
  state = new LoadBalancerState({ session: zk.session(), basePath: BASE });
  client = new D2Client({ state, random: () => 0 });
  // The quick-start's ProfileService: RANGE over profiles/<id>, a million ids per partition.
  await putProfileService(writer, BASE);
  await announce('h0', 'http://host0.example.com:8080', { 0: 1, 1: 1 });
  await announce('h7', 'http://host7.example.com:8080', { 2: 1, 3: 0.5 });
});

afterEach(async () => {
  await client.close();
  state.close();
});

describe('D2Client in a partitioned cluster', () => {
  it.each<[string, string, string]>([
    ['partition 0', 'd2://profiles/profiles/42', 'http://host0.example.com:8080'],
    ['partition 1', 'd2://profiles/profiles/1500000', 'http://host0.example.com:8080'],
    ['partition 2', 'd2://profiles/profiles/2500000', 'http://host7.example.com:8080'],
    ['partition 3', 'd2://profiles/profiles/3000001', 'http://host7.example.com:8080'],
    ['no key in the URI (partition 0)', 'd2://profiles/about', 'http://host0.example.com:8080'],
  ])('sends every request of %s to the hosts announced for it', async (_what, url, host) => {
    // Act: enough picks that a host outside the partition would have shown up.
    const hosts = new Set<string>();
    for (let i = 0; i < 6; i++) hosts.add((await client.resolve(url)).host);

    // Assess
    expect([...hosts]).toEqual([host]);
  });

  it("splits a partition's requests by the hosts' weights in that partition", async () => {
    // Prepare: host0 also serves partition 3, with twice host7's weight there.
    await announce('h0', 'http://host0.example.com:8080', { 0: 1, 1: 1, 3: 1 });

    // Act
    const picks: string[] = [];
    for (let i = 0; i < 30; i++) picks.push((await client.resolve('d2://profiles/profiles/3999999')).host);

    // Assess: weights 1 and 0.5 in partition 3.
    expect(picks.filter((h) => h.includes('host0')).length).toBe(20);
    expect(picks.filter((h) => h.includes('host7')).length).toBe(10);
  });

  it('fails with noHosts naming the partition when no host serves it', async () => {
    // Act
    const outcome = client.resolve('d2://profiles/profiles/5000000');

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(D2Error);
    await expect(outcome).rejects.toMatchObject({ kind: 'noHosts', message: expect.stringContaining('partition 5') as unknown });
  });
});
