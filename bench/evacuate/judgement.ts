// bench/evacuate, part B: the worker's judgement and write of one evacuation at scale. S services × 3
// fabrics on a ZooKeeper of its own; `RequestWriter.process` of `evacuate lor1` then `restore --fabric
// lor1`, round after round, timed from the call to its answer (read, judge, write, record), with the
// multis it sent tapped (how long ZooKeeper took, how many operations, how many bytes) and the
// record's `evacuation` summary: whether the plan fit in one multi, and the writer's count of its size.
import { DEFAULT_BASE_PATH } from '../../lib/d2/data';
import { startZooKeeper, type ZooKeeperServer } from '../../lib/local';
import type { Logger } from '../../lib/logging';
import { RequestWriter } from '../../lib/requests';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import { clock } from '../lib/workers';
import { evacuateRequest, restoreRequest, seedFabrics } from './fabric';
import { largestMulti, takeReads, tapMultis, tapReads, type ReadCounts, type TappedMulti } from './session-tap';
import { applied, describeOutcome, summarize, type OutcomeSummary } from './outcome';
import type { JudgementParameters, WriterKind } from './parameters';
import { StubEvacuationWriter } from './stub-writer';

/** One `process` call. */
export interface JudgedRequest {
  /** Call → answer. */
  ms: number;
  /** Time inside the multis the call sent (ZooKeeper's part of `ms`). */
  multiMs: number;
  multis: number;
  /** The largest multi of the call (the cluster nodes' write). */
  largest: TappedMulti | undefined;
  /** ZooKeeper reads the call made (get, read, exists, children). */
  reads: number;
  outcome: OutcomeSummary;
}

export interface JudgementRound {
  round: number;
  evacuate: JudgedRequest;
  restore: JudgedRequest;
}

/** A `process` call that threw or did not apply: the rounds stop there (the next would repeat it). */
export interface JudgementFailure {
  round: number;
  request: 'evacuate' | 'restoreFabric';
  /** The error (kind and message) or the outcome's status and reason. */
  error: string;
  ms: number;
  /** Every multi the call sent, the failed one included. */
  multis: TappedMulti[];
  reads: number;
}

export interface JudgementMeasurement {
  rounds: JudgementRound[];
  failure: JudgementFailure | undefined;
  seedMs: number;
  nodesSeeded: number;
}

interface Taps {
  readonly multis: TappedMulti[];
  readonly reads: ReadCounts;
}

/** What one call gave: its figures, or why it failed. */
type Attempt = { ok: true; judged: JudgedRequest } | { ok: false; failure: Omit<JudgementFailure, 'round' | 'request'> };

async function judged(writer: Pick<RequestWriter, 'process'>, taps: Taps, body: string, messageId: string): Promise<Attempt> {
  const tapped = taps.multis;
  tapped.length = 0;
  takeReads(taps.reads);
  const t0 = clock();
  let outcome: OutcomeSummary;
  try {
    outcome = summarize(await writer.process(body, { messageId }));
  } catch (err) {
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { ok: false, failure: { error, ms: clock() - t0, multis: [...tapped], reads: takeReads(taps.reads) } };
  }
  const ms = clock() - t0;
  const reads = takeReads(taps.reads);
  if (!applied(outcome)) return { ok: false, failure: { error: `not applied: ${describeOutcome(outcome)}`, ms, multis: [...tapped], reads } };
  return { ok: true, judged: { ms, multiMs: tapped.reduce((sum, m) => sum + (m.doneAt - m.sentAt), 0), multis: tapped.length, largest: largestMulti(tapped), reads, outcome } };
}

/** Runs part B on a ZooKeeper of its own (started and stopped here). */
export async function measureJudgement(p: JudgementParameters, writerKind: WriterKind, log: Logger): Promise<JudgementMeasurement> {
  let zk: ZooKeeperServer | undefined;
  let session: ZkSession | undefined;
  try {
    zk = await startZooKeeper();
    session = await connectSession({ connectString: zk.connectString, sessionTimeoutMs: 30_000, logger: log });
    const seedStarted = clock();
    const nodesSeeded = await seedFabrics(session, DEFAULT_BASE_PATH, p.services, p.hosts);
    const seedMs = clock() - seedStarted;
    const taps: Taps = { multis: tapMultis(session), reads: tapReads(session) };
    // One writer for every round, as a warm Lambda keeps its writer across invocations.
    const writer = writerKind === 'stub' ? new StubEvacuationWriter(session, DEFAULT_BASE_PATH) : new RequestWriter({ session, recordAcl: OPEN_ACL, retention: false });
    const rounds: JudgementRound[] = [];
    for (let r = -p.warmup + 1; r <= p.rounds; r++) {
      const evacuate = await judged(writer, taps, evacuateRequest(`judgement ${r}`).body, `bench-${r}-evacuate`);
      if (!evacuate.ok) return { rounds, failure: { round: r, request: 'evacuate', ...evacuate.failure }, seedMs, nodesSeeded };
      const restore = await judged(writer, taps, restoreRequest(`judgement ${r}`).body, `bench-${r}-restore`);
      if (!restore.ok) return { rounds, failure: { round: r, request: 'restoreFabric', ...restore.failure }, seedMs, nodesSeeded };
      if (r > 0) rounds.push({ round: r, evacuate: evacuate.judged, restore: restore.judged });
    }
    return { rounds, failure: undefined, seedMs, nodesSeeded };
  } finally {
    await session?.close().catch(() => undefined);
    await zk?.close();
  }
}
