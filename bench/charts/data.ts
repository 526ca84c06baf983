// The results the charts draw: the parts of bench/results/{propagation,xds-throughput}.json they read,
// validated with zod (a renamed field fails here, naming the file and the field, instead of drawing an
// empty chart), and the rule for which fresh results replace the committed copies beside the charts.
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';

/** Client counts the propagation chart shows (issue 17). Results at other counts (`--quick`'s 200) are not collected. */
export const PROPAGATION_CLIENTS: readonly number[] = [1000, 4000, 10_000];
/** Resource counts the xDS chart shows; xds-throughput's defaults. */
export const XDS_RESOURCES: readonly number[] = [1000, 10_000];
/** The two clients xds-throughput compares, as its rows name them. */
export const XDS_CLIENTS = ['ours', 'grpc-js-xds'] as const;

const machineSchema = z.object({ node: z.string(), cpus: z.number().int().positive(), model: z.string() });
/** The machine a benchmark ran on, as bench/lib/report.ts's `writeResults` records it. */
export type Machine = z.infer<typeof machineSchema>;

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO date');
const ms = z.number().nonnegative();
const overRounds = z.object({ allP50: ms, allP99: ms });

const propagationSchema = z.object({
  name: z.literal('propagation'),
  at: isoDate,
  machine: machineSchema,
  parameters: z.object({ clients: z.number().int().positive(), processes: z.number().int().positive(), rounds: z.number().int().positive() }),
  summary: z.object({
    endToEnd: overRounds,
    writeToRerouted: overRounds,
    zkFanout: overRounds,
    ratio: z.object({ p50: z.number(), p99: z.number() }),
  }),
});
/** What the propagation chart reads of one `npm run bench -- propagation` run. */
export type PropagationResults = z.infer<typeof propagationSchema>;

const xdsRowSchema = z.object({
  client: z.enum(XDS_CLIENTS),
  N: z.number().int().positive(),
  runs: z.number().int().positive(),
  'all received ms (median)': ms,
  complete: z.string(),
  'does-not-exist (max)': z.number().int().nonnegative(),
  'peak RSS MiB (median)': z.number().positive(),
});
const xdsSchema = z.object({
  name: z.literal('xds-throughput'),
  at: isoDate,
  machine: machineSchema,
  parameters: z.object({ repeats: z.number().int().positive(), sizes: z.array(z.number().int().positive()) }),
  rows: z.array(xdsRowSchema),
});
/** What the xDS chart reads of one `npm run bench -- xds-throughput` run. */
export type XdsResults = z.infer<typeof xdsSchema>;
/** One row of {@link XdsResults}: a client at one resource count, medians over its runs. */
export type XdsRow = z.infer<typeof xdsRowSchema>;

/** A results file that is not what the charts expect: names the file and what is wrong. */
export class ResultsFileError extends Error {
  override readonly name = 'ResultsFileError';
}

/** Reads `file` as JSON and validates it with `schema`; throws {@link ResultsFileError} naming the file and the fields at fault. */
export function parseFile<T>(file: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ResultsFileError(`${file}: not readable JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ');
    throw new ResultsFileError(`${file}: not a results file the charts can draw: ${issues}`);
  }
  return parsed.data;
}

/** Reads and validates a propagation results file; throws {@link ResultsFileError}. */
export function readPropagation(file: string): PropagationResults {
  return parseFile(file, propagationSchema);
}

/** Reads and validates an xds-throughput results file; throws {@link ResultsFileError}. */
export function readXdsThroughput(file: string): XdsResults {
  return parseFile(file, xdsSchema);
}

/** The row of `client` at `resources` resources, if the run measured it. */
export function xdsRow(results: XdsResults, client: XdsRow['client'], resources: number): XdsRow | undefined {
  return results.rows.find((r) => r.client === client && r.N === resources);
}

/** File name of the committed copy of a propagation run at `clients` clients. */
export const propagationCopyName = (clients: number): string => `propagation-${clients}.json`;
/** File name of the committed copy of the xds-throughput run. */
export const XDS_COPY_NAME = 'xds-throughput.json';

/** Whether fresh results become the chart's copy, and why not when they do not. */
export type CollectDecision = { readonly take: true; readonly copyName: string } | { readonly take: false; readonly reason: string };

/** `fresh` replaces the copy at `copyFile` only if that copy is missing or was measured earlier. */
function newerThanCopy(fresh: { at: string }, copyFile: string, read: (file: string) => { at: string }): boolean {
  if (!existsSync(copyFile)) return true;
  return Date.parse(fresh.at) > Date.parse(read(copyFile).at);
}

/**
 * Whether a propagation run feeds the chart: only at the chart's client counts (a `--quick` run at 200
 * clients must not replace a full one), and only when newer than the copy already there.
 */
export function decidePropagation(fresh: PropagationResults, copyFileFor: (name: string) => string): CollectDecision {
  const clients = fresh.parameters.clients;
  if (!PROPAGATION_CLIENTS.includes(clients)) return { take: false, reason: `${clients} clients is not one of the chart's ${PROPAGATION_CLIENTS.join(' / ')}` };
  const copyName = propagationCopyName(clients);
  if (!newerThanCopy(fresh, copyFileFor(copyName), readPropagation)) return { take: false, reason: `the chart's copy at ${clients} clients is as new or newer` };
  return { take: true, copyName };
}

/**
 * Whether an xds-throughput run feeds the chart: only when it measured both clients at both of the
 * chart's sizes, every run complete (the peer's 10,000 run needs `--peer-10k`), and is newer than the copy.
 */
export function decideXds(fresh: XdsResults, copyFileFor: (name: string) => string): CollectDecision {
  for (const n of XDS_RESOURCES) {
    for (const client of XDS_CLIENTS) {
      const row = xdsRow(fresh, client, n);
      if (!row) return { take: false, reason: `no ${client} run at ${n} resources${client === 'grpc-js-xds' && n > 1000 ? ' (it needs --peer-10k)' : ''}` };
      if (row.complete !== 'yes') return { take: false, reason: `the ${client} run at ${n} resources did not complete` };
    }
  }
  if (!newerThanCopy(fresh, copyFileFor(XDS_COPY_NAME), readXdsThroughput)) return { take: false, reason: "the chart's copy is as new or newer" };
  return { take: true, copyName: XDS_COPY_NAME };
}

/** `2 × Intel(R) Xeon(R) Processor, Node v20.20.2` for each distinct machine, joined. */
export function machineLabel(machines: readonly Machine[]): string {
  const labels = [...new Set(machines.map((m) => `${m.cpus} × ${m.model}, Node ${m.node}`))];
  return labels.join('; ');
}

/** The UTC day of each run (`2026-12-01`), or the first and last day when they differ. */
export function dateLabel(ats: readonly string[]): string {
  const days = [...new Set(ats.map((at) => new Date(at).toISOString().slice(0, 10)))].sort();
  if (days.length <= 1) return days[0] ?? 'unknown date';
  return `${days[0]} to ${days[days.length - 1]}`;
}
