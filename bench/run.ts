// `npm run bench -- <name> [args…]`: runs bench/<name>/index.ts, whose default export is the benchmark.
// `npm run bench [-- --quick]`: runs EVERY benchmark, one child process each, one after the other
// (`--quick` with smaller counts per benchmark), writes bench/results/summary.{md,json}, then draws the
// charts (bench/charts) from the results that feed them. `npm run bench -- charts` draws them alone.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

/** Smaller counts per benchmark for `--quick` (a smoke run of everything in a few minutes). */
const QUICK_ARGS: Record<string, string[]> = {
  abort: ['--runs', '5'],
  bridge: ['--clusters', '100', '--changes', '20'],
  console: ['--quick'],
  'd2-resolve': ['--batches', '10', '--warmup', '20000'],
  evacuate: ['--services', '20', '--clients', '200', '--rounds', '4', '--judge-services', '200', '--judge-rounds', '5'],
  'failout-overhead': ['--batches', '10', '--http-batches', '5'],
  'failout-propagation': ['--clients', '200', '--rounds', '6'],
  'grpc-fanout': ['--clients', '200', '--rounds', '6'],
  'lambda-bundle': ['--runs', '2'],
  propagation: ['--clients', '200', '--rounds', '6'],
  worker: ['--requests', '200'],
  'xds-fallback': ['--runs', '5'],
  'xds-throughput': ['--repeats', '1', '--large', '3000'],
  'zk-fanout': ['--watchers', '200', '--rounds', '6'],
};

interface Outcome {
  name: string;
  args: string[];
  exitCode: number;
  seconds: number;
  /** A few headline numbers from the benchmark's results JSON. */
  headline: string;
}

/** Not a benchmark: draws charts from the others' results, so it runs after them, not among them. */
const CHARTS = 'charts';

function available(): string[] {
  return readdirSync(__dirname, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(__dirname, d.name, 'index.ts')))
    .map((d) => d.name)
    .sort();
}

/** The benchmarks `npm run bench` runs: everything {@link available} but the charts. */
const benchmarks = (): string[] => available().filter((name) => name !== CHARTS);

/** Numeric leaves of `value` as `path=n`, objects only (arrays are per-sample data). */
function numericLeaves(value: unknown, path: string, out: string[]): void {
  if (typeof value === 'number') out.push(`${path}=${Math.round(value * 1000) / 1000}`);
  else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) numericLeaves(v, path ? `${path}.${k}` : k, out);
  }
}

/** The headline of a results file written after `since`: its summary's numbers, else its first rows. */
function headline(name: string, since: number): string {
  const file = join(__dirname, 'results', `${name}.json`);
  if (!existsSync(file)) return '(no results file)';
  const json = JSON.parse(readFileSync(file, 'utf8')) as { at?: string; summary?: unknown; rows?: Record<string, unknown>[] };
  if (!json.at || Date.parse(json.at) < since) return '(no new results)';
  const parts: string[] = [];
  if (json.summary && typeof json.summary === 'object') {
    numericLeaves(json.summary, '', parts);
    // The p50/p99 and ratios say it; means, maxima and per-client detail stay in the JSON.
    const key = parts.filter((p) => /p50|p99|ratio/i.test(p.split('=')[0]!) && !/perClient|perWatcherMs\./.test(p));
    if (key.length > 0) parts.splice(0, parts.length, ...key);
  }
  else for (const row of (json.rows ?? []).slice(0, 3)) parts.push(Object.entries(row).slice(0, 7).map(([k, v]) => `${k}=${String(v)}`).join(' '));
  return parts.slice(0, 12).join('; ');
}

function runChild(name: string, args: string[]): Promise<number> {
  // process.execArgv carries tsx's loader flags, so the child runs TypeScript as this process does.
  const child = spawn(process.execPath, [...process.execArgv, __filename, name, ...args], { stdio: 'inherit' });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function runAll(quick: boolean): Promise<number> {
  const outcomes: Outcome[] = [];
  const started = Date.now();
  for (const name of benchmarks()) {
    const args = quick ? (QUICK_ARGS[name] ?? []) : [];
    process.stdout.write(`\n=== ${name} ${args.join(' ')}\n`);
    const t0 = Date.now();
    const exitCode = await runChild(name, args);
    outcomes.push({ name, args, exitCode, seconds: Math.round((Date.now() - t0) / 100) / 10, headline: headline(name, t0) });
  }
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const machine = { node: process.version, cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' };
  const at = new Date().toISOString();
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ at, quick, machine, totalSeconds: Math.round((Date.now() - started) / 1000), benchmarks: outcomes }, null, 2) + '\n');
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const md = [
    `Benchmarks ${quick ? '(--quick) ' : ''}at ${at} on ${machine.cpus} × ${machine.model}, Node ${machine.node}; per-benchmark detail in bench/results/<name>.json.`,
    '',
    '| benchmark | result | seconds | arguments | headline numbers (ms unless named) |',
    '| --- | --- | ---: | --- | --- |',
    ...outcomes.map((o) => `| ${o.name} | ${o.exitCode === 0 ? 'ok' : `failed (${o.exitCode})`} | ${o.seconds} | ${cell(o.args.join(' ') || '(defaults)')} | ${cell(o.headline)} |`),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'summary.md'), md);
  process.stdout.write(`\n${md}\nsummary written to ${join(dir, 'summary.md')} and summary.json\n`);
  // After every benchmark that feeds a chart. A --quick run's sizes are not collected (bench/charts/data.ts),
  // so it redraws the committed charts unchanged.
  process.stdout.write(`\n=== ${CHARTS}\n`);
  const chartsExit = await runChild(CHARTS, []);
  return outcomes.every((o) => o.exitCode === 0) && chartsExit === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  const names = available();
  if (name === undefined || name === '--quick') return runAll(name === '--quick');
  if (!names.includes(name)) {
    process.stderr.write(
      `usage: npm run bench [-- --quick]   (every benchmark, summary in bench/results/summary.md, then the charts)\n` +
        `       npm run bench -- <name> [args]\n       npm run bench -- ${CHARTS} [--results <dir>] [--out <dir>] [--no-collect]   (docs/bench/*.svg)\n` +
        `available: ${names.join(', ')}\n`,
    );
    return 2;
  }
  const mod = (await import(join(__dirname, name, 'index.ts'))) as { default: (args: string[]) => Promise<void> };
  await mod.default(args);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
