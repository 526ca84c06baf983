// `npm run bench -- <name> [args…]`: runs bench/<name>/index.ts, whose default export is the benchmark.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const available = readdirSync(__dirname, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(__dirname, d.name, 'index.ts')))
    .map((d) => d.name);
  if (!name || !available.includes(name)) {
    process.stderr.write(`usage: npm run bench -- <name> [args]\navailable: ${available.join(', ')}\n`);
    process.exit(2);
  }
  const mod = (await import(join(__dirname, name, 'index.ts'))) as { default: (args: string[]) => Promise<void> };
  await mod.default(args);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
