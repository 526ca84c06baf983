import type { Problem } from './rejection';

/** Longest cluster name or request id accepted: comfortably above real D2 names, far below ZooKeeper's path limits. */
export const MAX_NAME_LENGTH = 200;

// Control characters, whitespace and the characters ZooKeeper refuses in path components.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\ud800-\uf8ff\ufff0-\uffff/]/;

/**
 * The problem with `name` as a D2 cluster name or request id, or undefined when it is fine. Such a
 * name becomes one znode name (`/d2/clusters/<name>`, `/failout/requests/<id>`): a slash would reach
 * into another subtree, `.` and `..` are refused by ZooKeeper, and whitespace or control characters are
 * always a typo.
 */
export function nameProblem(name: string, field: string): Problem | undefined {
  const fail = (why: string): Problem => ({ reason: 'badName', message: `${field}: ${JSON.stringify(name)} ${why}` });
  if (name.length === 0) return fail('is empty');
  if (name.length > MAX_NAME_LENGTH) return fail(`is longer than ${MAX_NAME_LENGTH} characters`);
  if (name === '.' || name === '..') return fail('is not a valid znode name');
  if (FORBIDDEN.test(name)) return fail('contains a slash, whitespace or a control character');
  return undefined;
}

/** True when `name` is a valid cluster name or request id. */
export function isValidName(name: string): boolean {
  return nameProblem(name, 'name') === undefined;
}
