/**
 * The console's start-up from text options and the environment (the `failout console` flags, the
 * variables `npm start` sets): where it listens, what it reads, and its request side
 * (lib/operator's `createOperatorRequests`, the same path as the CLI's).
 */
import { createLogger, type Logger } from '../logging';
import { hasCredentials } from '../metrics';
import { hideUrlCredentials } from '../text';
import { createOperatorRequests, DEFAULT_CONSOLE_PORT, defaultRequester, drillsBase, inputError, resolveAlarmSource, resolveSettings, type ConsoleStartOptions, type OperatorEnv } from '../operator';
import { loadZkTlsFiles, ZkTlsConfigError } from '../zk';
import type { ConsoleAlarmSource } from './alarms';
import { listenProblem } from './security';
import { ConsoleConfigError, ConsoleServer, type ConsoleServerOptions } from './server';



/** An http(s) URL, or a usage error naming where it came from. */
function httpUrl(text: string, from: string): string {
  // Echoed without a password: a URL that does not parse (or is not http) may still hold one.
  const shown = JSON.stringify(hideUrlCredentials(text));
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw inputError(`${from}: ${shown} is not a URL (example: http://127.0.0.1:9901)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw inputError(`${from}: ${shown} is not an http(s) URL`);
  // The page shows these URLs: a credential in one would be shown too (and fetch refuses them anyway).
  if (hasCredentials(url)) {
    const hint = from.includes('BRIDGE') || from.includes('bridge') ? "; give the bridges' token in FAILOUT_BRIDGE_ADMIN_TOKEN" : '';
    throw inputError(`${from}: put no credentials in a URL (the console shows its URLs)${hint}`);
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
    if (eq <= 0 || service === '') throw inputError(`${from}: ${JSON.stringify(hideUrlCredentials(value))} is not service=url (example: greetings=http://127.0.0.1:9464/metrics)`);
    byService.set(service, [...(byService.get(service) ?? []), httpUrl(value.slice(eq + 1).trim(), from)]);
  }
  return byService;
}

/**
 * Where the console reads the stop alarms' states: lib/operator's one rule (`resolveAlarmSource`:
 * `--alarms-url` or `FAILOUT_ALARMS_URL` over HTTP, else CloudWatch only when asked), asked by
 * `--cloudwatch-alarms` or `FAILOUT_CONSOLE_CLOUDWATCH=1` (a console must not call AWS because
 * credentials happen to be around). @throws OperatorError `input`.
 */
export function consoleAlarmSource(flags: Pick<ConsoleStartOptions, 'alarmsUrl' | 'cloudwatchAlarms'>, env: OperatorEnv): ConsoleAlarmSource | undefined {
  return resolveAlarmSource(flags, env, 'FAILOUT_CONSOLE_CLOUDWATCH');
}

/** What the console server is started with, from flags over environment. @throws OperatorError `input`. */
export function consoleServerOptions(flags: ConsoleStartOptions, env: OperatorEnv, logger: Logger): ConsoleServerOptions {
  const settings = resolveSettings(flags, env);
  const portText = flags.port ?? env.FAILOUT_CONSOLE_PORT;
  const port = portText === undefined || portText.trim() === '' ? DEFAULT_CONSOLE_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw inputError(`--port ${JSON.stringify(portText)} is not a port number (0-65535; 0 picks a free one)`);
  const host = flags.listen ?? (env.FAILOUT_CONSOLE_LISTEN?.trim() || '127.0.0.1');
  const token = flags.token ?? (env.FAILOUT_CONSOLE_TOKEN?.trim() || undefined);
  const problem = listenProblem(host, token);
  if (problem) throw inputError(problem);
  const bridgeUrls = (flags.bridgeAdmin ?? split(env.FAILOUT_BRIDGE_ADMIN_URLS)).flatMap(split).map((u) => httpUrl(u, flags.bridgeAdmin ? '--bridge-admin' : 'FAILOUT_BRIDGE_ADMIN_URLS'));
  const metricsUrls = parseMetricsUrls((flags.metrics ?? split(env.FAILOUT_METRICS_URLS)).flatMap(split), flags.metrics ? '--metrics' : 'FAILOUT_METRICS_URLS');
  let tls;
  try {
    tls = settings.zkTls ? loadZkTlsFiles(settings.zkTls, { caFile: '--zk-tls-ca / ZK_TLS_CA', certFile: '--zk-tls-cert / ZK_TLS_CERT', keyFile: '--zk-tls-key / ZK_TLS_KEY' }) : undefined;
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw inputError(err.message);
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
    fabricsBase: settings.fabricsBase,
    evacuationsBase: settings.evacuationsBase,
    drillsBase: drillsBase(env),
    requests: createOperatorRequests(settings, env, requester),
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
 * Starts a console from its options and the environment (the `failout console` command, and the local
 * stack's `npm start`). @throws OperatorError `input` for bad options.
 */
export async function startConsole(flags: ConsoleStartOptions, env: OperatorEnv, logger: Logger = createLogger('console')): Promise<ConsoleServer> {
  const options = consoleServerOptions(flags, env, logger);
  try {
    return await ConsoleServer.start(options);
  } catch (err) {
    await options.requests.close();
    if (err instanceof ConsoleConfigError) throw inputError(err.message);
    if ((err as { code?: unknown } | null)?.code === 'EADDRINUSE') throw inputError(`port ${options.port ?? ''} on ${options.host ?? ''} is in use: pick another with --port`);
    throw err;
  }
}


/**
 * Starts a console and says where: its URL, and one line on where the stop alarms' states come from
 * (what `failout console` prints). @throws OperatorError `input` for bad options.
 */
export async function launchConsole(options: ConsoleStartOptions, env: OperatorEnv): Promise<{ readonly url: string; readonly alarmsLine: string; close(): Promise<void> }> {
  const server = await startConsole(options, env);
  const alarms = server.snapshot().alarms;
  const alarmsLine = alarms.kind === 'off' ? 'alarm states: not configured (--alarms-url or --cloudwatch-alarms to show them)' : `alarm states: from ${alarms.source}`;
  return { url: server.url, alarmsLine, close: () => server.close() };
}
