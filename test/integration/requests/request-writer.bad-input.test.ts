/**
 * Issue 14 on a real ZooKeeper, through the real handler: bad input never blocks a cluster and never
 * bloats ZooKeeper. Every case is a recorded rejection with an empty batch response (acknowledged, so
 * the next request of the same FIFO group is applied in the same batch), a record of at most 4 KiB,
 * and no write to the cluster node.
 */
import { MAX_RECORD_BYTES } from '../../../lib/requests/request-record';
import type { ZkSession } from '../../../lib/zk';
import { sqsRecord } from '../../helpers/requests';
import { directHandler } from '../../helpers/requests-handler';
import { failoutBody, readCluster, readRecord, seedClusters, testPaths, type TestPaths } from '../../helpers/requests-queue';
import { closeSessions, openSession } from '../../helpers/zk';

const HOUR = 3_600_000;
let session: ZkSession;
let paths: TestPaths;

beforeEach(async () => {
  session = await openSession();
  paths = testPaths();
  await seedClusters(session, paths, ['b-lor1', 'b-lva1']);
});
afterEach(async () => {
  await closeSessions();
});

const end = (): string => new Date(Date.now() + HOUR).toISOString();

describe('bad input through the real handler', () => {
  it.each([
    ['an ISO start before 1970', () => ({ duration: undefined, offlineAt: '1969-12-31T23:00:00Z', onlineAt: end() }), 'badWindow'],
    ['a start in year 0000', () => ({ duration: undefined, offlineAt: '0000-01-01T00:00:00Z', onlineAt: end() }), 'badWindow'],
    ['an epoch-ms start before 1970', () => ({ duration: undefined, offlineAt: -HOUR, onlineAt: end() }), 'badWindow'],
    ['a duration past year 9999', () => ({ duration: 'P99999999999W' }), 'badWindow'],
    ['an ESC sequence in the reason', () => ({ reason: 'INC\u001b[2J all clear' }), 'badSchema'],
    ['a peer name longer than an SQS group id', () => ({ peers: [{ cluster: 'p'.repeat(129) }] }), 'badName'],
  ])('records %s as a rejection and applies the next request of the group', async (_, overrides, reason) => {
    const h = directHandler(session, paths);
    const before = (await readCluster(session, paths, 'b-lor1')).version;
    const bad = failoutBody('b-lor1', ['b-lva1'], overrides());
    const next = failoutBody('b-lor1', ['b-lva1']);
    const response = await h.invoke([sqsRecord(bad, 'b-lor1'), sqsRecord(next, 'b-lor1')]);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await readRecord(session, paths, String(bad.requestId))).toMatchObject({ status: 'rejected', reason });
    expect(await readRecord(session, paths, String(next.requestId))).toMatchObject({ status: 'applied', clusterVersion: before + 1 });
    expect((await readCluster(session, paths, 'b-lor1')).version).toBe(before + 1);
  });

  it.each([
    ['a 14 KB body of zeros (7,000 schema problems)', 7_000, undefined],
    ['a 200 KB body of zeros with a raised body limit (over ZooKeeper packet size uncapped)', 100_000, 256 * 1024],
  ])('caps the record of %s at 4 KiB', async (_, zeros, maxBodyBytes) => {
    const h = directHandler(session, paths, maxBodyBytes === undefined ? {} : { limits: { maxBodyBytes } });
    const bad = failoutBody('b-lor1', [], { peers: Array(zeros).fill(0) });
    const response = await h.invoke([sqsRecord(bad, 'b-lor1')]);

    expect(response).toEqual({ batchItemFailures: [] });
    const node = await session.get(`${paths.requestsPath}/${String(bad.requestId)}`);
    expect(node.data.length).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    expect(JSON.parse(node.data.toString('utf8'))).toMatchObject({ status: 'rejected', reason: 'badSchema', message: expect.stringMatching(new RegExp(`\\(${zeros} in all\\)$`)) });
  });

  it('records an oversize body under its request id when it has one, so the sender finds the outcome', async () => {
    const h = directHandler(session, paths, { limits: { maxBodyBytes: 512 } });
    const bad = failoutBody('b-lor1', ['b-lva1'], { reason: 'x'.repeat(1000) });
    expect(await h.invoke([sqsRecord(bad, 'b-lor1', 'message-1')])).toEqual({ batchItemFailures: [] });
    expect(await readRecord(session, paths, String(bad.requestId))).toMatchObject({ status: 'rejected', reason: 'oversize', cluster: 'b-lor1', messageId: 'message-1' });
  });
});

describe('record retention on a real ZooKeeper', () => {
  it('prunes records older than the retention after a batch and leaves the prune mark', async () => {
    const retention = { retentionMs: 1000, intervalMs: 1000 };
    const h = directHandler(session, paths, { retention });
    const old = failoutBody('b-lor1', ['b-lva1']);
    await h.invoke([sqsRecord(old, 'b-lor1')]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Another writer (a fresh container): the mark says the last sweep is more than an interval old.
    const later = directHandler(session, paths, { retention });
    const fresh = failoutBody('b-lor1', ['b-lva1']);
    await later.invoke([sqsRecord(fresh, 'b-lor1')]);

    expect(await readRecord(session, paths, String(old.requestId))).toBeUndefined();
    expect(await readRecord(session, paths, String(fresh.requestId))).toMatchObject({ status: 'applied' });
    const mark = JSON.parse((await session.get(`${paths.requestsPath}/.prune-mark`)).data.toString('utf8')) as { prunedBefore: number; retentionMs: number };
    expect(mark.retentionMs).toBe(1000);
    expect(mark.prunedBefore).toBeGreaterThan(Date.now() - 5000);
  });
});
