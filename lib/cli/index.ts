/**
 * lib/cli: the `failout` command (package.json `bin`, through `bin.cjs` and `main.ts`). `run(argv, io)`
 * parses and runs one command line and resolves to its exit code, so the local stack's scenario and
 * the tests drive the CLI in-process with their own {@link CliIo}.
 */
export { buildProgram, run } from './program';
export { processIo, type CliIo } from './io';
export { CliError, EXIT, type CliErrorKind } from './errors';
