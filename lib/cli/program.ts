import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import { amendCommand } from './commands/amend';
import { completionCommand } from './commands/completion';
import { consoleCommand } from './commands/console';
import { drillCommand } from './commands/drill';
import { evacuateCommand } from './commands/evacuate';
import { extendCommand } from './commands/extend';
import { fabricCommand } from './commands/fabric';
import { observerCommand, type ObserverCommandRuntime, type ObserverLauncher } from './commands/observer';
import { outCommand } from './commands/out';
import { rampCommand } from './commands/ramp';
import { requestCommand } from './commands/request';
import { restoreCommand } from './commands/restore';
import { statusCommand } from './commands/status';
import { zkCommand } from './commands/zk';
import { EXIT, exitCodeOf } from './errors';
import { escapingIo, processIo, type CliIo } from './io';
import type { ConsoleLauncher } from './console-launcher';
import { OperatorError } from '../operator';

const OVERVIEW = `
Requests go to the SQS FIFO queue ($FAILOUT_QUEUE_URL); the request worker applies them to ZooKeeper
($ZK_CONNECT), at most once each, in order per cluster. Locally, $SQS_ENDPOINT points at the local SQS.

Examples:
  failout out greetings-lor1 --peer greetings-lva1:2 --peer greetings-ltx1 --for 2h --reason INC-4711 --wait
  failout status
  failout restore greetings-lor1 --wait
  failout ramp hold greetings-lor1 (keep a ramp at its share; failout ramp --help)
  failout amend greetings-lor1 --stop-alarm greetings-lva1-errors
  failout request <id> --json
  failout console                  (the web console on http://127.0.0.1:8300/)
  failout observer                 (a D2 observer: the D2 tree over xDS on 127.0.0.1:32123)
  failout drill list               (scheduled practice failouts; failout drill --help)
  failout fabric list              (fabrics: clusters <service>-<fabric>, hosts, failed out)
  failout fabric show lor1         (each cluster of a fabric: service, hosts, state, candidate targets)
  failout evacuate lor1 --to lva1,ltx1 --for 2h --dry-run   (every cluster of a fabric out, as one plan)
  failout restore --fabric lor1 --wait
  failout zk check                 (exit 1 when a node can be changed without credentials)
  ZK_ADMIN_DIGEST=admin:… failout zk secure --dry-run

Exit codes: 0 success, 1 request rejected (or its outcome unknown / a service unreachable), 2 usage error.
`;

/** Builds the `failout` program; commands report their exit code through `rt`. */
export function buildProgram(rt: ObserverCommandRuntime): Command {
  const program = new Command('failout')
    .description('fail a D2 cluster out to its peers, restore it, and see where things stand')
    .version(version, '-V, --version', 'print the version of failout')
    .addHelpText('after', OVERVIEW)
    .showHelpAfterError('(add --help for usage and examples)')
    .exitOverride()
    .configureOutput({ writeOut: (text) => rt.io.stdout(text), writeErr: (text) => rt.io.stderr(text) });
  for (const make of [outCommand, extendCommand, rampCommand, amendCommand, restoreCommand, evacuateCommand, statusCommand, requestCommand, zkCommand, consoleCommand, observerCommand, drillCommand, fabricCommand, completionCommand]) {
    const command = make(rt);
    // Subcommands inherit neither exitOverride nor the output hooks: set them on each.
    command
      .exitOverride()
      .showHelpAfterError('(add --help for usage and examples)')
      .configureOutput({ writeOut: (text) => rt.io.stdout(text), writeErr: (text) => rt.io.stderr(text) });
    program.addCommand(command);
  }
  return program;
}

/** What the composition root plugs into the CLI (lib/cli imports neither). */
export interface CliServices {
  /** Starts the web console for `failout console`. */
  readonly console?: ConsoleLauncher | undefined;
  /** Starts a D2 observer for `failout observer`. */
  readonly observer?: ObserverLauncher | undefined;
}

/**
 * Runs the CLI on `argv` (the arguments after the program name) and resolves to the exit code. Never
 * throws and never exits the process: `main.ts` does that, tests call this directly.
 */
export async function run(argv: readonly string[], io: CliIo = processIo(), services: CliServices = {}): Promise<number> {
  // Whatever a command prints passes one escaping guard: text from data never drives the terminal.
  io = escapingIo(io);
  let exitCode: number = EXIT.ok;
  const rt: ObserverCommandRuntime = { io, setExit: (code) => (exitCode = code), console: services.console, observer: services.observer };
  const program = buildProgram(rt);
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.usage;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with code 0; every parse error is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof OperatorError) {
      io.stderr(`failout: ${err.message}\n`);
      return exitCodeOf(err);
    }
    io.stderr(`failout: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.failed;
  }
}
