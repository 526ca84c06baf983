// bench/charts: the headline results as SVG charts beside the README's benchmark section.
// `npm run bench -- charts [--results bench/results] [--out docs/bench]`; `npm run bench` runs it after
// the benchmarks. Two steps:
//  1. collect: a fresh bench/results/propagation.json (at 1,000, 4,000 or 10,000 clients) or
//     xds-throughput.json (both clients at 1,000 and 10,000: `--peer-10k`) is copied beside the charts
//     (docs/bench/propagation-<clients>.json, docs/bench/xds-throughput.json) when newer than the copy
//     there. bench/results/ is git-ignored; the copies are committed, so the charts can be redrawn
//     from a clone and every bar can be traced to its run.
//  2. draw: docs/bench/propagation.svg and docs/bench/xds-throughput.svg from those copies.
// Issue 25 adds a third: bench/results/propagation-xds.json (a --clients-series run with 1,000 and
// 10,000 clients) → docs/bench/propagation-xds.json → docs/bench/propagation-xds.svg.
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { decidePropagation, decideXds, propagationCopyName, PROPAGATION_CLIENTS, readPropagation, readXdsThroughput, XDS_COPY_NAME, type CollectDecision } from './data';
import { renderSvg } from './render';
import { decideXdsGrowth, propagationXdsSpec, readXdsGrowth, XDS_GROWTH_COPY_NAME, xdsGrowthPoints } from './propagation-xds';
import { propagationSpec, xdsSpec } from './specs';

/** Where the charts and their data live: beside the README, committed. */
export const DEFAULT_OUT = join(__dirname, '..', '..', 'docs', 'bench');
const DEFAULT_RESULTS = join(__dirname, '..', 'results');

/** The SVG files {@link drawCharts} writes, by chart. */
export const CHART_FILES = { propagation: 'propagation.svg', xds: 'xds-throughput.svg', xdsGrowth: 'propagation-xds.svg' } as const;

/** Copies fresh results from `resultsDir` into `outDir` where they feed a chart; returns what it did, one line each. */
export function collect(resultsDir: string, outDir: string): string[] {
  const lines: string[] = [];
  const copyFileFor = (name: string): string => join(outDir, name);
  const take = (source: string, decision: CollectDecision): void => {
    if (!decision.take) {
      lines.push(`${source}: not collected (${decision.reason})`);
      return;
    }
    mkdirSync(outDir, { recursive: true });
    copyFileSync(source, copyFileFor(decision.copyName));
    lines.push(`${source}: copied to ${copyFileFor(decision.copyName)}`);
  };
  const propagation = join(resultsDir, 'propagation.json');
  if (existsSync(propagation)) take(propagation, decidePropagation(readPropagation(propagation), copyFileFor));
  const xds = join(resultsDir, 'xds-throughput.json');
  if (existsSync(xds)) take(xds, decideXds(readXdsThroughput(xds), copyFileFor));
  const growth = join(resultsDir, XDS_GROWTH_COPY_NAME);
  if (existsSync(growth)) take(growth, decideXdsGrowth(readXdsGrowth(growth), copyFileFor(XDS_GROWTH_COPY_NAME)));
  return lines;
}

/** Draws each chart whose data is in `outDir`; returns what it did, one line each. A chart without data is skipped, not an error. */
export async function drawCharts(outDir: string): Promise<string[]> {
  const lines: string[] = [];
  const copies = existsSync(outDir) ? readdirSync(outDir) : [];
  const propagationFiles = PROPAGATION_CLIENTS.map(propagationCopyName).filter((name) => copies.includes(name));
  if (propagationFiles.length > 0) {
    const runs = propagationFiles.map((name) => readPropagation(join(outDir, name)));
    const file = join(outDir, CHART_FILES.propagation);
    writeFileSync(file, await renderSvg(propagationSpec(runs)));
    lines.push(`${file}: drawn from ${propagationFiles.join(', ')}`);
  } else lines.push(`${CHART_FILES.propagation}: skipped (no ${PROPAGATION_CLIENTS.map(propagationCopyName).join(' / ')} in ${outDir})`);
  if (copies.includes(XDS_COPY_NAME)) {
    const file = join(outDir, CHART_FILES.xds);
    writeFileSync(file, await renderSvg(xdsSpec(readXdsThroughput(join(outDir, XDS_COPY_NAME)))));
    lines.push(`${file}: drawn from ${XDS_COPY_NAME}`);
  } else lines.push(`${CHART_FILES.xds}: skipped (no ${XDS_COPY_NAME} in ${outDir})`);
  if (copies.includes(XDS_GROWTH_COPY_NAME)) {
    const file = join(outDir, CHART_FILES.xdsGrowth);
    const run = readXdsGrowth(join(outDir, XDS_GROWTH_COPY_NAME));
    writeFileSync(file, await renderSvg(propagationXdsSpec(run, xdsGrowthPoints(run))));
    lines.push(`${file}: drawn from ${XDS_GROWTH_COPY_NAME}`);
  } else lines.push(`${CHART_FILES.xdsGrowth}: skipped (no ${XDS_GROWTH_COPY_NAME} in ${outDir})`);
  return lines;
}

/** `npm run bench -- charts [--results <dir>] [--out <dir>] [--no-collect]`. */
export default async function charts(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { results: { type: 'string' }, out: { type: 'string' }, 'no-collect': { type: 'boolean' } },
    strict: true,
    allowPositionals: false,
  });
  const resultsDir = resolve(values.results ?? DEFAULT_RESULTS);
  const outDir = resolve(values.out ?? DEFAULT_OUT);
  const lines = values['no-collect'] ? [] : collect(resultsDir, outDir);
  lines.push(...(await drawCharts(outDir)));
  process.stdout.write(`charts:\n${lines.map((l) => `  ${l}\n`).join('')}`);
}
