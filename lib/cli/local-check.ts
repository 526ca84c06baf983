import { judgeRequest, viewPathFor, parseChangeRequest, parseDuration, type ChangeRequest, type ParseOptions, type Rejection, type RequestRates } from '../requests';
import { isZkError } from '../zk';
import { printJson, type CommandRuntime } from './command-context';
import type { CliConnections } from './connections';
import { formatCapacity, projectByRates } from './dry-run';
import { CliError, EXIT, usageError } from './errors';
import type { CliIo } from './io';
import type { SendableBody } from './request-body';
import type { CliSettings } from './settings';

/**
 * The CLI's checks before it sends (issue 14): the worker's own schema and rules, so a request that
 * can only be rejected is never queued. Two steps:
 * - {@link validateLocally}: the schema, names, window and guard rails (`parseChangeRequest`). A
 *   failure is a usage error (exit 2): the command line is wrong.
 * - {@link judgeBeforeSend}: `judgeRequest` against the live ZooKeeper state when ZooKeeper is
 *   configured (unknown cluster or peer, peer failed out or without hosts). A failure is a rejection
 *   (exit 1), as the worker would record it. ZooKeeper out of reach does not stop the request: the
 *   worker judges again anyway, and an incident is no time to refuse a restore.
 * Nothing is sent after either refusal.
 */

/** The worker's guard-rail variables, read from the CLI's environment when set (a deployment may raise them). */
export function limitsFromEnv(env: CliIo['env']): Omit<ParseOptions, 'now'> {
  const limits: { maxWindowMs?: number; maxBodyBytes?: number; maxPeers?: number } = {};
  const window = env.MAX_FAILOUT_WINDOW?.trim();
  if (window) {
    const ms = parseDuration(window);
    if (ms === undefined || ms <= 0) throw usageError(`MAX_FAILOUT_WINDOW=${JSON.stringify(window)} is not a duration (examples: 72h, PT72H, P7D)`);
    limits.maxWindowMs = ms;
  }
  for (const [variable, key] of [['MAX_REQUEST_BYTES', 'maxBodyBytes'], ['MAX_PEERS', 'maxPeers']] as const) {
    const text = env[variable]?.trim();
    if (!text) continue;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value <= 0) throw usageError(`${variable}=${JSON.stringify(text)} is not a positive integer`);
    limits[key] = value;
  }
  return limits;
}

/**
 * The request as the worker would read it, or a usage error naming what it would reject and why.
 * @throws CliError `usage`.
 */
export function validateLocally(body: SendableBody, now: number, env: CliIo['env']): ChangeRequest {
  const parsed = parseChangeRequest(body, { ...limitsFromEnv(env), now });
  if (parsed.ok) return parsed.request;
  throw usageError(`the worker would reject this request (${parsed.rejection.reason}): ${parsed.rejection.message}; nothing was sent`);
}

/** One line for a rejection found before sending (or by `--dry-run`). */
export function formatLocalRejection(body: SendableBody, rejection: Rejection): string {
  return `request ${body.requestId}: REJECTED (${body.action} ${body.cluster}): ${rejection.reason} — ${rejection.message}`;
}

/**
 * Judges the request against ZooKeeper before sending, when ZooKeeper is configured. True: send it.
 * False: it was refused (printed, exit code 1 set). ZooKeeper unreachable: a warning, then true.
 * With measured request `rates`, a failout's projection from them goes to stderr, with a warning when
 * a peer would pass the limit by them: the worker judges by host counts, so that alone does not stop
 * the request (`--dry-run` shows both; a rate measured in one second is no reason to refuse a failout
 * in an incident).
 */
export async function judgeBeforeSend(
  rt: CommandRuntime,
  connections: CliConnections,
  settings: CliSettings,
  sent: { readonly body: SendableBody; readonly request: ChangeRequest; readonly json?: boolean | undefined; readonly rates?: RequestRates | undefined },
  now: number,
): Promise<boolean> {
  const { body, request } = sent;
  if (!settings.zkConnect) return true;
  let judgement;
  try {
    judgement = await judgeRequest(await connections.zk(), settings.d2Base, request, now, { maxPeerLoadFactor: settings.maxPeerLoadFactor, viewPath: viewPathFor(settings.requestsBase) });
  } catch (err) {
    if (!(err instanceof CliError && err.kind === 'unavailable') && !(isZkError(err) && err.transient)) throw err;
    rt.io.stderr(`could not check the request against ZooKeeper (${err instanceof Error ? err.message : String(err)}); sending it, the worker checks it again\n`);
    return true;
  }
  if (judgement.verdict === 'apply') {
    const byRates = judgement.capacity === undefined ? {} : projectByRates(judgement.capacity, sent.rates);
    if (byRates.ratesUnused !== undefined) rt.io.stderr(`request rates not used (${byRates.ratesUnused}); the worker judges by host counts\n`);
    const projection = byRates.capacityByRates;
    if (projection !== undefined) {
      rt.io.stderr(`${formatCapacity(projection)}\n`);
      const over = projection.peers.filter((p) => p.over).map((p) => p.cluster);
      if (over.length > 0) rt.io.stderr(`warning: by request rates ${over.join(', ')} would pass ×${projection.maxPeerLoadFactor}; the worker judges by host counts and will apply it (see --dry-run)\n`);
    }
    return true;
  }
  if (sent.json) printJson(rt.io, { requestId: body.requestId, sent: false, request: body, rejection: judgement.rejection });
  else rt.io.stdout(`${formatLocalRejection(body, judgement.rejection)}\n  nothing was sent; fix the request and send it again (add --force only to override peer-state checks)\n`);
  rt.setExit(EXIT.failed);
  return false;
}
