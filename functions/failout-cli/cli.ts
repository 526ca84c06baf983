/**
 * The `failout` CLI as wired for use: lib/cli's `run` with lib/console's launcher plugged in for
 * `failout console` and lib/observer's for `failout observer` (lib/cli imports neither: its face
 * stays free of gRPC, prom-client and the console's server; this composition root joins them).
 */
import { run, type CliIo } from '../../lib/cli';
import { launchConsole } from '../../lib/console';
import { launchObserver } from '../../lib/observer';

/** Runs one `failout` command line (the arguments after the program name) and resolves to its exit code. */
export function runFailout(argv: readonly string[], io?: CliIo): Promise<number> {
  return run(argv, io, { console: launchConsole, observer: (env) => launchObserver(env) });
}
