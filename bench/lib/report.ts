import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';

/** One row of a benchmark table: column name → value. */
export type Row = Record<string, string | number>;

/** Percentile (nearest rank) of already collected samples; 0 for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

/** Rounds for display and JSON: 3 significant decimals are plenty for ms figures. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * A propagation benchmark's figures over its rounds: the last client (or watcher) of each round
 * (`all*`: when everyone had it), and every client of every round pooled (`perClient*`).
 */
export function overRounds(perRound: readonly number[], pooled: readonly number[]) {
  return {
    allP50: round(percentile(perRound, 50)),
    allP99: round(percentile(perRound, 99)),
    allMax: round(Math.max(...perRound)),
    allMean: round(perRound.length ? perRound.reduce((a, b) => a + b, 0) / perRound.length : 0),
    perClientP50: round(percentile(pooled, 50)),
    perClientP99: round(percentile(pooled, 99)),
  };
}
/** {@link overRounds}' figures. */
export type OverRounds = ReturnType<typeof overRounds>;

/** Prints rows as an aligned text table. */
export function printTable(title: string, rows: readonly Row[]): void {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const width = (c: string): number => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padStart(width(columns[i] ?? ''))).join('  ');
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(line(columns) + '\n');
  process.stdout.write(columns.map((c) => '-'.repeat(width(c))).join('  ') + '\n');
  for (const row of rows) process.stdout.write(line(columns.map((c) => String(row[c] ?? ''))) + '\n');
  process.stdout.write('\n');
}

/** Writes `bench/results/<name>.json` with the rows, parameters and the machine it ran on. */
export function writeResults(name: string, payload: { parameters: Record<string, unknown>; rows: readonly Row[]; [key: string]: unknown }): string {
  const dir = join(__dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const machine = { node: process.version, cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' };
  writeFileSync(file, JSON.stringify({ name, at: new Date().toISOString(), machine, ...payload }, null, 2) + '\n');
  process.stdout.write(`results written to ${file}\n`);
  return file;
}
