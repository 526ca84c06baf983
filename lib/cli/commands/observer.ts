import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { EXIT } from '../errors';
import { addConnectionOptions, type CommandRuntime } from '../command-context';
import { inputError, OperatorError } from '../../operator';

/** A running observer as the command needs it (lib/observer's `LaunchedObserver` is one). */
export interface RunningObserver {
  readonly summary: { readonly grpcAddress: string; readonly grpcTls: string; readonly adminAddress: string; readonly adminAuth: string };
  close(): Promise<void>;
}

/**
 * Starts an observer from the observer's own environment variables (lib/observer's `launchObserver`,
 * wired in by the CLI's composition root: lib/cli does not load gRPC or prom-client). A bad setting
 * rejects with an error whose `kind` is `config`; its message names the variable, never a secret.
 */
export type ObserverLauncher = (env: NodeJS.ProcessEnv) => Promise<RunningObserver>;

/** The command's runtime: every command's, plus the launcher. */
export interface ObserverCommandRuntime extends CommandRuntime {
  /** Absent: this build of failout has no observer. */
  readonly observer?: ObserverLauncher | undefined;
}

interface ObserverFlags {
  readonly zk?: string;
  readonly zkTlsCa?: string;
  readonly zkTlsCert?: string;
  readonly zkTlsKey?: string;
  readonly d2Base?: string;
  readonly listen?: string;
  readonly port?: string;
  readonly adminListen?: string;
  readonly adminPort?: string;
  readonly adminTokenFile?: string;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly tlsCa?: string;
}

const EXAMPLES = `
Examples:
  failout observer                                  ADS on 127.0.0.1:32123, admin on 127.0.0.1:9901, ZooKeeper $ZK_CONNECT
  failout observer --zk zk1:2181 --port 0           a free port (printed)
  OBSERVER_ADMIN_TOKEN=$(openssl rand -hex 24) failout observer --listen 0.0.0.0 --admin-listen 0.0.0.0 \\
      --tls-cert observer.pem --tls-key observer-key.pem

The admin token comes from $OBSERVER_ADMIN_TOKEN or --admin-token-file, never from a flag (flags show in ps).
Environment (flags override): ZK_CONNECT, ZK_TLS_*, D2_BASE_PATH, OBSERVER_GRPC_HOST, OBSERVER_GRPC_PORT,
OBSERVER_ADMIN_HOST, OBSERVER_ADMIN_PORT, OBSERVER_ADMIN_TOKEN, OBSERVER_GRPC_TLS_CERT, OBSERVER_GRPC_TLS_KEY,
OBSERVER_GRPC_TLS_CA, OBSERVER_LINGER_MS (as the d2-observer task reads them; docs/observer.md).
`;

/** The connection flags that mean nothing to an observer (it reads ZooKeeper only). */
const QUEUE_FLAGS = ['--queue-url', '--sqs-endpoint'];

/** `failout observer`: a D2 observer in the foreground until Ctrl-C (SIGINT) or SIGTERM. */
export function observerCommand(rt: ObserverCommandRuntime): Command {
  const command = new Command('observer')
    .description('serve the D2 tree over xDS (ADS) from one ZooKeeper view, as the d2-observer task does (127.0.0.1 by default)')
    .option('--listen <address>', 'ADS address to listen on (default $OBSERVER_GRPC_HOST or 127.0.0.1)')
    .option('--port <port>', 'ADS port (default $OBSERVER_GRPC_PORT or 32123; 0 picks a free one)')
    .option('--admin-listen <address>', 'admin HTTP address (default $OBSERVER_ADMIN_HOST or 127.0.0.1); anything but loopback needs a token')
    .option('--admin-port <port>', 'admin HTTP port: /healthz, /readyz, /status, /config_dump (CSDS), /metrics (default $OBSERVER_ADMIN_PORT or 9901; 0 picks one)')
    .option('--admin-token-file <file>', 'file holding the admin bearer token, at least 32 characters (default $OBSERVER_ADMIN_TOKEN)')
    .option('--tls-cert <file>', 'PEM certificate: serve ADS over TLS (with --tls-key; default $OBSERVER_GRPC_TLS_CERT)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert (default $OBSERVER_GRPC_TLS_KEY)')
    .option('--tls-ca <file>', 'PEM CA: also require client certificates it signed (default $OBSERVER_GRPC_TLS_CA)');
  addConnectionOptions(command);
  for (const option of command.options) if (QUEUE_FLAGS.includes(option.long ?? '')) option.hideHelp();
  command.addHelpText('after', EXAMPLES);
  return command.action(async (flags: ObserverFlags) => {
    if (rt.observer === undefined) throw inputError('this build of failout has no observer');
    const running = await launch(rt.observer, observerEnv(flags, rt.io.env));
    const { grpcAddress, grpcTls, adminAddress, adminAuth } = running.summary;
    rt.io.stdout(`failout observer: ADS on ${grpcAddress} (TLS ${grpcTls}), admin http://${adminAddress}/ (token ${adminAuth})  (Ctrl-C stops it)\n`);
    // Not closeOnSignal: that exits the process, and `run` leaves exiting to its caller.
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    // Streams end UNAVAILABLE (clients move to another observer), then the session closes.
    await running.close();
    rt.io.stdout('failout observer: stopped\n');
    rt.setExit(EXIT.ok);
  });
}

/** The observer's environment: the CLI's, with each given flag overriding its variable. */
function observerEnv(flags: ObserverFlags, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const overrides: Record<string, string | undefined> = {
    ZK_CONNECT: flags.zk,
    ZK_TLS_CA: flags.zkTlsCa,
    ZK_TLS_CERT: flags.zkTlsCert,
    ZK_TLS_KEY: flags.zkTlsKey,
    D2_BASE_PATH: flags.d2Base,
    OBSERVER_GRPC_HOST: flags.listen,
    OBSERVER_GRPC_PORT: flags.port,
    OBSERVER_ADMIN_HOST: flags.adminListen,
    OBSERVER_ADMIN_PORT: flags.adminPort,
    OBSERVER_ADMIN_TOKEN: flags.adminTokenFile === undefined ? undefined : readToken(flags.adminTokenFile),
    OBSERVER_GRPC_TLS_CERT: flags.tlsCert,
    OBSERVER_GRPC_TLS_KEY: flags.tlsKey,
    OBSERVER_GRPC_TLS_CA: flags.tlsCa,
  };
  const merged: NodeJS.ProcessEnv = { ...env };
  for (const [name, value] of Object.entries(overrides)) if (value !== undefined) merged[name] = value;
  return merged;
}

/** The token in `file` (one trailing newline dropped). Errors name the file, never its content. */
function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    // The code only (ENOENT, EACCES): the message adds nothing, and the file is a secret's.
    const code = (err as NodeJS.ErrnoException | undefined)?.code ?? 'error';
    throw inputError(`--admin-token-file: cannot read ${file} (${code})`, 'admin-token-file');
  }
  const token = text.replace(/\r?\n$/, '');
  if (token === '') throw inputError(`--admin-token-file: ${file} is empty`, 'admin-token-file');
  return token;
}

/** Launches, turning a bad setting into a usage error (exit 2) and anything else into exit 1. */
async function launch(launcher: ObserverLauncher, env: NodeJS.ProcessEnv): Promise<RunningObserver> {
  try {
    return await launcher(env);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // The launcher's contract: `kind` says a setting is bad (never branch on the message).
    if (typeof err === 'object' && err !== null && (err as { kind?: unknown }).kind === 'config') throw inputError(`${message} (failout observer --help)`);
    throw new OperatorError('unavailable', `the observer did not start: ${message}`, { cause: err });
  }
}
