// bench/evacuate: what the benchmark keeps of a writer's outcome. The record's `evacuation` summary
// (mode, clusters, stages, multiBytes: the contract's) is read without relying on the record type
// naming it, so the benchmark builds before and after the worker's evacuate lands.
import type { RequestWriter } from '../../lib/requests';

type Outcome = Awaited<ReturnType<RequestWriter['process']>>;

/** The record's summary of an evacuation's write. */
export interface EvacuationSummary {
  /** `multi`: every cluster in one transaction; `plan`: an ordered plan node, continued in several. */
  readonly mode: string;
  readonly clusters: number;
  readonly stages: number;
  /** The writer's own count of the multi's size. */
  readonly multiBytes: number;
}

export interface OutcomeSummary {
  readonly requestId: string;
  readonly status: string;
  readonly reason: string | undefined;
  /** The record's message (a rejection's problems). */
  readonly message: string | undefined;
  readonly evacuation: EvacuationSummary | undefined;
}

function evacuationOf(record: unknown): EvacuationSummary | undefined {
  const e = (record as { evacuation?: unknown } | undefined)?.evacuation;
  if (!e || typeof e !== 'object') return undefined;
  const { mode, clusters, stages, multiBytes } = e as Record<string, unknown>;
  const num = (v: unknown): number => (typeof v === 'number' ? v : NaN);
  return { mode: typeof mode === 'string' ? mode : '?', clusters: num(clusters), stages: num(stages), multiBytes: num(multiBytes) };
}

export function summarize(outcome: Outcome): OutcomeSummary {
  return { requestId: outcome.requestId, status: outcome.status, reason: outcome.reason, message: outcome.record.message, evacuation: evacuationOf(outcome.record) };
}

/** Applied now (a duplicate was applied by an earlier delivery, which a benchmark round never sends). */
export const applied = (s: OutcomeSummary): boolean => s.status === 'applied';

export function describeOutcome(s: OutcomeSummary): string {
  const hint = s.reason === 'badSchema' ? ' (no evacuate in this worker yet? `--writer stub` checks the benchmark without it)' : '';
  return `${s.status}${s.reason ? ` (${s.reason})` : ''}${s.message ? `: ${s.message}` : ''}${hint}`;
}
