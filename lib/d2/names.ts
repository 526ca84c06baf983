/**
 * The names of D2 clusters, two rules (issue 14):
 *
 * - {@link znodeNameProblem}: what ZooKeeper can hold as one path component at all
 *   (`PathUtils.validatePath`: not empty, not `.` or `..`, no `/`, no NUL, none of the control and
 *   private-use ranges it refuses). A name outside it cannot be a cluster: paths refuse it, and so
 *   does the failout codec's reader for a peer (the document is malformed; readers keep the last good).
 * - {@link clusterNameProblem}: THE cluster-name grammar, what a change request may name (its
 *   cluster, its peers, its request id) and what the CLI accepts. The request travels as an SQS FIFO
 *   message whose MessageGroupId is the cluster and whose MessageDeduplicationId is the request id;
 *   both allow at most 128 characters of ASCII letters, digits and the punctuation
 *   ``!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~``. Intersected with a znode name that is printable ASCII
 *   without `/`, not `.` or `..`, 1 to 128 characters. No mapping is needed: the name is the group id.
 *
 * A D2 tree that rest.li tooling wrote may hold cluster names outside the grammar (a space, non-ASCII,
 * longer than 128): discovery reads them as before, but no request can fail them out or name them
 * as peers.
 */

/** Longest cluster name (and request id) a change request may carry: SQS's MessageGroupId limit. */
export const MAX_CLUSTER_NAME_LENGTH = 128;

// SQS's set (ASCII 0x21–0x7E) without the slash, which would reach into another znode's subtree.
const GRAMMAR = /^[!-.0-~]+$/;

// ZooKeeper's PathUtils.validatePath refuses these in any path component.
// eslint-disable-next-line no-control-regex
const ZNODE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\ud800-\uf8ff\ufff0-\uffff/]/;

/**
 * Why `name` cannot be a znode name (one path component), phrased to follow the name, or undefined
 * when ZooKeeper can hold it.
 */
export function znodeNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name === '.' || name === '..') return 'is not a valid znode name';
  if (ZNODE_FORBIDDEN.test(name)) return 'has a slash or a character ZooKeeper refuses in a znode name';
  return undefined;
}

/**
 * Why `name` breaks the cluster-name grammar (see the module doc), phrased to follow the name, or
 * undefined when a change request may carry it as a cluster, a peer or a request id.
 */
export function clusterNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name.length > MAX_CLUSTER_NAME_LENGTH) return `is longer than ${MAX_CLUSTER_NAME_LENGTH} characters`;
  if (name === '.' || name === '..') return 'is not a valid znode name';
  if (!GRAMMAR.test(name)) return 'has characters other than ASCII letters, digits and punctuation (SQS MessageGroupId) or has a slash';
  return undefined;
}

/** True when `name` follows the cluster-name grammar. */
export function isClusterName(name: string): boolean {
  return clusterNameProblem(name) === undefined;
}
