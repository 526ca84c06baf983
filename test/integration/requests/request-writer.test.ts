import { clusterPath } from '../../../lib/d2';
import { RequestWriter } from '../../../lib/requests';
import { TransientRequestError } from '../../../lib/requests/errors';
import { type RequestWriterOptions } from '../../../lib/requests/request-writer';
import { readableByAllWritableBy, type ZkSession } from '../../../lib/zk';
import { put, putUri } from '../../helpers/d2';
import { failoutInput, restoreInput } from '../../helpers/requests';
import { closeSessions, openSession, proxyOf, uniqueBase } from '../../helpers/zk';

const WRITER = { user: 'failout-writer', password: 'secret-1' };
const CLUSTER = 'greetings-lor1';
const CLUSTER_JSON = {
  clusterName: CLUSTER,
  properties: { masterColo: 'lor1' },
  bannedUris: [],
  someFutureKey: { kept: [1, 2, 3] },
  darkClusters: { 'greetings-dark': { multiplier: '0.1' } },
};

let base: string;
let d2Base: string;
let session: ZkSession;

async function writerFor(s: ZkSession, options: Partial<RequestWriterOptions> = {}): Promise<RequestWriter> {
  return new RequestWriter({ session: s, d2BasePath: d2Base, requestsPath: `${base}/requests`, recordAcl: readableByAllWritableBy([WRITER]), ...options });
}

async function clusterJson(s: ZkSession = session, cluster = CLUSTER): Promise<Record<string, unknown> & { failoutProperties?: unknown }> {
  const { data } = await s.get(clusterPath(d2Base, cluster));
  return JSON.parse(data.toString('utf8'));
}

async function clusterVersion(cluster = CLUSTER): Promise<number> {
  return (await session.get(clusterPath(d2Base, cluster))).stat.version;
}

function withoutFailout(json: Record<string, unknown>): Record<string, unknown> {
  const { failoutProperties: _ignored, ...rest } = json;
  return rest;
}

beforeEach(async () => {
  base = uniqueBase('req');
  d2Base = `${base}/d2`;
  session = await openSession({ credentials: [WRITER] });
  await put(session, clusterPath(d2Base, CLUSTER), JSON.stringify(CLUSTER_JSON));
  for (const peer of ['greetings-lva1', 'greetings-ltx1']) {
    await put(session, clusterPath(d2Base, peer), JSON.stringify({ clusterName: peer }));
    await putUri(session, d2Base, peer, 'host-1', `http://${peer}-1:8080/`);
  }
  await put(session, clusterPath(d2Base, 'empty-peer'), JSON.stringify({ clusterName: 'empty-peer' }));
  await put(
    session,
    clusterPath(d2Base, 'failed-peer'),
    JSON.stringify({ clusterName: 'failed-peer', failoutProperties: { failoutRedirectConfigs: [{ peer: 'x' }], failoutBucketConfigs: [{ offlineAt: 0 }] } }),
  );
  await putUri(session, d2Base, 'failed-peer', 'host-1', 'http://failed-peer-1:8080/');
});

afterEach(async () => {
  await session.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

describe('RequestWriter on ZooKeeper', () => {
  it('applies a failout once, records it as applied, and leaves every other key untouched', async () => {
    const writer = await writerFor(session);
    const before = await clusterVersion();
    const outcome = await writer.process(JSON.stringify(failoutInput({ requestId: 'apply-1' })), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'applied', requestId: 'apply-1', cluster: CLUSTER, attempts: 1 });
    expect(outcome.record).toMatchObject({ status: 'applied', action: 'failout', clusterVersion: before + 1, messageId: 'm-1' });
    expect(await clusterVersion()).toBe(before + 1);
    const json = await clusterJson();
    expect(json.failoutProperties).toMatchObject({ failoutRedirectConfigs: [{ peer: 'greetings-lva1', weight: 2 }, { peer: 'greetings-ltx1', weight: 1 }] });
    expect(withoutFailout(json)).toMatchObject(CLUSTER_JSON);
    expect(await writer.readRecord('apply-1')).toEqual(outcome.record);
  });

  it('keeps every digit of an integer beyond 2^53 in a key it does not own (a Long to rest.li)', async () => {
    // Prepare: a key of another writer holding a nanosecond timestamp, which a double would round
    const nanos = '1764518400123456789';
    await session.set(clusterPath(d2Base, CLUSTER), Buffer.from(`{"clusterName":"${CLUSTER}","anotherTeam":{"updatedAtNanos":${nanos}},"generation":${nanos}}`));
    const writer = await writerFor(session);

    // Act
    const outcome = await writer.process(JSON.stringify(failoutInput({ requestId: 'big-int-1' })), { messageId: 'm-1' });

    // Assess
    expect(outcome.status).toBe('applied');
    const text = (await session.get(clusterPath(d2Base, CLUSTER))).data.toString('utf8');
    expect(text).toContain(`"anotherTeam":{"updatedAtNanos":${nanos}}`);
    expect(text).toContain(`"generation":${nanos}`);
  });

  it('restores: removes failoutProperties and leaves every other key untouched', async () => {
    const writer = await writerFor(session);
    await writer.process(JSON.stringify(failoutInput()), { messageId: 'm-1' });
    const withFailout = withoutFailout(await clusterJson());
    const outcome = await writer.process(JSON.stringify(restoreInput()), { messageId: 'm-2' });
    expect(outcome.status).toBe('applied');
    const json = await clusterJson();
    expect(json).not.toHaveProperty('failoutProperties');
    expect(json).toEqual(withFailout);
  });

  it('answers the same request id twice with one effect and one duplicate', async () => {
    const writer = await writerFor(session);
    const body = JSON.stringify(failoutInput({ requestId: 'dup-1' }));
    const first = await writer.process(body, { messageId: 'm-1' });
    const version = await clusterVersion();
    const second = await writer.process(body, { messageId: 'm-2' });
    expect(second).toMatchObject({ status: 'duplicate', requestId: 'dup-1', record: first.record });
    expect(await clusterVersion()).toBe(version);
  });

  it.each([
    ['badJson', () => '{"version":1,', 'by-message-id'],
    ['badSchema', () => JSON.stringify({ ...failoutInput({ requestId: 'rej-schema' }), version: 2 }), 'rej-schema'],
    ['unknownCluster', () => JSON.stringify(failoutInput({ requestId: 'rej-cluster', cluster: 'nope' })), 'rej-cluster'],
    ['unknownPeer', () => JSON.stringify(failoutInput({ requestId: 'rej-peer', peers: [{ cluster: 'ghost' }] })), 'rej-peer'],
    ['peerFailedOut', () => JSON.stringify(failoutInput({ requestId: 'rej-failed', peers: [{ cluster: 'failed-peer' }] })), 'rej-failed'],
    ['noPeerWithHosts', () => JSON.stringify(failoutInput({ requestId: 'rej-hosts', peers: [{ cluster: 'empty-peer' }] })), 'rej-hosts'],
    ['windowTooLong', () => JSON.stringify(failoutInput({ requestId: 'rej-long', duration: 'P4D' })), 'rej-long'],
  ])('records a %s rejection and applies the next request of the cluster right after it', async (reason, body, recordName) => {
    const writer = await writerFor(session);
    const before = await clusterVersion();
    const rejected = await writer.process(body(), { messageId: 'by-message-id' });
    expect(rejected).toMatchObject({ status: 'rejected', reason, requestId: recordName });
    expect(await writer.readRecord(recordName)).toMatchObject({ status: 'rejected', reason, message: expect.any(String) });
    expect(await clusterVersion()).toBe(before);
    const next = await writer.process(JSON.stringify(failoutInput()), { messageId: 'm-next' });
    expect(next.status).toBe('applied');
  });

  it('applies a forced failout despite peer state, which is recorded as applied', async () => {
    const writer = await writerFor(session);
    const outcome = await writer.process(JSON.stringify(failoutInput({ peers: [{ cluster: 'empty-peer' }, { cluster: 'failed-peer' }], force: true })), { messageId: 'm' });
    expect(outcome.status).toBe('applied');
  });

  it('loses no update when several sessions write the same cluster at once (CAS retry)', async () => {
    const sessions = [session, ...(await Promise.all([1, 2, 3].map(() => openSession({ credentials: [WRITER] }))))];
    const writers = await Promise.all(sessions.map((s) => writerFor(s, { retryBudget: { maxAttempts: 50, maxElapsedMs: 20_000 } })));
    const before = await clusterVersion();
    const perWriter = 8;
    const outcomes = (
      await Promise.all(
        writers.map((w, i) =>
          Promise.all(Array.from({ length: perWriter }, (_, j) => w.process(JSON.stringify(failoutInput({ requestId: `c-${i}-${j}` })), { messageId: `m-${i}-${j}` }))),
        ),
      )
    ).flat();
    expect(outcomes.every((o) => o.status === 'applied')).toBe(true);
    const versions = outcomes.map((o) => o.record.clusterVersion).sort((a, b) => a! - b!);
    expect(versions).toEqual(Array.from({ length: writers.length * perWriter }, (_, k) => before + 1 + k));
    expect(await clusterVersion()).toBe(before + writers.length * perWriter);
    expect(outcomes.some((o) => o.attempts > 1)).toBe(true);
  });

  it('is refused with noAuth without the digest credential on a node readable by all and writable by the writer', async () => {
    const path = clusterPath(d2Base, 'guarded');
    await session.create(path, Buffer.from(JSON.stringify({ clusterName: 'guarded' })), { acl: readableByAllWritableBy([WRITER]) });
    const stranger = await openSession();
    expect((await stranger.get(path)).data.toString()).toContain('guarded');
    await expect(stranger.set(path, Buffer.from('{}'))).rejects.toMatchObject({ name: 'ZkError', kind: 'noAuth' });
    const body = JSON.stringify(failoutInput({ cluster: 'guarded', requestId: 'guarded-1' }));
    await expect((await writerFor(stranger)).process(body, { messageId: 'm' })).rejects.toMatchObject({ name: 'RequestError', kind: 'notAuthorized' });
    expect(await (await writerFor(session)).readRecord('guarded-1')).toBeUndefined();
    expect((await (await writerFor(session)).process(body, { messageId: 'm' })).status).toBe('applied');
  });

  it('throws a TransientRequestError while ZooKeeper is unreachable, then applies once when it is back', async () => {
    const cut = await openSession({ credentials: [WRITER], connectWaitMs: 500 });
    const writer = await writerFor(cut);
    const body = JSON.stringify(failoutInput({ requestId: 'outage-1' }));
    const before = await clusterVersion();
    proxyOf(cut).refuse();
    await expect(writer.process(body, { messageId: 'm-1' })).rejects.toBeInstanceOf(TransientRequestError);
    proxyOf(cut).accept();
    const outcome = await writer.process(body, { messageId: 'm-2' });
    expect(['applied', 'duplicate']).toContain(outcome.status);
    const again = await writer.process(body, { messageId: 'm-3' });
    expect(again.status).toBe('duplicate');
    expect(await clusterVersion()).toBe(before + 1);
  });
});
