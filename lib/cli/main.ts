// The `failout` command: thin shell over lib/cli/program.ts (argv, process streams, exit code).
import { run } from './program';

// The SDK warns on every run that Node 20 support ends in 2027; an operator's terminal needs no such noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
