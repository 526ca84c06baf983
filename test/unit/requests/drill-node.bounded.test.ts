/**
 * Issue 21, item 5 "Bounded nodes": a drill node stays under 64 KiB whatever its run count. 10,000
 * runs of a drill due every 10 minutes (about 70 days) go through the worker (RequestWriter, the code
 * the Lambda handler runs) against the in-memory ZooKeeper: starts, passes, guard stops, skips and
 * extends, each written in the worker's one multi; the node is read back as ZooKeeper holds it.
 */
import { clusterPath } from '../../../lib/d2';
import { RequestWriter } from '../../../lib/requests';
import { decodeDrillNode, runStatusAt } from '../../../lib/requests/drills';
import { encodeDrillNode, MAX_DRILL_NODE_BYTES, MAX_DRILL_RUNS } from '../../../lib/requests/drill-node';
import { OPEN_ACL } from '../../../lib/zk';
import { put, putUri } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { NOW } from '../../helpers/requests';

const D2 = '/d2';
const DRILLS = '/failout/drills';
const CLUSTER = 'greetings-lor1';
const PEER = 'greetings-lva1';
const DRILL = 'often';
const EVERY_MS = 10 * 60_000;
const RUNS = 10_000;

async function world(clock: () => number): Promise<{ session: InMemoryZkSession; writer: RequestWriter }> {
  const zk = new InMemoryZk({ clock });
  const session = zk.session();
  await session.ensurePath(clusterPath(D2), OPEN_ACL);
  for (const name of [CLUSTER, PEER]) {
    await put(session, clusterPath(D2, name), JSON.stringify({ clusterName: name }));
    // Two hosts each: the peer takes the drilled traffic well within the capacity guard.
    for (const host of ['host-1', 'host-2']) await putUri(session, D2, name, host, `http://${name}-${host}:8080/`);
  }
  // Records kept a day and swept hourly, as the handler sweeps after each batch: the fake copies its
  // node map per transaction, so 15,000 records kept would make the test quadratic.
  const retention = { retentionMs: 24 * 3_600_000, intervalMs: 3_600_000 };
  const writer = new RequestWriter({ session, d2BasePath: D2, requestsPath: '/failout/requests', drillsPath: DRILLS, recordAcl: OPEN_ACL, clock, retention });
  return { session, writer };
}

it(`keeps a drill node under 64 KiB through ${RUNS.toLocaleString('en')} runs through the worker`, async () => {
  let now = NOW;
  const { session, writer } = await world(() => now);
  const send = async (body: Record<string, unknown>) => {
    const outcome = await writer.process(JSON.stringify({ version: 1, cluster: CLUSTER, ...body }), { messageId: `m-${String(body.requestId)}` });
    // A plain check: 13,000 expect() calls would cost more than the worker.
    if (outcome.status !== 'applied') throw new Error(`${String(body.requestId)}: ${outcome.status} ${outcome.reason ?? ''} ${outcome.record.message ?? ''}`);
    await writer.sweepIfDue();
  };
  const putDrill = { action: 'putDrill', drill: DRILL, peers: [{ cluster: PEER }], duration: 'PT5M', every: 'rate(10 minutes)', outcomeAlarm: 'often-errors', blockingAlarms: ['deploys'] };
  await send({ requestId: 'put-often', requestedBy: 'test@example.com', ...putDrill });

  let largest = 0;
  for (let i = 0; i < RUNS; i++) {
    now = NOW + 60_000 + i * EVERY_MS;
    const runId = `drill-${DRILL}-${now}`;
    if (i % 9 === 4) {
      await send({ requestId: runId, action: 'skipDrill', drill: DRILL, skipReason: 'blockingAlarm', scheduledAt: now, detail: `blocking alarm deploys is in ALARM ${'x'.repeat(470)}` });
    } else {
      await send({ requestId: runId, action: 'failout', peers: [{ cluster: PEER, weight: 1 }], duration: 'PT5M', drill: DRILL, stopAlarms: ['often-errors', 'deploys'], requestedBy: 'failout-drills' });
      now += 60_000;
      if (i % 7 === 3) await send({ requestId: `stop-${i}`, action: 'restore', stoppedByAlarm: 'often-errors', alarmAt: now - 1000, drill: DRILL, requestedBy: 'failout-guard' });
      else if (i % 11 === 5) await send({ requestId: `ext-${i}`, action: 'extend', duration: 'PT6M' });
    }
    if (i % 250 === 0 || i === RUNS - 1) largest = Math.max(largest, (await session.get(`${DRILLS}/${DRILL}`)).data.length);
  }

  const stored = await session.get(`${DRILLS}/${DRILL}`);
  const node = decodeDrillNode(stored.data);
  expect(stored.data.length).toBeLessThan(MAX_DRILL_NODE_BYTES);
  expect(largest).toBeLessThan(MAX_DRILL_NODE_BYTES);
  expect(node.runs).toHaveLength(MAX_DRILL_RUNS);
  // Resolved before the cap: no run whose window ended is still stored running.
  expect(node.runs.filter((r) => r.status === 'running' && runStatusAt(r, now) !== 'running')).toEqual([]);
  expect(node.runs.map((r) => r.status)).toEqual(expect.arrayContaining(['passed', 'failed', 'skipped']));
}, 90_000);

describe('encodeDrillNode', () => {
  const definition = {
    name: 'd'.repeat(128),
    cluster: 'c'.repeat(128),
    peers: Array.from({ length: 10 }, (_, i) => ({ cluster: `${i}`.padEnd(128, 'p'), weight: 1000 })),
    durationMs: 3_600_000,
    buckets: { from: 0, to: 99 },
    every: 'cron(0 14 ? * TUE *)',
    outcomeAlarm: '\ud800'.repeat(255),
    blockingAlarms: Array.from({ length: 4 }, (_, i) => `${i}`.padEnd(255, '\ud800')),
    blockedDates: Array.from({ length: 15 }, () => '2026-12-24'),
    blockedWindows: Array.from({ length: 15 }, () => 'Mon:09:00-Mon:10:00'),
    definedAt: NOW,
    definedBy: '\ud800'.repeat(256),
    requestId: 'r'.repeat(128),
  };
  /** A run with the longest texts the worker accepts: 512 characters of detail that JSON writes as 6 bytes each. */
  const heavyRun = (i: number, status: 'running' | 'skipped' | 'failed' = 'skipped') => ({
    runId: `${i}`.padEnd(128, 'x'),
    status,
    at: NOW - i * 60_000,
    endsAt: NOW - i * 60_000 + 30_000,
    buckets: { from: 0, to: 99 },
    peers: definition.peers,
    skipReason: 'rejected' as const,
    detail: '\ud800'.repeat(512),
    stoppedByAlarm: definition.outcomeAlarm,
    endedBy: 'e'.repeat(128),
    endedAt: NOW,
  });

  it('stays under 64 KiB with 20 runs of the longest texts, dropping the oldest to fit', () => {
    const runs = Array.from({ length: MAX_DRILL_RUNS }, (_, i) => heavyRun(i));
    const data = encodeDrillNode({ version: 1, definition, runs }, NOW);
    const decoded = decodeDrillNode(data);

    expect(data.length).toBeLessThan(MAX_DRILL_NODE_BYTES);
    expect(decoded.runs.length).toBeGreaterThan(0);
    expect(decoded.runs.map((r) => r.runId)).toEqual(runs.slice(0, decoded.runs.length).map((r) => r.runId));
  });

  it('keeps the run still moving traffic when it must drop runs to fit', () => {
    const running = { ...heavyRun(30, 'running'), endsAt: NOW + 60_000 };
    const data = encodeDrillNode({ version: 1, definition, runs: [...Array.from({ length: MAX_DRILL_RUNS }, (_, i) => heavyRun(i)), running] }, NOW);

    expect(data.length).toBeLessThan(MAX_DRILL_NODE_BYTES);
    expect(decodeDrillNode(data).runs.at(-1)).toMatchObject({ runId: running.runId, status: 'running' });
  });

  it('stores a run whose window ended as passed before the cap, so it no longer outlives it', () => {
    const ended = { runId: 'ended', status: 'running' as const, at: NOW - 120_000, endsAt: NOW - 60_000 };
    const live = { runId: 'live', status: 'running' as const, at: NOW - 1000, endsAt: NOW + 60_000 };
    const skips = Array.from({ length: MAX_DRILL_RUNS }, (_, i) => ({ runId: `s-${i}`, status: 'skipped' as const, at: NOW - i, skipReason: 'blockedDate' as const }));

    const short = decodeDrillNode(encodeDrillNode({ version: 1, definition, runs: [ended] }, NOW));
    const long = decodeDrillNode(encodeDrillNode({ version: 1, definition, runs: [...skips, live, ended] }, NOW));

    expect(short.runs).toEqual([{ ...ended, status: 'passed' }]);
    expect(long.runs.map((r) => r.runId)).toEqual([...skips.map((r) => r.runId), 'live']);
  });
});
