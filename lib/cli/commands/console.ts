import { Command } from 'commander';
import { ConsoleConfigError, ConsoleServer, listenProblem, type ConsoleAlarmSource, type ConsoleServerOptions } from '../../console';
import { createLogger, type Logger } from '../../logging';
import { hasCredentials } from '../../metrics';
import { CloudWatchAlarmStates, HttpAlarmStates } from '../../safety';
import { loadZkTlsFiles, ZkTlsConfigError } from '../../zk';
import { addConnectionOptions, defaultRequester, type CommandRuntime } from '../command-context';
import { createConsoleRequests } from '../console-requests';
import { EXIT, usageError } from '../errors';
import type { CliIo } from '../io';
import { resolveSettings, type ConnectionFlags } from '../settings';

const EXAMPLES = `
Examples:
  failout console                                   http://127.0.0.1:8300/ with $ZK_CONNECT and $FAILOUT_QUEUE_URL
  failout console --bridge-admin http://127.0.0.1:9901 --metrics greetings=http://127.0.0.1:9464/metrics
  failout console --cloudwatch-alarms               stop alarms' states from CloudWatch (your AWS credentials)
  ssh -L 8300:127.0.0.1:8300 bastion 'failout console'   then open http://127.0.0.1:8300/ here
  FAILOUT_CONSOLE_TOKEN=$(openssl rand -hex 24) failout console --listen 0.0.0.0

Environment: ZK_CONNECT, FAILOUT_QUEUE_URL, SQS_ENDPOINT (as every command), FAILOUT_BRIDGE_ADMIN_URLS
(comma-separated), FAILOUT_BRIDGE_ADMIN_TOKEN, FAILOUT_METRICS_URLS (service=url, comma-separated),
FAILOUT_TRAFFIC_METRIC, FAILOUT_CONSOLE_PORT, FAILOUT_CONSOLE_LISTEN, FAILOUT_CONSOLE_TOKEN,
FAILOUT_ALARMS_URL (alarm states over HTTP), FAILOUT_CONSOLE_CLOUDWATCH=1 (alarm states from CloudWatch).
`;

/** Default port of `failout console` (a fixed one, so an ssh tunnel can be set up once). */
export const DEFAULT_CONSOLE_PORT = 8300;

/** The console's own flags, as commander hands them over. */
export interface ConsoleFlags extends ConnectionFlags {
  port?: string;
  listen?: string;
  token?: string;
  bridgeAdmin?: string[];
  bridgeToken?: string;
  metrics?: string[];
  trafficMetric?: string;
  alarmsUrl?: string;
  cloudwatchAlarms?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** An http(s) URL, or a usage error naming where it came from. */
function httpUrl(text: string, from: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${from}: ${JSON.stringify(text)} is not a URL (example: http://127.0.0.1:9901)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${from}: ${JSON.stringify(text)} is not an http(s) URL`);
  // The page shows these URLs: a credential in one would be shown too (and fetch refuses them anyway).
  if (hasCredentials(url)) {
    const hint = from.includes('BRIDGE') || from.includes('bridge') ? "; give the bridges' token in FAILOUT_BRIDGE_ADMIN_TOKEN" : '';
    throw usageError(`${from}: put no credentials in a URL (the console shows its URLs)${hint}`);
  }
  return url.toString();
}

const split = (text: string | undefined): string[] => (text ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');

/**
 * `service=url` pairs from `--metrics` (or `FAILOUT_METRICS_URLS`), grouped by service (several
 * instances of one service are summed on the chart).
 */
export function parseMetricsUrls(values: readonly string[], from: string): Map<string, string[]> {
  const byService = new Map<string, string[]>();
  for (const value of values) {
    const eq = value.indexOf('=');
    const service = value.slice(0, eq).trim();
    if (eq <= 0 || service === '') throw usageError(`${from}: ${JSON.stringify(value)} is not service=url (example: greetings=http://127.0.0.1:9464/metrics)`);
    byService.set(service, [...(byService.get(service) ?? []), httpUrl(value.slice(eq + 1).trim(), from)]);
  }
  return byService;
}

/** `FAILOUT_CONSOLE_CLOUDWATCH`: 1/true asks for CloudWatch, 0/false or empty does not; anything else is a usage error. */
function cloudwatchFromEnv(value: string | undefined): boolean {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return true;
  throw usageError(`FAILOUT_CONSOLE_CLOUDWATCH: ${JSON.stringify(value)} is not 1 or 0`);
}

/**
 * Where the console reads the stop alarms' states: `--alarms-url` (or `FAILOUT_ALARMS_URL`, which the
 * local stack sets) over HTTP; else CloudWatch `DescribeAlarms` with the operator's credentials, only
 * when asked (`--cloudwatch-alarms` or `FAILOUT_CONSOLE_CLOUDWATCH=1`: a console must not call AWS
 * because credentials happen to be around); else none. The explicit flag `--cloudwatch-alarms` wins
 * over a `FAILOUT_ALARMS_URL` left in the environment; both flags at once are a usage error.
 * @throws CliError `usage`.
 */
export function consoleAlarmSource(flags: Pick<ConsoleFlags, 'alarmsUrl' | 'cloudwatchAlarms'>, env: CliIo['env']): ConsoleAlarmSource | undefined {
  if (flags.alarmsUrl !== undefined && flags.cloudwatchAlarms === true) throw usageError('--alarms-url and --cloudwatch-alarms name two sources of alarm states: pass one');
  const fromCloudWatch = (): ConsoleAlarmSource => {
    const region = env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim();
    return { label: `CloudWatch DescribeAlarms${region ? ` in ${region}` : ''}`, reader: new CloudWatchAlarmStates() };
  };
  if (flags.cloudwatchAlarms === true) return fromCloudWatch();
  const urlText = flags.alarmsUrl ?? (env.FAILOUT_ALARMS_URL?.trim() || undefined);
  if (urlText !== undefined) {
    const url = httpUrl(urlText.trim(), flags.alarmsUrl !== undefined ? '--alarms-url' : 'FAILOUT_ALARMS_URL');
    return { label: url, reader: new HttpAlarmStates(url) };
  }
  return cloudwatchFromEnv(env.FAILOUT_CONSOLE_CLOUDWATCH) ? fromCloudWatch() : undefined;
}

/** What the console server is started with, from flags over environment. @throws CliError `usage`. */
export function consoleServerOptions(flags: ConsoleFlags, env: CliIo['env'], logger: Logger): ConsoleServerOptions {
  const settings = resolveSettings(flags, env);
  const portText = flags.port ?? env.FAILOUT_CONSOLE_PORT;
  const port = portText === undefined || portText.trim() === '' ? DEFAULT_CONSOLE_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port ${JSON.stringify(portText)} is not a port number (0-65535; 0 picks a free one)`);
  const host = flags.listen ?? (env.FAILOUT_CONSOLE_LISTEN?.trim() || '127.0.0.1');
  const token = flags.token ?? (env.FAILOUT_CONSOLE_TOKEN?.trim() || undefined);
  const problem = listenProblem(host, token);
  if (problem) throw usageError(problem);
  const bridgeUrls = (flags.bridgeAdmin ?? split(env.FAILOUT_BRIDGE_ADMIN_URLS)).flatMap(split).map((u) => httpUrl(u, flags.bridgeAdmin ? '--bridge-admin' : 'FAILOUT_BRIDGE_ADMIN_URLS'));
  const metricsUrls = parseMetricsUrls((flags.metrics ?? split(env.FAILOUT_METRICS_URLS)).flatMap(split), flags.metrics ? '--metrics' : 'FAILOUT_METRICS_URLS');
  let tls;
  try {
    tls = settings.zkTls ? loadZkTlsFiles(settings.zkTls, { caFile: '--zk-tls-ca / ZK_TLS_CA', certFile: '--zk-tls-cert / ZK_TLS_CERT', keyFile: '--zk-tls-key / ZK_TLS_KEY' }) : undefined;
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw usageError(err.message);
    throw err;
  }
  const alarmSource = consoleAlarmSource(flags, env);
  const requester = defaultRequester(env);
  return {
    host,
    port,
    token,
    zk: settings.zkConnect === undefined ? undefined : { connectString: settings.zkConnect, tls },
    d2Base: settings.d2Base,
    requestsBase: settings.requestsBase,
    requests: createConsoleRequests(settings, env, requester),
    requester,
    bridgeUrls,
    bridgeToken: flags.bridgeToken ?? (env.FAILOUT_BRIDGE_ADMIN_TOKEN?.trim() || undefined),
    metricsUrls,
    trafficMetric: flags.trafficMetric ?? (env.FAILOUT_TRAFFIC_METRIC?.trim() || undefined),
    alarmSource,
    logger,
  };
}

/**
 * Starts a console from the CLI's flags and environment (the `failout console` command, and the local
 * stack's `npm start`). @throws CliError `usage` for bad options.
 */
export async function startConsole(flags: ConsoleFlags, env: CliIo['env'], logger: Logger = createLogger('console')): Promise<ConsoleServer> {
  const options = consoleServerOptions(flags, env, logger);
  try {
    return await ConsoleServer.start(options);
  } catch (err) {
    await options.requests.close();
    if (err instanceof ConsoleConfigError) throw usageError(err.message);
    if ((err as { code?: unknown } | null)?.code === 'EADDRINUSE') throw usageError(`port ${options.port ?? ''} on ${options.host ?? ''} is in use: pick another with --port`);
    throw err;
  }
}

/** `failout console`: the operator's web console on 127.0.0.1 until Ctrl-C. */
export function consoleCommand(rt: CommandRuntime): Command {
  const command = new Command('console')
    .description('serve the web console: clusters, traffic per target cluster, act, history, control planes (127.0.0.1 by default)')
    .option('--port <port>', `port to listen on (default $FAILOUT_CONSOLE_PORT or ${DEFAULT_CONSOLE_PORT}; 0 picks a free one)`)
    .option('--listen <address>', 'address to listen on (default $FAILOUT_CONSOLE_LISTEN or 127.0.0.1); anything but loopback needs a token')
    .option('--token <token>', 'access token, at least 32 characters (default $FAILOUT_CONSOLE_TOKEN; prefer the variable: flags show in ps)')
    .option('--bridge-admin <url>', "a bridge replica's admin URL (repeat; default $FAILOUT_BRIDGE_ADMIN_URLS)", collect)
    .option('--bridge-token <token>', "the bridges' admin bearer token (default $FAILOUT_BRIDGE_ADMIN_TOKEN)")
    .option('--metrics <service=url>', "a service instance's Prometheus text URL (repeat; default $FAILOUT_METRICS_URLS)", collect)
    .option('--traffic-metric <name>', 'a counter of every request by target cluster (label cluster) that services export (default $FAILOUT_TRAFFIC_METRIC)')
    .option('--alarms-url <url>', 'read the stop alarms\' states over HTTP: {"alarms":[{"name","state"}]} (default $FAILOUT_ALARMS_URL)')
    .option('--cloudwatch-alarms', 'read the stop alarms\' states from CloudWatch DescribeAlarms with your AWS credentials (or FAILOUT_CONSOLE_CLOUDWATCH=1)');
  addConnectionOptions(command).addHelpText('after', EXAMPLES);
  return command.action(async (flags: ConsoleFlags) => {
    const server = await startConsole(flags, rt.io.env);
    rt.io.stdout(`failout console: ${server.url}  (Ctrl-C stops it)\n`);
    const alarms = server.snapshot().alarms;
    rt.io.stdout(alarms.kind === 'off' ? 'alarm states: not configured (--alarms-url or --cloudwatch-alarms to show them)\n' : `alarm states: from ${alarms.source}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    rt.setExit(EXIT.ok);
  });
}
