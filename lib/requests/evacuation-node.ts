import { z } from 'zod';
import { isZkError, type ZkReader } from '../zk';
import { NO_READ_PERMISSION } from '../text';
import { RequestError } from './errors';
import { FORCE_OVERRIDES } from './request-record';

/**
 * The evacuation node (issue 23), `/failout/evacuations/<fabric>`: one per fabric, the last evacuation
 * of it and how far it got. The worker writes it in the same multi as the clusters (or, for a plan too
 * large for one multi, first and then with every step), so it is the truth of "is an evacuation open",
 * the plan `failout status` and the console show, and the progress a worker continues after a crash.
 * The cluster nodes stay the truth of where traffic goes.
 */

/** Default parent of the evacuation nodes. */
export const DEFAULT_EVACUATIONS_PATH = '/failout/evacuations';

/** `<parent>/<fabric>`. */
export function evacuationPath(parent: string, fabric: string): string {
  return `${parent.replace(/\/+$/, '')}/${fabric}`;
}

const peerSchema = z.object({ cluster: z.string(), weight: z.number().int().positive() });

const planSchema = z.object({
  fabric: z.string(),
  requestId: z.string(),
  offlineAt: z.number(),
  onlineAt: z.number(),
  targets: z.union([z.literal('capacity'), z.array(z.object({ fabric: z.string(), weight: z.number().int() }))]),
  stages: z.array(
    z.object({
      index: z.number().int(),
      name: z.string(),
      clusters: z.array(z.string()),
      offlineAt: z.number(),
      fullyOutAt: z.number(),
      onlineAt: z.number(),
      gateAlarms: z.array(z.string()),
    }),
  ),
  clusters: z.array(
    z.object({
      cluster: z.string(),
      service: z.string(),
      stage: z.number().int(),
      peers: z.array(peerSchema),
      hosts: z.number(),
      replaces: z.string().optional(),
    }),
  ),
  receivers: z.array(z.object({ cluster: z.string(), service: z.string(), fabric: z.string(), hosts: z.number(), factorBefore: z.number(), factorAfter: z.number() })),
  excluded: z.array(z.string()),
  stopAlarms: z.array(z.string()),
  maxPeerLoadFactor: z.number(),
  drill: z.string().optional(),
});

/** One evacuation as judged: what moves where, when, and the load it puts on every receiving cluster. */
export type EvacuationPlan = z.output<typeof planSchema>;
/** One stage of a plan: its clusters start together; stage k+1 starts after stage k is fully out and held. */
export type EvacuationStage = EvacuationPlan['stages'][number];
/** One evacuated cluster: its service, stage and peers (the same service in the target fabrics). */
export type EvacuatedCluster = EvacuationPlan['clusters'][number];
/** One receiving cluster: its projected load per host (1.0 = its own load) before and after, at the worst instant. */
export type EvacuationReceiver = EvacuationPlan['receivers'][number];

const nodeSchema = z.object({
  version: z.literal(1),
  fabric: z.string(),
  requestId: z.string(),
  /** `applying`: a plan too large for one multi, being written; `applied`: every cluster written; `restored`: ended by `restoreFabric`; `stopped`: ended by an alarm. */
  status: z.enum(['applying', 'applied', 'restored', 'stopped']),
  mode: z.enum(['multi', 'plan']),
  createdAt: z.number(),
  requestedBy: z.string().optional(),
  reason: z.string().optional(),
  /** A forced evacuation's overrides (its record's `forced`), so that a plan continued after a crash stamps its windows and record with them too. */
  forced: z.array(z.enum(FORCE_OVERRIDES)).optional(),
  plan: planSchema,
  /** Clusters written so far (all of them once `applied`). */
  written: z.number().int(),
  endedAt: z.number().optional(),
  endedBy: z.string().optional(),
  /** The restore's request id. */
  endedByRequest: z.string().optional(),
  stoppedByAlarm: z.string().optional(),
});

/** The evacuation node's content. */
export type EvacuationNode = z.output<typeof nodeSchema>;

/** The node as stored: compact JSON. */
export function encodeEvacuationNode(node: EvacuationNode): Buffer {
  return Buffer.from(JSON.stringify(node), 'utf8');
}

/** Reads a stored node. @throws RequestError `corruptRecord` naming the problem. */
export function decodeEvacuationNode(data: Buffer | string): EvacuationNode {
  let json: unknown;
  try {
    json = JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch (e) {
    throw new RequestError('corruptRecord', 'evacuation node is not JSON', { cause: e });
  }
  const parsed = nodeSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(node)'}: ${i.message}`).join('; ');
    throw new RequestError('corruptRecord', `evacuation node is malformed: ${problems.slice(0, 500)}`);
  }
  return parsed.data;
}

/** How far apart a plan's stages come back: its stages' windows end that far apart, the last stage first. */
export function restoreGapOf(plan: EvacuationPlan): number {
  const [a, b] = plan.stages;
  return a !== undefined && b !== undefined ? Math.max(0, a.onlineAt - b.onlineAt) : 0;
}

/**
 * When a restore at `restoredAt` brings stage `stage` of `plan` home: the last stage at once, each
 * earlier stage a restore gap later (the reverse of the way out). The restore writes these times, and
 * `failout status` reads them back, so one rule serves both.
 */
export function stageBackAt(plan: EvacuationPlan, stage: number, restoredAt: number): number {
  return restoredAt + (plan.stages.length - 1 - stage) * restoreGapOf(plan);
}

/** True while the evacuation moves traffic: written (or being written) and some stage has not returned. */
export function isEvacuationOpen(node: EvacuationNode, now: number): boolean {
  return (node.status === 'applying' || node.status === 'applied') && node.plan.stages.some((s) => s.onlineAt > now);
}

/**
 * True while a `restoreFabric` with id `requestId` has `node` to end: the evacuation is open, or that
 * very request ended it already (a restore written in steps, continued after a crash or redelivery).
 */
export function isEndingFor(node: EvacuationNode | undefined, now: number, requestId?: string): node is EvacuationNode {
  if (node === undefined) return false;
  const endedHere = requestId !== undefined && (node.status === 'restored' || node.status === 'stopped') && node.endedByRequest === requestId;
  return isEvacuationOpen(node, now) || endedHere;
}

/**
 * The drain test an operator's `restoreFabric` of `fabric` ends when `fabric` has no evacuation of its
 * own to end (docs "Drain tests": an operator's action on fabrics always takes precedence, so an
 * operator's restore of ANY fabric ends a running drain test): the first drain test's evacuation on
 * another fabric that is open, or that this request (`requestId`) ended already. One rule for the
 * worker's restore (evacuation-writes.ts) and the console's Check of it, so the two cannot drift.
 */
export function drainTestEndedByRestore(evacuations: readonly StoredEvacuation[], fabric: string, now: number, requestId?: string): (StoredEvacuation & { readonly node: EvacuationNode }) | undefined {
  for (const stored of evacuations) {
    const { node } = stored;
    if (stored.fabric !== fabric && node?.plan.drill !== undefined && isEndingFor(node, now, requestId)) return { ...stored, node };
  }
  return undefined;
}

/** An evacuation node as read, with its version (for the compare-and-set). */
export interface StoredEvacuation {
  readonly fabric: string;
  readonly path: string;
  readonly version: number;
  /** Undefined when it does not decode (`problem` says why). */
  readonly node: EvacuationNode | undefined;
  readonly problem?: string;
}

/**
 * Every evacuation node under `parent`, sorted by fabric; a node that does not decode, or that this
 * session may not read (noAuth), is listed with its problem (an evacuation the worker cannot read is
 * treated as open: it may still move traffic).
 */
export async function readStoredEvacuations(session: Pick<ZkReader, 'children' | 'read'> & Partial<Pick<ZkReader, 'exists'>>, parent: string = DEFAULT_EVACUATIONS_PATH): Promise<StoredEvacuation[]> {
  let names: string[];
  try {
    names = (await session.children(parent)).children;
  } catch (e) {
    if (isZkError(e, 'noNode')) return [];
    throw e;
  }
  const read = await Promise.all([...names].sort().map((fabric) => readStoredEvacuation(session, parent, fabric)));
  return read.filter((e): e is StoredEvacuation => e !== undefined);
}

/**
 * The evacuation node of `fabric` as read (undefined when there is none): decoded, or with the problem
 * that keeps it from being read. A node this session may not read (noAuth) is one that does not decode
 * (treated as open; a restore of the fabric removes it), not an error failing every request of the
 * fabric group until the DLQ; its version needs no READ permission (a reader that cannot ask for it
 * never writes: -1).
 */
export async function readStoredEvacuation(session: Pick<ZkReader, 'read'> & Partial<Pick<ZkReader, 'exists'>>, parent: string, fabric: string): Promise<StoredEvacuation | undefined> {
  const path = evacuationPath(parent, fabric);
  const node = await readOrNoAuth(session, path);
  if (node === 'noAuth') {
    const version = session.exists === undefined ? -1 : (await session.exists(path))?.version;
    return version === undefined ? undefined : { fabric, path, version, node: undefined, problem: NO_READ_PERMISSION };
  }
  if (!node.exists) return undefined;
  try {
    return { fabric, path, version: node.stat.version, node: decodeEvacuationNode(node.data) };
  } catch (e) {
    return { fabric, path, version: node.stat.version, node: undefined, problem: e instanceof Error ? e.message : String(e) };
  }
}

/** A node as read, or `noAuth` when this session may not read it; other errors are thrown. */
async function readOrNoAuth(session: Pick<ZkReader, 'read'>, path: string): Promise<Awaited<ReturnType<ZkReader['read']>> | 'noAuth'> {
  try {
    return await session.read(path);
  } catch (e) {
    if (isZkError(e, 'noAuth')) return 'noAuth';
    throw e;
  }
}

/** Every evacuation node that decodes, sorted by fabric (status, the console). */
export async function readEvacuations(session: Pick<ZkReader, 'children' | 'read'>, parent: string = DEFAULT_EVACUATIONS_PATH): Promise<EvacuationNode[]> {
  return (await readStoredEvacuations(session, parent)).flatMap((e) => (e.node === undefined ? [] : [e.node]));
}
