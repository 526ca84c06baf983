import { clusterNameProblem, MAX_CLUSTER_NAME_LENGTH } from '../d2/data';
import type { Problem } from './rejection';

/**
 * Longest cluster name or request id accepted: 128, SQS's limit for a MessageGroupId (the cluster)
 * and a MessageDeduplicationId (the request id). See lib/d2's cluster-name grammar.
 */
export const MAX_NAME_LENGTH = MAX_CLUSTER_NAME_LENGTH;

/**
 * The problem with `name` as a cluster name, peer or request id, or undefined when it is fine. Every
 * one is the cluster-name grammar of lib/d2 (issue 14): printable ASCII without `/`, not `.` or `..`,
 * 1 to 128 characters. The name becomes one znode name (`/d2/clusters/<name>`,
 * `/failout/requests/<id>`) and travels as the SQS MessageGroupId or MessageDeduplicationId, so it
 * must be valid as both.
 */
export function nameProblem(name: string, field: string): Problem | undefined {
  const why = clusterNameProblem(name);
  return why === undefined ? undefined : { reason: 'badName', message: `${field}: ${quote(name)} ${why}` };
}

/** The name as JSON, its first 64 characters when longer: a 16 KB name need not be repeated in full. */
function quote(name: string): string {
  return name.length > 64 ? `${JSON.stringify(name.slice(0, 64))}…` : JSON.stringify(name);
}

/** True when `name` is a valid cluster name (and, unless it starts with a dot, request id). */
export function isValidName(name: string): boolean {
  return clusterNameProblem(name) === undefined;
}

/**
 * The problem with `id` as a request id, or undefined when it is fine: the name grammar, and no
 * leading dot. Names with one are reserved for the records directory's own nodes (the prune mark,
 * `.prune-mark`), so no record can ever collide with them.
 */
export function requestIdProblem(id: string, field: string): Problem | undefined {
  const problem = nameProblem(id, field);
  if (problem !== undefined || !id.startsWith('.')) return problem;
  return { reason: 'badName', message: `${field}: ${quote(id)} starts with a dot, which is reserved` };
}

/** True when `id` is a valid request id (the name of a request record). */
export function isValidRequestId(id: string): boolean {
  return requestIdProblem(id, 'requestId') === undefined;
}
