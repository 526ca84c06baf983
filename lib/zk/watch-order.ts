import type { ChildrenState, DataState } from './types';

// Which state a persistent watch may deliver after another: one rule for the session's watches and
// for the in-memory fake the unit tests use, so the fake cannot drift from what the session does.

/** A data read older than the last delivered one (an earlier incarnation, or an earlier version): dropped. */
export function isOlderData(next: DataState, prev: DataState): boolean {
  if (!next.exists || !prev.exists) return false;
  return next.stat.czxid < prev.stat.czxid || (next.stat.czxid === prev.stat.czxid && next.stat.mzxid < prev.stat.mzxid);
}

/** A data read showing the state already delivered: not delivered again. */
export function isSameData(next: DataState, prev: DataState): boolean {
  if (!next.exists || !prev.exists) return next.exists === prev.exists;
  return next.stat.czxid === prev.stat.czxid && next.stat.mzxid === prev.stat.mzxid;
}

/** A children read older than the last delivered one (by the parent's incarnation and pzxid): dropped. */
export function isOlderChildren(next: ChildrenState, prev: ChildrenState): boolean {
  if (!next.exists || !prev.exists) return false;
  return next.stat.czxid < prev.stat.czxid || (next.stat.czxid === prev.stat.czxid && next.stat.pzxid < prev.stat.pzxid);
}

/** A children read showing the list already delivered: not delivered again. */
export function isSameChildren(next: ChildrenState, prev: ChildrenState): boolean {
  if (!next.exists || !prev.exists) return next.exists === prev.exists;
  return (
    next.stat.czxid === prev.stat.czxid &&
    next.stat.pzxid === prev.stat.pzxid &&
    next.children.length === prev.children.length &&
    next.children.every((c, i) => c === prev.children[i])
  );
}
