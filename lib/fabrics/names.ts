import { clusterNameProblem } from '../d2/data';

/**
 * The names a fabric map may hold. Fabric, cluster and service names follow lib/d2's cluster-name
 * grammar (`clusterNameProblem`: printable ASCII without `/`, not `.` or `..`, 1 to 128 characters):
 * a fabric name becomes a znode name (`/failout/fabrics/<fabric>`) and, like a cluster, will travel
 * in change requests (`failout evacuate <fabric>`). Tiers are narrower: they will be listed
 * comma-separated on a command line (`--stages frontend,midtier`), so letters, digits, `.`, `_` and
 * `-`, starting with a letter or digit, at most 64 characters.
 */

/** Longest tier name. */
export const MAX_TIER_LENGTH = 64;

const TIER = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Why `name` cannot be a fabric name (phrased to follow the name), or undefined when it can. */
export function fabricNameProblem(name: string): string | undefined {
  return clusterNameProblem(name);
}

/** Why `tier` cannot be a tier name (phrased to follow the name), or undefined when it can. */
export function tierProblem(tier: string): string | undefined {
  if (tier === '') return 'is empty';
  if (tier.length > MAX_TIER_LENGTH) return `is longer than ${MAX_TIER_LENGTH} characters`;
  if (!TIER.test(tier)) return 'has characters other than ASCII letters, digits, ".", "_" and "-", or does not start with a letter or digit';
  return undefined;
}
