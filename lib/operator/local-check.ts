import { encodeChangeRequest, judgeFabricChange, parseChangeRequest, parseDuration, type ChangeRequest, type EvacuateChangeRequest, type FabricDrillChangeRequest, type ParseOptions, type Rejection, type RestoreFabricChangeRequest } from '../requests';
import { inputError, type OperatorEnv } from './errors';
import type { DeleteFabricBody, EvacuateBody, PutFabricBody, RestoreFabricBody } from './fabric-bodies';
import type { FabricDrillBody } from './drill-bodies';
import type { SendableBody } from './request-bodies';

/**
 * The checks before anything is sent (issue 14): the worker's own schema and rules, so a request that
 * can only be rejected is never queued. Two steps:
 * - {@link validateLocally}: the schema, names, window and guard rails (`parseChangeRequest`). A
 *   failure is a usage error (exit 2): the command line is wrong.
 * - judging (`dryRun`; the CLI's `judgeBeforeSend`): `judgeRequest` against the live ZooKeeper state when ZooKeeper is
 *   configured (unknown cluster or peer, peer failed out or without hosts). A failure is a rejection
 *   (exit 1), as the worker would record it. ZooKeeper out of reach does not stop the request: the
 *   worker judges again anyway, and an incident is no time to refuse a restore.
 * Nothing is sent after either refusal.
 */

/** The worker's guard-rail variables, read from the CLI's environment when set (a deployment may raise them). */
export function limitsFromEnv(env: OperatorEnv): Omit<ParseOptions, 'now'> {
  const limits: { maxWindowMs?: number; maxBodyBytes?: number; maxPeers?: number } = {};
  const window = env.MAX_FAILOUT_WINDOW?.trim();
  if (window) {
    const ms = parseDuration(window);
    if (ms === undefined || ms <= 0) throw inputError(`MAX_FAILOUT_WINDOW=${JSON.stringify(window)} is not a duration (examples: 72h, PT72H, P7D)`);
    limits.maxWindowMs = ms;
  }
  for (const [variable, key] of [['MAX_REQUEST_BYTES', 'maxBodyBytes'], ['MAX_PEERS', 'maxPeers']] as const) {
    const text = env[variable]?.trim();
    if (!text) continue;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value <= 0) throw inputError(`${variable}=${JSON.stringify(text)} is not a positive integer`);
    limits[key] = value;
  }
  return limits;
}

/**
 * The request as the worker would read it, or a usage error naming what it would reject and why.
 * @throws OperatorError `usage`.
 */
export function validateLocally(body: SendableBody, now: number, env: OperatorEnv): ChangeRequest;
/** A drain test's drill action (issue 23), which names a fabric: the request as the worker would read it. */
export function validateLocally(body: FabricDrillBody, now: number, env: OperatorEnv): FabricDrillChangeRequest;
export function validateLocally(body: SendableBody | FabricDrillBody, now: number, env: OperatorEnv): ChangeRequest | FabricDrillChangeRequest {
  if ('fabric' in body) {
    // Through the one encoder's parse (a fabric's requests are no ChangeRequest).
    const request = readAsWorker(body, now, env);
    if (!('drill' in request) || !('fabric' in request)) throw new Error(`the schema read action ${request.action} from a ${body.action} body`);
    return request as FabricDrillChangeRequest;
  }
  const parsed = parseChangeRequest(body, { ...limitsFromEnv(env), now });
  if (parsed.ok) return parsed.request;
  throw inputError(`the worker would reject this request (${parsed.rejection.reason}): ${parsed.rejection.message}; nothing was sent`);
}

/** One line for a rejection found before sending (or by `--dry-run`). */
export function formatLocalRejection(body: SendableBody, rejection: Rejection): string {
  return `request ${body.requestId}: REJECTED (${body.action} ${body.cluster}): ${rejection.reason} — ${rejection.message}`;
}

/**
 * {@link validateLocally} for the fabric evacuation actions (issue 23), which name a fabric, not a
 * cluster: the request as the worker would read it (through the one encoder's parse), or a usage error
 * naming what it would reject and why.
 * @throws OperatorError `input`.
 */
export function validateEvacuation(body: EvacuateBody, now: number, env: OperatorEnv): EvacuateChangeRequest;
export function validateEvacuation(body: RestoreFabricBody, now: number, env: OperatorEnv): RestoreFabricChangeRequest;
export function validateEvacuation(body: EvacuateBody | RestoreFabricBody, now: number, env: OperatorEnv): EvacuateChangeRequest | RestoreFabricChangeRequest {
  return readAsWorker(body, now, env) as EvacuateChangeRequest | RestoreFabricChangeRequest;
}

/**
 * {@link validateLocally} for a fabric map change (`failout fabric put|delete`, issue 23): the request
 * as the worker would read it (through the one encoder's parse: the map's names, tiers, duplicates and
 * size by the worker's rules), or a usage error naming what it would reject and why.
 * @throws OperatorError `input`.
 */
export function validateFabricChange(body: PutFabricBody | DeleteFabricBody, now: number, env: OperatorEnv): FabricChangeRequest {
  return readAsWorker(body, now, env) as FabricChangeRequest;
}

/** A normalised fabric map change, as the worker's check (`judgeFabricChange`) takes it. */
type FabricChangeRequest = Parameters<typeof judgeFabricChange>[1];

/**
 * A body that names a fabric as the worker's one encoder reads it (no queue is needed to parse: the
 * message it makes is dropped, sendChangeRequest encodes again), of the body's own action.
 * @throws OperatorError `input` naming what the worker would reject.
 */
function readAsWorker(body: EvacuateBody | RestoreFabricBody | PutFabricBody | DeleteFabricBody | FabricDrillBody, now: number, env: OperatorEnv): Extract<ReturnType<typeof encodeChangeRequest>, { readonly ok: true }>['request'] {
  const encoded = encodeChangeRequest('', body, { ...limitsFromEnv(env), now });
  if (!encoded.ok) throw inputError(`the worker would reject this request (${encoded.rejection.reason}): ${encoded.rejection.message}; nothing was sent`);
  if (encoded.request.action !== body.action) throw new Error(`the schema read action ${encoded.request.action} from a ${body.action} body`);
  return encoded.request;
}

/** One line for an evacuation's rejection found before sending (or by `--dry-run`). */
export function formatFabricRejection(body: { readonly requestId: string; readonly action: string; readonly fabric: string }, rejection: Pick<Rejection, 'message'> & { readonly reason: string }): string {
  return `request ${body.requestId}: REJECTED (${body.action} fabric ${body.fabric}): ${rejection.reason} — ${rejection.message}`;
}
