import { isEvacuationOpen, readStoredEvacuations, stageBackAt, type EvacuationNode } from '../requests';
import { escapeControlChars, formatRemaining } from '../text';
import type { ZkReader } from '../zk';
import { stageNumber } from './evacuation-format';
import { readFabricMembership } from './fabric-status';
import type { OperatorSettings } from './settings';

/**
 * What `failout status` shows of fabrics (issue 23, "Where it shows"): which fabric each cluster is in
 * (lib/fabrics' rule and maps), and every evacuation the worker keeps (`/failout/evacuations/<fabric>`),
 * with the stage it is at now and when it ends.
 */

/** Where an evacuation is at a moment. */
export type EvacuationPhase = 'scheduled' | 'moving' | 'out' | 'restoring' | 'ended';

/** One evacuation as `failout status` reports it (its `--json` `evacuations` entries). */
export interface EvacuationSummary {
  readonly fabric: string;
  readonly requestId: string;
  /** The worker's status of the node: `applying`, `applied`, `restored`, `stopped`. */
  readonly status: EvacuationNode['status'];
  /** Whether it moves (or will move) traffic now (lib/requests `isEvacuationOpen`). */
  readonly open: boolean;
  readonly phase: EvacuationPhase;
  /** The stage it is at (counted from 1), of how many; undefined before the first starts or once it ended. */
  readonly stage?: { readonly number: number; readonly of: number; readonly name: string };
  /** When its next stage starts, while one is still to start. */
  readonly nextStageAt?: string;
  /** When the first stage starts and when the last stage is back (ISO-8601). */
  readonly offlineAt: string;
  readonly onlineAt: string;
  readonly clusters: number;
  /** `multi` (one ZooKeeper multi) or `plan` (an ordered plan node the worker continued). */
  readonly mode: EvacuationNode['mode'];
  readonly requestedBy?: string;
  readonly reason?: string;
  readonly endedAt?: string;
  readonly endedBy?: string;
  readonly stoppedByAlarm?: string;
  /**
   * Once a restore (or a stop) ended it while stages are still coming home: when the last of them is
   * back (ISO-8601). Its phase is `restoring` until then, and `stage` is the stage that returns next.
   */
  readonly backAt?: string;
}

/** An evacuation node that does not decode: the worker treats it as open (it may still move traffic). */
export interface UnreadableEvacuation {
  readonly fabric: string;
  readonly problem: string;
}

/** The fabric side of `failout status`. */
export interface EvacuationStatus {
  /** cluster → fabric, for the clusters a fabric holds. */
  readonly fabricOf: ReadonlyMap<string, string>;
  /** Every evacuation node that decodes, by fabric. */
  readonly evacuations: readonly EvacuationSummary[];
  /** Every evacuation node that does not, by fabric, with its problem. */
  readonly unreadable: readonly UnreadableEvacuation[];
}

/**
 * Reads which fabric each cluster is in and every evacuation, described at `now`; a node that does not
 * decode is listed in `unreadable` with its problem, never left out unsaid.
 * @throws OperatorError `input` for a bad `FAILOUT_FABRICS_PATH`; ZkError when ZooKeeper cannot be read.
 */
export async function readEvacuationStatus(session: ZkReader, settings: Pick<OperatorSettings, 'd2Base' | 'fabricsBase' | 'evacuationsBase'>, now: number): Promise<EvacuationStatus> {
  const [fabricOf, stored] = await Promise.all([readFabricMembership(session, settings), readStoredEvacuations(session, settings.evacuationsBase)]);
  // Stored nodes come sorted by fabric.
  const evacuations = stored.flatMap((e) => (e.node === undefined ? [] : [describeEvacuation(e.node, now)]));
  const unreadable = stored.flatMap((e) => (e.node === undefined ? [{ fabric: e.fabric, problem: e.problem ?? 'does not decode' }] : []));
  return { fabricOf, evacuations, unreadable };
}

/** An evacuation node described at `now`: its phase, the stage it is at, the next stage's start. */
export function describeEvacuation(node: EvacuationNode, now: number): EvacuationSummary {
  const { plan } = node;
  const open = isEvacuationOpen(node, now);
  const stages = [...plan.stages].sort((a, b) => a.index - b.index);
  const started = stages.filter((s) => s.offlineAt <= now);
  const current = started[started.length - 1];
  const next = stages.find((s) => s.offlineAt > now);
  // Stages return in reverse order: the first back is the last stage, at the earliest onlineAt.
  const restoreStarts = Math.min(...stages.map((s) => s.onlineAt));
  const returning = open ? undefined : stillReturning(node, now);
  let phase: EvacuationPhase;
  if (returning !== undefined) phase = 'restoring';
  else if (!open) phase = 'ended';
  else if (current === undefined) phase = 'scheduled';
  else if (now >= restoreStarts) phase = 'restoring';
  else phase = now < current.fullyOutAt ? 'moving' : 'out';
  const at = (ms: number): string => new Date(ms).toISOString();
  return {
    fabric: node.fabric,
    requestId: node.requestId,
    status: node.status,
    open,
    phase,
    ...(returning !== undefined
      ? { stage: { number: stageNumber(returning.stage.index), of: stages.length, name: returning.stage.name } }
      : current === undefined || phase === 'ended'
        ? {}
        : { stage: { number: stageNumber(current.index), of: stages.length, name: current.name } }),
    ...(next === undefined || phase === 'ended' || returning !== undefined ? {} : { nextStageAt: at(next.offlineAt) }),
    offlineAt: at(plan.offlineAt),
    onlineAt: at(plan.onlineAt),
    clusters: plan.clusters.length,
    mode: node.mode,
    ...(node.requestedBy === undefined ? {} : { requestedBy: node.requestedBy }),
    ...(node.reason === undefined ? {} : { reason: node.reason }),
    ...(node.endedAt === undefined ? {} : { endedAt: at(node.endedAt) }),
    ...(node.endedBy === undefined ? {} : { endedBy: node.endedBy }),
    ...(node.stoppedByAlarm === undefined ? {} : { stoppedByAlarm: node.stoppedByAlarm }),
    ...(returning === undefined ? {} : { backAt: at(returning.backAt) }),
  };
}

/**
 * Of an evacuation a restore or a stop ended: the stage that comes home next and when the last is back,
 * while some stage is still out at `now` (the restore brings them home a restore gap apart, the last
 * stage first: `stageBackAt`; a stage that had not started then never went out, and none stays out past
 * its own window). Undefined once all are home, and for a node no restore ended.
 */
function stillReturning(node: EvacuationNode, now: number): { readonly stage: EvacuationNode['plan']['stages'][number]; readonly backAt: number } | undefined {
  const endedAt = node.endedAt;
  if ((node.status !== 'restored' && node.status !== 'stopped') || endedAt === undefined) return undefined;
  let next: { stage: EvacuationNode['plan']['stages'][number]; backAt: number } | undefined;
  let backAt = -Infinity;
  for (const stage of node.plan.stages) {
    if (stage.offlineAt > endedAt) continue;
    const back = Math.min(stage.onlineAt, stageBackAt(node.plan, stage.index, endedAt));
    if (back <= now) continue;
    backAt = Math.max(backAt, back);
    if (next === undefined || stage.index > next.stage.index) next = { stage, backAt: back };
  }
  return next === undefined ? undefined : { stage: next.stage, backAt };
}

const PHASE_TEXT: Readonly<Record<EvacuationPhase, string>> = {
  scheduled: 'scheduled',
  moving: 'moving out',
  out: 'out',
  restoring: 'returning, last stage first',
  ended: 'ended',
};

/** One line for an evacuation node that does not decode: `evacuation of lor1 cannot be read: <problem> (…)`. */
export function formatUnreadableEvacuationLine(evacuation: UnreadableEvacuation): string {
  const safe = (text: string): string => escapeControlChars(text);
  return `evacuation of ${safe(evacuation.fabric)} cannot be read: ${safe(evacuation.problem)} (the worker treats it as open: it may still move traffic; failout restore --fabric ${safe(evacuation.fabric)} removes it)`;
}

/** One line for an open evacuation: `evacuation of lor1 OPEN: stage 2 of 3 (midtier) moving out; …; ends … (in 1h 50m) [request …] by … — reason`. */
export function formatEvacuationLine(evacuation: EvacuationSummary, now: number): string {
  const safe = (text: string): string => escapeControlChars(text);
  const s = evacuation.stage;
  const stage = s === undefined ? '' : `stage ${s.number} of ${s.of}${s.name === `stage ${s.number}` ? '' : ` (${safe(s.name)})`} `;
  const when = (iso: string): string => {
    const ms = Date.parse(iso);
    return ms >= now ? `${iso} (in ${formatRemaining(ms - now)})` : iso;
  };
  const by = `${evacuation.requestedBy === undefined ? '' : ` by ${safe(evacuation.requestedBy)}`}${evacuation.reason === undefined ? '' : ` — ${safe(evacuation.reason)}`}`;
  if (evacuation.backAt !== undefined) {
    const how = evacuation.status === 'stopped' ? `stopped${evacuation.stoppedByAlarm === undefined ? '' : ` by alarm ${safe(evacuation.stoppedByAlarm)}`}` : `restored${evacuation.endedBy === undefined ? '' : ` by ${safe(evacuation.endedBy)}`}`;
    return `evacuation of ${safe(evacuation.fabric)} RETURNING (${how}): ${stage}still out, the last stage first; all back ${when(evacuation.backAt)}  [request ${safe(evacuation.requestId)}]${by}`;
  }
  const parts = [`${stage}${PHASE_TEXT[evacuation.phase]}`];
  if (evacuation.phase === 'scheduled') parts.push(`starts ${when(evacuation.offlineAt)}`);
  else if (evacuation.nextStageAt !== undefined) parts.push(`next stage ${when(evacuation.nextStageAt)}`);
  parts.push(`ends ${when(evacuation.onlineAt)}`);
  return `evacuation of ${safe(evacuation.fabric)} OPEN: ${parts.join('; ')}  [request ${safe(evacuation.requestId)}]${by}`;
}
