import { inputError } from './errors';

/** A `putFabric` body as the CLI sends it (issue 23): the whole map of one fabric. */
export interface PutFabricBody {
  version: 1;
  requestId: string;
  action: 'putFabric';
  fabric: string;
  clusters: { cluster: string; service: string; tier?: string }[];
  requestedBy: string;
  reason?: string;
}

/** A `deleteFabric` body. */
export interface DeleteFabricBody {
  version: 1;
  requestId: string;
  action: 'deleteFabric';
  fabric: string;
  requestedBy: string;
  reason?: string;
}

/**
 * The body of `failout fabric put <fabric> --cluster <cluster>=<service>[:<tier>]…`. Only the shape of
 * the flags is checked here; the names, duplicates and limits are the worker's rules, checked before
 * sending by the one encoder (`sendChangeRequest`), so the CLI and the worker give the same reasons.
 * @throws OperatorError `usage` naming the flag.
 */
export function buildPutFabricBody(fabric: string, options: { cluster?: string[]; reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): PutFabricBody {
  const specs = options.cluster ?? [];
  if (specs.length === 0) throw inputError('name at least one cluster of the map: --cluster <cluster>=<service>[:<tier>] (example: --cluster legacy-frontend-a=frontend:web)', 'cluster');
  const clusters = specs.map((spec) => {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1) throw inputError(`--cluster ${JSON.stringify(spec)}: expected <cluster>=<service>[:<tier>]`, 'cluster');
    const cluster = spec.slice(0, eq);
    const rest = spec.slice(eq + 1);
    const colon = rest.lastIndexOf(':');
    if (colon < 0) return { cluster, service: rest };
    if (colon === 0 || colon === rest.length - 1) throw inputError(`--cluster ${JSON.stringify(spec)}: expected <cluster>=<service>[:<tier>]`, 'cluster');
    return { cluster, service: rest.slice(0, colon), tier: rest.slice(colon + 1) };
  });
  const body: PutFabricBody = { version: 1, requestId: context.requestId, action: 'putFabric', fabric, clusters, requestedBy: options.by ?? context.requestedBy };
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}

/** The body of `failout fabric delete <fabric>`. */
export function buildDeleteFabricBody(fabric: string, options: { reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): DeleteFabricBody {
  const body: DeleteFabricBody = { version: 1, requestId: context.requestId, action: 'deleteFabric', fabric, requestedBy: options.by ?? context.requestedBy };
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}
