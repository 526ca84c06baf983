/**
 * The `failout` command's composition root: the one place that wires the CLI (lib/cli) to the
 * process — argv, exit code, the environment — and (through ./cli.ts) to the pieces it is given
 * rather than imports. `npm run build` bundles this file into dist/cli/failout.cjs, the package's `bin`
 * (scripts/build.cjs); in the repository, `npx tsx functions/failout-cli/main.ts …` runs it from source.
 */
import { runFailout } from './cli';

// The SDK warns on every run that Node 20 support ends in 2027; an operator's terminal needs no such noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The ports the CLI is given (lib/console's launcher for `failout console`) are wired in ./cli.ts.
runFailout(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
