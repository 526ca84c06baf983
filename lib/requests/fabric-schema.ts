import { z } from 'zod';
import { fabricNameProblem, MAX_FABRIC_MAP_CLUSTERS, tierProblem, type FabricMap, type FabricMapEntry } from '../fabrics';
import { requestIdProblem } from './names';
import { rejectionOf, type Problem } from './rejection';
import { commonFields, type ParseOutcome } from './request-fields';

/**
 * Fabric map actions (issue 23, "Fabrics"): the explicit map of a fabric, `/failout/fabrics/<fabric>`
 * (lib/fabrics `fabric-map.ts`, one codec), changes only through the request queue, like every other
 * change: `putFabric` (write or rewrite the whole map) and `deleteFabric`. These requests name no
 * cluster: their FIFO group is {@link FABRIC_MESSAGE_GROUP} (request-message.ts `messageGroupOf`),
 * one group for every fabric map, so map changes apply in the order they were sent (a map's clusters
 * are checked against every other map's, so they are one sequence, not one per fabric).
 */

/** The fabric actions. */
export const FABRIC_ACTIONS = ['putFabric', 'deleteFabric'] as const;

/**
 * The FIFO group of every fabric request. It holds a `/`, which no cluster name may (lib/d2's name
 * grammar), so it never shares a group with a cluster's requests, and it fits SQS's 128 characters
 * whatever the fabric's name.
 */
export const FABRIC_MESSAGE_GROUP = 'failout/fabrics';

/** The fields of a fabric request: a change request's, without `cluster` and `force` (no cluster is judged). */
const { cluster: _cluster, force: _force, ...fabricFields } = commonFields;

/** One entry of a `putFabric` map, as sent. */
const entrySchema = z.strictObject({
  /** The D2 cluster the map places in the fabric; a fabric name (lib/fabrics `names.ts`), once per map. */
  cluster: z.string(),
  /** The service it serves; a fabric name. */
  service: z.string(),
  /** Its tier (`frontend`, `storage`): letters, digits, `.`, `_`, `-`, at most 64 characters. */
  tier: z.string().optional(),
});

/** `action: putFabric`: writes (or rewrites) the whole map of a fabric. */
export const putFabricRequestSchema = z.strictObject({
  ...fabricFields,
  /** Writes the fabric's map. */
  action: z.literal('putFabric'),
  /** The fabric: it names `/failout/fabrics/<fabric>`. */
  fabric: z.string(),
  /** The clusters the map places in the fabric: at least one, at most `MAX_FABRIC_MAP_CLUSTERS`. */
  clusters: z.array(entrySchema).min(1),
});

/** `action: deleteFabric`: removes the fabric's map (absent: applied, nothing written). */
export const deleteFabricRequestSchema = z.strictObject({
  ...fabricFields,
  /** Removes the fabric's map. */
  action: z.literal('deleteFabric'),
  /** The fabric. */
  fabric: z.string(),
});

/** Fields of every normalised fabric request. */
interface FabricRequestBase {
  readonly version: 1;
  readonly requestId: string;
  readonly fabric: string;
  readonly requestedBy?: string;
  readonly reason?: string;
}

/** A normalised `putFabric`: the map to write. */
export interface PutFabricChangeRequest extends FabricRequestBase {
  readonly action: 'putFabric';
  readonly map: FabricMap;
}

/** A normalised `deleteFabric`. */
export interface DeleteFabricChangeRequest extends FabricRequestBase {
  readonly action: 'deleteFabric';
}

/** A normalised fabric action. */
export type FabricChangeRequest = PutFabricChangeRequest | DeleteFabricChangeRequest;

/** A fabric action as the wire schema read it. */
export type FabricInput = z.output<typeof putFabricRequestSchema> | z.output<typeof deleteFabricRequestSchema>;

/** True for the fabric actions' inputs (and normalised requests). */
export function isFabricInput(input: { readonly action: string }): input is FabricInput {
  return (FABRIC_ACTIONS as readonly string[]).includes(input.action);
}

/** True for a normalised fabric request. */
export function isFabricRequest(request: { readonly action: string }): request is FabricChangeRequest {
  return (FABRIC_ACTIONS as readonly string[]).includes(request.action);
}

/** Longest name quoted in a problem (a hostile name may fill the body). */
const QUOTED = 80;

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text);
}

/**
 * Checks and normalises a fabric action that passed the wire schema, naming every problem: the
 * request id (`badName`), the fabric, cluster and service names and tiers (`badName`, lib/fabrics'
 * rules, as the map's codec reads them), a cluster named twice or more clusters than a map may hold
 * (`badFabric`).
 */
export function parseFabricRequest(input: FabricInput): ParseOutcome<FabricChangeRequest> {
  const problems: Problem[] = [];
  const idProblem = requestIdProblem(input.requestId, 'requestId');
  if (idProblem) problems.push(idProblem);
  const fabricProblem = fabricNameProblem(input.fabric);
  if (fabricProblem !== undefined) problems.push({ reason: 'badName', message: `fabric: ${quote(input.fabric)} ${fabricProblem}` });
  if (input.action === 'putFabric') problems.push(...mapProblems(input.clusters));
  if (problems.length > 0) return { ok: false, rejection: rejectionOf(problems, idProblem === undefined ? input.requestId : undefined) };
  const base: FabricRequestBase = {
    version: 1,
    requestId: input.requestId,
    fabric: input.fabric,
    ...(input.requestedBy === undefined ? {} : { requestedBy: input.requestedBy }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
  };
  if (input.action === 'deleteFabric') return { ok: true, request: { ...base, action: 'deleteFabric' } };
  const clusters: FabricMapEntry[] = input.clusters.map((e) => (e.tier === undefined ? { cluster: e.cluster, service: e.service } : { cluster: e.cluster, service: e.service, tier: e.tier }));
  return { ok: true, request: { ...base, action: 'putFabric', map: { fabric: input.fabric, clusters } } };
}

function mapProblems(clusters: readonly z.output<typeof entrySchema>[]): Problem[] {
  const problems: Problem[] = [];
  if (clusters.length > MAX_FABRIC_MAP_CLUSTERS) problems.push({ reason: 'badFabric', message: `clusters: ${clusters.length} given; a fabric map holds at most ${MAX_FABRIC_MAP_CLUSTERS}` });
  const seen = new Set<string>();
  clusters.forEach((e, i) => {
    for (const [field, value, problem] of [
      ['cluster', e.cluster, fabricNameProblem(e.cluster)],
      ['service', e.service, fabricNameProblem(e.service)],
      ['tier', e.tier, e.tier === undefined ? undefined : tierProblem(e.tier)],
    ] as const) {
      if (problem !== undefined) problems.push({ reason: 'badName', message: `clusters[${i}].${field}: ${quote(value ?? '')} ${problem}` });
    }
    if (seen.has(e.cluster)) problems.push({ reason: 'badFabric', message: `clusters[${i}].cluster: ${quote(e.cluster)} is named twice` });
    seen.add(e.cluster);
  });
  return problems;
}
