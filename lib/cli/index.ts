/**
 * lib/cli: the `failout` command: commander and printing over lib/operator's request path. Its
 * composition root is `functions/failout-cli/main.ts` (which wires in the console). `run(argv, io)`
 * parses and runs one command line and resolves to its exit code, so tests drive the CLI in-process
 * with their own {@link CliIo}.
 */
export { buildProgram, run, type CliServices } from './program';
export { processIo, type CliIo } from './io';
export { EXIT, exitCodeOf } from './errors';
export type { ConsoleFlags, ConsoleLauncher, RunningConsole } from './console-launcher';
