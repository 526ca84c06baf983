import { hostname, userInfo } from 'node:os';
import { Option, type Command } from 'commander';
import type { RequestRecord } from '../requests';
import { CliConnections } from './connections';
import { EXIT } from './errors';
import type { CliIo } from './io';
import { resolveSettings, type CliSettings, type ConnectionFlags } from './settings';

/** What every command action gets: the io, and a way to report its exit code. */
export interface CommandRuntime {
  readonly io: CliIo;
  /** Sets the exit code of the run (the last call wins). */
  setExit(code: number): void;
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
export async function withConnections<T>(flags: ConnectionFlags, io: CliIo, fn: (connections: CliConnections, settings: CliSettings) => Promise<T>): Promise<T> {
  const settings = resolveSettings(flags, io.env);
  const connections = new CliConnections(settings);
  try {
    return await fn(connections, settings);
  } finally {
    await connections.close();
  }
}

/** Who is asking, when `--by` is not given: `$FAILOUT_USER`, else `user@host`. */
export function defaultRequester(env: CliIo['env']): string {
  if (env.FAILOUT_USER) return env.FAILOUT_USER;
  let user = env.USER ?? env.LOGNAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `${user}@${hostname()}`;
}

/** The exit code a request's outcome deserves: applied or duplicate → 0, rejected → 1. */
export function exitCodeOf(record: RequestRecord): number {
  return record.status === 'rejected' ? EXIT.failed : EXIT.ok;
}

/** Writes a JSON document (pretty, one trailing newline). */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
