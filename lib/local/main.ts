// `npm start`: thin shell over lib/local/demo.ts (options, Ctrl-C, exit code).
import { parseArgs } from 'node:util';
import { runDemo } from './demo';

const HELP = `usage: npm start [-- options]

Starts ZooKeeper, three announced HTTP backends of cluster greetings-lor1, and sends d2://greetings
requests through D2Client, printing where they went: with weights 1:2:1, with one backend marked down,
with ZooKeeper stopped (clients serve from their cache), and after it is back.

options:
  --requests <n>   requests per phase (default 400)
  --keep           keep sending and printing every 2 s until Ctrl-C
  --help           this text
`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: { requests: { type: 'string', default: '400' }, keep: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    }));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const requests = Number(values.requests);
  if (!Number.isInteger(requests) || requests < 1) {
    process.stderr.write(`--requests must be a positive integer, got ${values.requests}\n`);
    return 2;
  }
  // The tables are the output; keep the components' JSON logs to warnings unless asked.
  process.env.FAILOUT_LOG_LEVEL ??= 'warn';
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  process.once('SIGTERM', () => abort.abort());
  await runDemo({ requests, keep: values.keep, out: (line) => process.stdout.write(`${line}\n`), signal: abort.signal });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
