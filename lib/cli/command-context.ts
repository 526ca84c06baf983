import { Option, type Command } from 'commander';
import type { RequestRecord } from '../requests';
import { EXIT } from './errors';
import type { CliIo } from './io';
import type { ConsoleLauncher } from './console-launcher';
import { inputError, OperatorConnections, resolveSettings, type OperatorSettings, type ConnectionFlags } from '../operator';

/** What every command action gets: the io, and a way to report its exit code. */
export interface CommandRuntime {
  readonly io: CliIo;
  /** Sets the exit code of the run (the last call wins). */
  setExit(code: number): void;
  /** Starts the console for `failout console` (filled by the composition root; absent: no console). */
  readonly console?: ConsoleLauncher | undefined;
}

/** Adds the connection flags (each overrides its environment variable) to a command. */
export function addConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--queue-url <url>', 'the change-request queue (default: $FAILOUT_QUEUE_URL)'))
    .addOption(new Option('--zk <connect>', 'ZooKeeper connect string host:port[,…] (default: $ZK_CONNECT)'))
    .addOption(new Option('--zk-tls-ca <file>', 'PEM CA that verifies ZooKeeper over TLS (its secureClientPort) (default: $ZK_TLS_CA)'))
    .addOption(new Option('--zk-tls-cert <file>', 'PEM client certificate, when ZooKeeper requires one (default: $ZK_TLS_CERT)'))
    .addOption(new Option('--zk-tls-key <file>', 'PEM private key of --zk-tls-cert (default: $ZK_TLS_KEY)'))
    .addOption(new Option('--sqs-endpoint <url>', 'a local SQS endpoint (default: $SQS_ENDPOINT; unset means AWS)'))
    .addOption(new Option('--d2-base <path>', 'D2 base path in ZooKeeper (default: $D2_BASE_PATH or /d2)').hideHelp())
    .addOption(new Option('--requests-base <path>', 'request records path (default: $FAILOUT_REQUESTS_PATH or /failout/requests)').hideHelp());
}

/** Runs `fn` with connections opened on demand, and closes them whatever happens. */
export async function withConnections<T>(flags: ConnectionFlags, io: CliIo, fn: (connections: OperatorConnections, settings: OperatorSettings) => Promise<T>): Promise<T> {
  const settings = resolveSettings(flags, io.env);
  const connections = new OperatorConnections(settings);
  try {
    return await fn(connections, settings);
  } finally {
    await connections.close();
  }
}

/** The exit code a request's outcome deserves: applied or duplicate → 0, rejected → 1. */
export function outcomeExitCode(record: RequestRecord): number {
  return record.status === 'rejected' ? EXIT.failed : EXIT.ok;
}

/**
 * The output flags every command with an answer takes: `--output json|table` (default table: text for
 * people) and `--json`, short for `--output json`. Actions read `json` (set for either).
 */
export function addOutputOptions(command: Command): Command {
  return command
    .addOption(new Option('--output <format>', 'output format').choices(['table', 'json']).default('table'))
    .addOption(new Option('--json', 'machine-readable output (same as --output json)'))
    .hook('preAction', (_command, action) => {
      const options = action.opts<{ output?: string; json?: boolean }>();
      if (options.json === true && action.getOptionValueSource('output') === 'cli' && options.output !== 'json') {
        throw inputError('--json and --output table ask for two formats: pass one');
      }
      if (options.output === 'json') action.setOptionValue('json', true);
    });
}

/** Writes a JSON document (pretty, one trailing newline). */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
