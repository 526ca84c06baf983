// The chart of bench/propagation --discovery xds --clients-series (issue 25): how write → all clients
// rerouted grows with the clients over the observer tier, beside the ZooKeeper fan-out floor and the
// ZooKeeper-discovery path of the same run. The results file's part the chart reads (validated with
// zod, as data.ts does for the others), which runs replace the committed copy, and the spec (pure:
// results in, Vega-Lite spec out; render.ts draws it). The benchmark draws the same spec beside its
// results; `npm run bench -- charts` draws it beside the README from the committed copy.
import { existsSync } from 'node:fs';
import type { TopLevelSpec } from 'vega-lite' with { 'resolution-mode': 'import' };
import { z } from 'zod';
import { parseFile, type CollectDecision } from './data';
import { provenance } from './specs';

/** Client counts a series must hold to replace the committed copy (issue 25: from 1,000 to 10,000). */
export const XDS_GROWTH_CLIENTS: readonly number[] = [1000, 10_000];
/** File name of the committed copy beside the charts. */
export const XDS_GROWTH_COPY_NAME = 'propagation-xds.json';

const p99 = z.object({ allP99: z.number().nonnegative() });
const growthSchema = z.object({
  name: z.literal('propagation-xds'),
  at: z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO date'),
  machine: z.object({ node: z.string(), cpus: z.number().int().positive(), model: z.string() }),
  parameters: z.object({ observers: z.number().int().positive(), processes: z.number().int().positive(), rounds: z.number().int().positive() }),
  sizes: z.array(
    z.object({
      clients: z.number().int().positive(),
      xds: z.object({ writeToRerouted: p99 }),
      floor: p99,
      zkPath: z.object({ writeToRerouted: p99 }).optional(),
    }),
  ),
});
/** What the chart reads of one `npm run bench -- propagation --discovery xds` run. */
export type XdsGrowthResults = z.infer<typeof growthSchema>;

/** Reads and validates a propagation-xds results file; throws ResultsFileError naming the file and the field. */
export function readXdsGrowth(file: string): XdsGrowthResults {
  return parseFile(file, growthSchema);
}

/** A run replaces the committed copy only when it measured every size of {@link XDS_GROWTH_CLIENTS} and is newer. */
export function decideXdsGrowth(fresh: XdsGrowthResults, copyFile: string): CollectDecision {
  const measured = fresh.sizes.map((s) => s.clients);
  const missing = XDS_GROWTH_CLIENTS.filter((n) => !measured.includes(n));
  if (missing.length > 0) return { take: false, reason: `no run at ${missing.join(' / ')} clients (--clients-series ${XDS_GROWTH_CLIENTS.join(',')})` };
  if (existsSync(copyFile) && Date.parse(fresh.at) <= Date.parse(readXdsGrowth(copyFile).at)) return { take: false, reason: "the chart's copy is as new or newer" };
  return { take: true, copyName: XDS_GROWTH_COPY_NAME };
}

/** The chart's points of a run: each size's p99 over rounds of the last client, per path. */
export function xdsGrowthPoints(run: XdsGrowthResults): XdsGrowthPoint[] {
  return run.sizes.map((s) => ({ clients: s.clients, xdsP99Ms: s.xds.writeToRerouted.allP99, floorP99Ms: s.floor.allP99, zkPathP99Ms: s.zkPath?.writeToRerouted.allP99 }));
}

/** One size of a series run, as the chart reads it (p99 over rounds of the last client, ms). */
export interface XdsGrowthPoint {
  readonly clients: number;
  readonly xdsP99Ms: number;
  readonly floorP99Ms: number;
  /** Undefined where the ZooKeeper path did not run at that size. */
  readonly zkPathP99Ms: number | undefined;
}

/** The lines of the chart, in legend order. */
export const XDS_GROWTH_SERIES = {
  xds: 'over xDS (observers): ZooKeeper write → all clients rerouted',
  floor: 'ZooKeeper fan-out floor: setData → all watchers notified',
  zk: 'over ZooKeeper: ZooKeeper write → all clients rerouted',
} as const;
const COLORS = ['#2ca02c', '#9e9e9e', '#1f77b4'];

/** Write → rerouted p99 against clients, one line per path, a point and its value at each measured size. */
export function propagationXdsSpec(run: Pick<XdsGrowthResults, 'machine' | 'at' | 'parameters'>, points: readonly XdsGrowthPoint[]): TopLevelSpec {
  if (points.length === 0) throw new Error('propagationXdsSpec: no sizes to draw');
  const { observers, processes, rounds } = run.parameters;
  const values = points.flatMap((p) =>
    [
      { series: XDS_GROWTH_SERIES.xds, ms: p.xdsP99Ms },
      { series: XDS_GROWTH_SERIES.floor, ms: p.floorP99Ms },
      ...(p.zkPathP99Ms === undefined ? [] : [{ series: XDS_GROWTH_SERIES.zk, ms: p.zkPathP99Ms }]),
    ].map((d) => ({ clients: p.clients, series: d.series, ms: d.ms, label: `${Math.round(d.ms).toLocaleString('en-US')}` })),
  );
  const order = Object.values(XDS_GROWTH_SERIES);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Failout propagation over the observer tier, by clients',
      subtitle: [
        `p99 over ${rounds} rounds of the last client, ms; ${observers} observers,`,
        `clients over ${processes} processes, each its own xDS client.`,
        provenance([run]),
      ],
      anchor: 'start',
    },
    data: { values },
    width: 420,
    height: 260,
    encoding: {
      x: { field: 'clients', type: 'quantitative', title: 'clients', axis: { values: points.map((p) => p.clients), format: ',d' } },
      y: { field: 'ms', type: 'quantitative', title: 'ms (p99, last client)' },
      color: { field: 'series', type: 'nominal', sort: order, scale: { domain: order, range: COLORS }, legend: { orient: 'bottom', direction: 'vertical', title: null, labelLimit: 600 } },
    },
    layer: [
      { mark: { type: 'line', point: true } },
      { mark: { type: 'text', baseline: 'bottom', dy: -4, fontSize: 9 }, encoding: { text: { field: 'label' }, color: { value: '#333' } } },
    ],
  };
}
