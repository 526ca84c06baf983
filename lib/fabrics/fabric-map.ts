import { z } from 'zod';
import { FabricError, type FabricErrorKind } from './errors';
import type { FabricMap, FabricMapEntry } from './model';
import { fabricNameProblem, tierProblem } from './names';

/**
 * The explicit map of one fabric: ONE node `/failout/fabrics/<fabric>` (the parent is configurable:
 * `FAILOUT_FABRICS_PATH`) holding, as compact JSON,
 *
 * ```json
 * {"version": 1, "fabric": "lor1", "clusters": [
 *   {"cluster": "legacy-frontend-a", "service": "frontend", "tier": "frontend"},
 *   {"cluster": "payments-east-7", "service": "payments"}
 * ]}
 * ```
 *
 * for clusters whose names do not follow the rule `<service>-<fabric>` (derive.ts). The map wins over
 * the rule for the clusters it names. `fabric` must equal the node's name; a cluster appears at most
 * once; names follow `names.ts`; unknown keys are ignored. Bounded, as every node failout keeps: at
 * most {@link MAX_FABRIC_MAP_BYTES} and {@link MAX_FABRIC_MAP_CLUSTERS} entries, checked before the
 * text is parsed, so a hostile node costs a reader no more than that. One codec for the reader (the
 * operator's `readFabrics`) and the writer (the request worker, when maps are written through the
 * queue), so the two cannot drift.
 */

/** Default parent of the fabric maps. */
export const DEFAULT_FABRICS_PATH = '/failout/fabrics';

/** Largest fabric map node, in bytes (ZooKeeper itself refuses nodes over its 1 MB `jute.maxbuffer`). */
export const MAX_FABRIC_MAP_BYTES = 256 * 1024;

/** Most clusters one fabric map may place. */
export const MAX_FABRIC_MAP_CLUSTERS = 2000;

/** Problems quoted in one error message; the rest are counted. */
const PROBLEMS_SHOWN = 5;
/** Longest name quoted in a message (a hostile name may be 256 KiB long). */
const QUOTED_CHARS = 80;

const entrySchema = z.object({ cluster: z.string(), service: z.string(), tier: z.string().optional() });
const nodeSchema = z.object({ version: z.literal(1), fabric: z.string(), clusters: z.array(entrySchema) });

/** `<base>/<fabric>`. @throws FabricError `badName` for a name outside the fabric-name grammar. */
export function fabricMapPath(base: string = DEFAULT_FABRICS_PATH, fabric: string): string {
  const problem = fabricNameProblem(fabric);
  if (problem !== undefined) throw new FabricError('badName', `fabric name ${quote(fabric)} ${problem}`);
  return `${base.replace(/\/+$/, '')}/${fabric}`;
}

/**
 * Reads the node `<base>/<fabric>`.
 * @throws FabricError `badName` (the node's name or a name inside), `tooLarge` or `malformed`,
 * naming the first problems.
 */
export function decodeFabricMap(fabric: string, data: Buffer | string): FabricMap {
  const nameProblem = fabricNameProblem(fabric);
  if (nameProblem !== undefined) throw new FabricError('badName', `fabric map node ${quote(fabric)} is not a fabric name: it ${nameProblem}`);
  const bytes = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.length;
  if (bytes > MAX_FABRIC_MAP_BYTES) throw new FabricError('tooLarge', `fabric map ${fabric} has ${bytes} bytes, more than ${MAX_FABRIC_MAP_BYTES}`);
  let json: unknown;
  try {
    json = JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch (err) {
    throw new FabricError('malformed', `fabric map ${fabric} is not JSON`, { cause: err });
  }
  const parsed = nodeSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(node)'}: ${i.message}`);
    throw new FabricError('malformed', `fabric map ${fabric} is malformed: ${listed(issues)}`);
  }
  if (parsed.data.fabric !== fabric) throw new FabricError('malformed', `fabric map ${fabric} names fabric ${quote(parsed.data.fabric)}: a map's fabric is its node's name`);
  const map: FabricMap = { fabric, clusters: parsed.data.clusters.map(entry) };
  check(map);
  return map;
}

/**
 * The node's bytes for `map` (compact JSON, version 1).
 * @throws FabricError as {@link decodeFabricMap} would for the same document.
 */
export function encodeFabricMap(map: FabricMap): Buffer {
  check(map);
  const data = Buffer.from(JSON.stringify({ version: 1, fabric: map.fabric, clusters: map.clusters.map(entry) }), 'utf8');
  if (data.length > MAX_FABRIC_MAP_BYTES) throw new FabricError('tooLarge', `fabric map ${map.fabric} would have ${data.length} bytes, more than ${MAX_FABRIC_MAP_BYTES}`);
  return data;
}

/** An entry with only the keys of the format, `tier` left out when absent. */
function entry(e: FabricMapEntry): FabricMapEntry {
  return e.tier === undefined ? { cluster: e.cluster, service: e.service } : { cluster: e.cluster, service: e.service, tier: e.tier };
}

/** @throws FabricError for the first kind of problem `map` has (size, then names, then duplicates). */
function check(map: FabricMap): void {
  const fabricProblem = fabricNameProblem(map.fabric);
  if (fabricProblem !== undefined) throw new FabricError('badName', `fabric name ${quote(map.fabric)} ${fabricProblem}`);
  if (map.clusters.length > MAX_FABRIC_MAP_CLUSTERS) {
    throw new FabricError('tooLarge', `fabric map ${map.fabric} names ${map.clusters.length} clusters, more than ${MAX_FABRIC_MAP_CLUSTERS}`);
  }
  const problems: Record<Exclude<FabricErrorKind, 'tooLarge'>, string[]> = { badName: [], malformed: [] };
  const seen = new Set<string>();
  map.clusters.forEach((e, i) => {
    for (const [field, value, problem] of [
      ['cluster', e.cluster, fabricNameProblem(e.cluster)],
      ['service', e.service, fabricNameProblem(e.service)],
      ['tier', e.tier, e.tier === undefined ? undefined : tierProblem(e.tier)],
    ] as const) {
      if (problem !== undefined) problems.badName.push(`clusters[${i}].${field} ${quote(value ?? '')} ${problem}`);
    }
    if (seen.has(e.cluster)) problems.malformed.push(`clusters[${i}]: cluster ${quote(e.cluster)} is named twice`);
    seen.add(e.cluster);
  });
  if (problems.badName.length > 0) throw new FabricError('badName', `fabric map ${map.fabric} has bad names: ${listed(problems.badName)}`);
  if (problems.malformed.length > 0) throw new FabricError('malformed', `fabric map ${map.fabric} is malformed: ${listed(problems.malformed)}`);
}

/** The first problems joined by `; `, then how many more. */
function listed(problems: readonly string[]): string {
  const shown = problems.slice(0, PROBLEMS_SHOWN).join('; ');
  return problems.length > PROBLEMS_SHOWN ? `${shown}; and ${problems.length - PROBLEMS_SHOWN} more` : shown;
}

/** A name as a JSON string, cut to {@link QUOTED_CHARS} characters. */
function quote(name: string): string {
  return JSON.stringify(name.length > QUOTED_CHARS ? `${name.slice(0, QUOTED_CHARS)}…` : name);
}
