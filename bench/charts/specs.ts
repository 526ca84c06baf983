// Vega-Lite specs of the headline charts. Pure: results in, spec out (render.ts draws them). Labels
// are computed here, so the spec only places them and the text on a bar is exactly what the tests read.
import type { TopLevelSpec } from 'vega-lite' with { 'resolution-mode': 'import' };
import { dateLabel, machineLabel, XDS_RESOURCES, xdsRow, type PropagationResults, type XdsResults } from './data';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** Fixed width of a chart panel, so the SVGs keep their size from one run to the next. */
const PANEL = { width: 300, height: 230 } as const;
const FONT = 'Helvetica, Arial, sans-serif';

const count = (n: number): string => n.toLocaleString('en-US');

/** The top of a y scale: room above the tallest bar for its label, so labels stay inside the panel. */
const headroom = (values: readonly number[]): number => Math.max(1, ...values) * 1.12;

/** `144 ms`, `1,226 ms` below 10 s, `66.4 s` from there. */
export function formatMs(value: number): string {
  return value < 10_000 ? `${count(Math.round(value))} ms` : `${(value / 1000).toFixed(1)} s`;
}

/** `68.5 MiB`, `1,226 MiB` from 1,000. */
export function formatMiB(value: number): string {
  return value < 1000 ? `${value.toFixed(1)} MiB` : `${count(Math.round(value))} MiB`;
}

/** The line every chart ends its subtitle with: where and when the numbers were measured. */
export function provenance(runs: readonly { machine: PropagationResults['machine']; at: string }[]): string {
  return `Measured on ${machineLabel(runs.map((r) => r.machine))}; ${dateLabel(runs.map((r) => r.at))} (UTC).`;
}

/** Series of the propagation chart, in legend and bar order: the floor first. */
export const PROPAGATION_SERIES = {
  floor: 'ZooKeeper fan-out floor: setData → all watchers notified (zk-fanout)',
  write: 'failout: ZooKeeper write → all clients rerouted',
  endToEnd: 'failout end to end: SQS send → all clients rerouted',
} as const;
const PROPAGATION_COLORS = ['#9e9e9e', '#1f77b4', '#ff7f0e'];

/** Panel (column) headers: which statistic over the rounds of each run. */
export const STATS = { p50: 'p50 over rounds', p99: 'p99 over rounds' } as const;

interface PropagationDatum {
  clients: string;
  stat: string;
  series: string;
  ms: number;
  label: string;
}

/**
 * Propagation time against the ZooKeeper fan-out floor: per client count, the time until the LAST of
 * N clients routes the new way (p50 and p99 over the run's rounds), next to bare watchers on the same
 * ZooKeeper in the same run. `runs` may hold any of the chart's client counts, in any order.
 */
export function propagationSpec(runs: readonly PropagationResults[]): TopLevelSpec {
  if (runs.length === 0) throw new Error('propagationSpec: no propagation results to draw');
  const sorted = [...runs].sort((a, b) => a.parameters.clients - b.parameters.clients);
  const values: PropagationDatum[] = sorted.flatMap((run) => {
    const clients = count(run.parameters.clients);
    const s = run.summary;
    return (['p50', 'p99'] as const).flatMap((stat) => {
      const key = stat === 'p50' ? 'allP50' : 'allP99';
      return [
        { series: PROPAGATION_SERIES.floor, ms: s.zkFanout[key] },
        { series: PROPAGATION_SERIES.write, ms: s.writeToRerouted[key] },
        { series: PROPAGATION_SERIES.endToEnd, ms: s.endToEnd[key] },
      ].map((d) => ({ clients, stat: STATS[stat], series: d.series, ms: d.ms, label: count(Math.round(d.ms)) }));
    });
  });
  const ratios = sorted.map((r) => `${r.summary.ratio.p99.toFixed(2)} at ${count(r.parameters.clients)}`).join(' · ');
  const rounds = [...new Set(sorted.map((r) => r.parameters.rounds))];
  const processes = [...new Set(sorted.map((r) => r.parameters.processes))];
  return {
    $schema: SCHEMA,
    title: {
      text: 'Failout propagation against the ZooKeeper fan-out floor',
      // Short lines: vega sizes the SVG by an estimate of text width (0.8 em a character), so a long
      // line would leave empty space beside the panels.
      subtitle: [
        `Time until the last of N clients has the change, ms; ${rounds.join('/')} rounds per run.`,
        `Each client its own ZooKeeper session, spread over ${processes.join('/')} processes.`,
        'Write → rerouted over the floor at p99 (target ≤ 1.3):',
        `${ratios}.`,
        provenance(sorted),
      ],
      anchor: 'start',
      font: FONT,
      subtitleFont: FONT,
    },
    config: { font: FONT },
    data: { values },
    facet: { column: { field: 'stat', type: 'nominal', title: null, sort: [STATS.p50, STATS.p99], header: { labelFontSize: 12 } } },
    spec: {
      ...PANEL,
      encoding: {
        x: { field: 'clients', type: 'ordinal', sort: sorted.map((r) => count(r.parameters.clients)), title: 'clients', axis: { labelAngle: 0 } },
        xOffset: { field: 'series', sort: Object.values(PROPAGATION_SERIES) },
        y: { field: 'ms', type: 'quantitative', title: 'ms (last client)', scale: { domain: [0, headroom(values.map((v) => v.ms))] } },
        color: {
          field: 'series',
          sort: Object.values(PROPAGATION_SERIES),
          scale: { domain: Object.values(PROPAGATION_SERIES), range: PROPAGATION_COLORS },
          legend: { orient: 'bottom', direction: 'vertical', title: null, labelLimit: 600 },
        },
      },
      layer: [{ mark: { type: 'bar' } }, { mark: { type: 'text', baseline: 'bottom', dy: -2, fontSize: 9 }, encoding: { text: { field: 'label' }, color: { value: '#333' } } }],
    },
  };
}

/** Client names on the xDS chart. */
export const XDS_CLIENT_LABELS = { ours: 'ours (failout/xds)', 'grpc-js-xds': '@grpc/grpc-js-xds' } as const;
/** Panel headers of the xDS chart. */
export const XDS_METRICS = { time: 'time until all received', rss: 'peak RSS' } as const;

/** Header of the panel of `metric` at `resources` resources. */
export const xdsPanel = (metric: keyof typeof XDS_METRICS, resources: number): string => `${XDS_METRICS[metric]}, ${count(resources)} resources`;

interface XdsDatum {
  panel: string;
  client: string;
  value: number;
  label: string;
}

/**
 * The xDS client against @grpc/grpc-js-xds: time until every CDS and EDS resource arrived, and the
 * process's peak RSS, at each of the chart's resource counts (medians over the run's repeats).
 */
export function xdsSpec(run: XdsResults): TopLevelSpec {
  const values: XdsDatum[] = [];
  const notes: string[] = [];
  for (const n of XDS_RESOURCES) {
    for (const client of ['ours', 'grpc-js-xds'] as const) {
      const row = xdsRow(run, client, n);
      if (!row) continue;
      const base = { client: XDS_CLIENT_LABELS[client] };
      values.push({ ...base, panel: xdsPanel('time', n), value: row['all received ms (median)'], label: formatMs(row['all received ms (median)']) });
      values.push({ ...base, panel: xdsPanel('rss', n), value: row['peak RSS MiB (median)'], label: formatMiB(row['peak RSS MiB (median)']) });
      const dne = row['does-not-exist (max)'];
      if (dne > 0) notes.push(`${XDS_CLIENT_LABELS[client]} at ${count(n)} fired does-not-exist ${count(dne)} times.`);
      if (row.runs < run.parameters.repeats) notes.push(`${XDS_CLIENT_LABELS[client]} at ${count(n)}: ${row.runs === 1 ? 'one run' : `${row.runs} runs`}.`);
    }
  }
  if (values.length === 0) throw new Error(`xdsSpec: no rows at ${XDS_RESOURCES.join(' / ')} resources to draw`);
  const clientOrder = Object.values(XDS_CLIENT_LABELS);
  return {
    $schema: SCHEMA,
    title: {
      text: 'xDS client: failout/xds against @grpc/grpc-js-xds',
      subtitle: [
        'N CDS + N EDS from one management server; each client in a fresh process;',
        `medians of ${run.parameters.repeats} runs. Each panel has its own linear scale.`,
        ...notes,
        provenance([run]),
      ],
      anchor: 'start',
      font: FONT,
      subtitleFont: FONT,
    },
    config: { font: FONT },
    data: { values },
    // One panel per metric and size, each with its own linear scale: bar lengths in a panel are the
    // ratio ours / theirs (a shared or log scale would hide one or the other); labels give the values.
    // Two rows (time, memory) of two panels (1,000, 10,000), each panel titled and with its own y
    // scale; the color scale (and so the legend) is shared.
    vconcat: (['time', 'rss'] as const).map((metric) => ({
      hconcat: XDS_RESOURCES.map((n) => ({
        title: { text: [XDS_METRICS[metric], `${count(n)} resources`], fontSize: 12, fontWeight: 'normal' as const },
        width: 320,
        height: 110,
        transform: [{ filter: { field: 'panel', equal: xdsPanel(metric, n) } }],
        encoding: {
          x: { field: 'client', type: 'nominal' as const, sort: clientOrder, title: null, axis: null },
          y: { field: 'value', type: 'quantitative' as const, title: null, scale: { domain: [0, headroom(values.filter((v) => v.panel === xdsPanel(metric, n)).map((v) => v.value))] }, axis: { tickCount: 4, labels: false, ticks: false, domain: false } },
          color: { field: 'client', type: 'nominal' as const, sort: clientOrder, scale: { domain: clientOrder, range: ['#2ca02c', '#9e9e9e'] }, legend: { orient: 'bottom' as const, title: null } },
        },
        layer: [{ mark: { type: 'bar' as const } }, { mark: { type: 'text' as const, baseline: 'bottom' as const, dy: -2, fontSize: 10 }, encoding: { text: { field: 'label' }, color: { value: '#333' } } }],
      })),
    })),
  };
}
