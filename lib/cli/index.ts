/**
 * lib/cli: the `failout` command (package.json `bin`, through `bin.cjs` and `main.ts`). `run(argv, io)`
 * parses and runs one command line and resolves to its exit code, so the local stack's scenario and
 * the tests drive the CLI in-process with their own {@link CliIo}.
 */
export { buildProgram, run } from './program';
export { processIo, type CliIo } from './io';
export { CliError, EXIT, type CliErrorKind } from './errors';
// The console (lib/console) acts through the CLI's request path; npm start serves it too.
export { startConsole, consoleServerOptions, DEFAULT_CONSOLE_PORT, type ConsoleFlags } from './commands/console';
export { createConsoleRequests } from './console-requests';
export type { ClusterStatus, WindowStatus, RampStatus, ClusterFailoutState } from './cluster-status';
