// bench/evacuate: the results file, bench/results/evacuate.json. Parts A and B can run alone
// (`--part`); a part not run this time is carried over from the file as it was, with the time it
// was measured, so re-measuring one part (after a change to the writer, say) keeps the other's figures.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeResults, type Row } from '../lib/report';

/** One part's figures as the file keeps them. */
export interface PartResults {
  /** When the part was measured (ISO). */
  readonly at: string;
  readonly parameters: Record<string, unknown>;
  readonly rows: readonly Row[];
  readonly summary: Record<string, unknown>;
}

export type PartName = 'propagation' | 'judgement';

const FILE = join(__dirname, '..', 'results', 'evacuate.json');

/** The part as the results file holds it now, if it does. */
function previous(name: PartName): (PartResults & { carriedOver: true }) | undefined {
  if (!existsSync(FILE)) return undefined;
  try {
    const part = (JSON.parse(readFileSync(FILE, 'utf8')) as { parts?: Partial<Record<PartName, PartResults>> }).parts?.[name];
    return part ? { ...part, carriedOver: true } : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the file: the parts measured now, the others carried over; `summary` holds each part's summary (the `npm run bench` headline). */
export function writeEvacuateResults(measured: Partial<Record<PartName, PartResults>>, extra: { parameters: Record<string, unknown>; targets: unknown; elapsedMs: number; note: string }): void {
  const parts: Partial<Record<PartName, PartResults>> = {};
  for (const name of ['propagation', 'judgement'] as const) {
    const part = measured[name] ?? previous(name);
    if (part) parts[name] = part;
  }
  writeResults('evacuate', {
    parameters: extra.parameters,
    rows: parts.propagation?.rows ?? [],
    summary: { propagation: parts.propagation?.summary, judgement: parts.judgement?.summary, targets: extra.targets },
    parts,
    elapsedMs: extra.elapsedMs,
    note: extra.note,
  });
}
