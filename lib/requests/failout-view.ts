import { clusterPath, isMalformed, parseClusterProperties, parseFailoutProperties, serializeFailoutProperties, type FailoutProperties } from '../d2/data';
import { isZkError, siblingPath, type ZkReader } from '../zk';
import { RequestError } from './errors';

/**
 * The view of every open failout (issue 21, "judged together"): ONE node, `/failout/view`, holding the
 * `failoutProperties` of each cluster that has a window which has not ended (active or scheduled), as
 * the failout codec writes them. The worker reads it to judge a request against every other failout
 * and drill, and writes it in the SAME multi as the cluster change (a compare-and-set on its version),
 * so two writers of different clusters serialise: the second one's multi fails, it reads again and
 * judges against the first one's result.
 *
 * Why one node and not a scan of `/d2/clusters`: a Lambda judging a request must stay cheap at 3,000
 * clusters (one read instead of 3,000), and only a node inside the multi gives the serialisation. The
 * cluster nodes stay the truth: the worker corrects the entries of every cluster it reads anyway, it
 * rebuilds a missing or unreadable view from the cluster nodes ({@link rebuildFailoutView}, also
 * `failout zk reindex`), and `failout zk check` compares the two.
 *
 * Size: an entry is the cluster's failout JSON (a few hundred bytes; a ramp of 10 steps about 2 KB), so
 * the view holds thousands of open failouts below ZooKeeper's 1 MB node limit; ended windows are
 * pruned at every write.
 */

/** Default path of the view node (the ACL policy's `viewPath`). */
export const DEFAULT_VIEW_PATH = '/failout/view';

/** The view's path for a records parent: beside it (`/failout/requests` → `/failout/view`), as the ACL layout places it. */
export function viewPathFor(requestsPath: string): string {
  return siblingPath(requestsPath.replace(/\/+$/, ''), 'view');
}

/** Every open failout by cluster name. */
export type FailoutView = ReadonlyMap<string, FailoutProperties>;

/** The view as read, with the node's version for the compare-and-set (undefined: no node yet). */
export interface StoredFailoutView {
  readonly view: FailoutView;
  /** The node's data version; undefined when the node does not exist (the writer creates it). */
  readonly version: number | undefined;
  /** Set when the node was missing or unreadable and the view was rebuilt from the cluster nodes: why. */
  readonly rebuilt?: string;
}

/** True when some window of `props` has not ended at `now` (it is active or scheduled). */
export function hasOpenWindow(props: FailoutProperties | null | undefined, now: number): props is FailoutProperties {
  return props !== null && props !== undefined && props.buckets.some((b) => b.onlineAt === undefined || b.onlineAt > now);
}

/** `view` with `cluster`'s entry set to `props`, or removed when `props` has no open window at `now`; ended entries of other clusters pruned. */
export function withViewEntry(view: FailoutView, cluster: string, props: FailoutProperties | null, now: number): Map<string, FailoutProperties> {
  return withViewEntries(view, [[cluster, props]], now);
}

/**
 * {@link withViewEntry} of each entry in turn (a later one for the same cluster wins), in one copy of
 * the view: an evacuation changes a thousand entries of a view of thousands, and a copy per entry
 * was a third of its judgement.
 */
export function withViewEntries(view: FailoutView, entries: Iterable<readonly [cluster: string, props: FailoutProperties | null]>, now: number): Map<string, FailoutProperties> {
  const changes = [...entries];
  // No entry: the view as it is (the copy per entry pruned only when it set one).
  if (changes.length === 0) return new Map(view);
  const next = new Map<string, FailoutProperties>();
  for (const [name, entry] of view) if (hasOpenWindow(entry, now)) next.set(name, entry);
  for (const [cluster, props] of changes) {
    // Deleted first, so a set entry goes last, as the copy per entry placed it.
    next.delete(cluster);
    if (hasOpenWindow(props, now)) next.set(cluster, props);
  }
  return next;
}

/*
 * Every request reads and writes the whole view, while it changes one entry: entries are cached by
 * their JSON text (parsed once, written once), which took the worker's judging of a request against
 * 50 open failouts from 5.7 ms to 2.3 ms of CPU (in-memory ZooKeeper, 2 shared cores). The failout models are never mutated
 * (every change makes a new object), so an object's text stays its text.
 */
const textOf = new WeakMap<FailoutProperties, string>();
const parsedByText = new Map<string, FailoutProperties>();
/** Bound of {@link parsedByText}: emptied when full (a worker holds a few thousand open failouts at most). */
const MAX_CACHED_ENTRIES = 10_000;

/** The entry's JSON as the failout codec writes it (or as it was read: the same value). */
export function failoutText(props: FailoutProperties): string {
  let text = textOf.get(props);
  if (text === undefined) {
    text = serializeFailoutProperties(props);
    textOf.set(props, text);
  }
  return text;
}

function parsedEntry(value: unknown): FailoutProperties | null {
  const text = JSON.stringify(value);
  const cached = parsedByText.get(text);
  if (cached !== undefined) return cached;
  const props = parseFailoutProperties(value);
  if (props === null) return null;
  if (parsedByText.size >= MAX_CACHED_ENTRIES) parsedByText.clear();
  parsedByText.set(text, props);
  textOf.set(props, text);
  return props;
}

/** The view as stored: `{"version":1,"clusters":{"<cluster>":<failoutProperties>}}`, clusters sorted, compact. */
export function encodeFailoutView(view: FailoutView): Buffer {
  const names = [...view.keys()].sort();
  const parts = names.map((name) => `${JSON.stringify(name)}:${failoutText(view.get(name)!)}`);
  return Buffer.from(`{"version":1,"clusters":{${parts.join(',')}}}`, 'utf8');
}

/** Reads a stored view. @throws RequestError `corruptRecord` naming the problem (the caller rebuilds). */
export function decodeFailoutView(data: Buffer | string): Map<string, FailoutProperties> {
  let json: unknown;
  try {
    json = JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch (e) {
    throw new RequestError('corruptRecord', 'failout view is not JSON', { cause: e });
  }
  if (typeof json !== 'object' || json === null || (json as { version?: unknown }).version !== 1) throw new RequestError('corruptRecord', 'failout view is not {"version":1,…}');
  const clusters = (json as { clusters?: unknown }).clusters;
  if (typeof clusters !== 'object' || clusters === null || Array.isArray(clusters)) throw new RequestError('corruptRecord', 'failout view has no "clusters" object');
  const view = new Map<string, FailoutProperties>();
  for (const [name, value] of Object.entries(clusters)) {
    let props: FailoutProperties | null;
    try {
      props = parsedEntry(value);
    } catch (e) {
      throw new RequestError('corruptRecord', `failout view entry ${JSON.stringify(name)} is malformed`, { cause: e });
    }
    if (props !== null) view.set(name, props);
  }
  return view;
}

/**
 * Reads the view, or rebuilds it from the cluster nodes when the node is missing or unreadable (the
 * first request after an upgrade; a hand edit). ZooKeeper errors propagate.
 */
export async function readFailoutView(session: ZkReader, viewPath: string, d2BasePath: string, now: number): Promise<StoredFailoutView> {
  const node = await session.read(viewPath);
  if (!node.exists) return { view: await rebuildFailoutView(session, d2BasePath, now), version: undefined, rebuilt: 'no view node' };
  // `failout zk secure` creates the layout's roots empty: a view not written yet, not a corrupt one.
  if (node.data.length === 0) return { view: await rebuildFailoutView(session, d2BasePath, now), version: node.stat.version, rebuilt: 'empty view node' };
  try {
    return { view: decodeFailoutView(node.data), version: node.stat.version };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { view: await rebuildFailoutView(session, d2BasePath, now), version: node.stat.version, rebuilt: why };
  }
}

/**
 * The view as the cluster nodes say it is: every cluster with an open window. A cluster document that
 * does not parse is left out (readers ignore it too: it steers no traffic), and so is one this session
 * may not read (noAuth: no judgement could use it). ZooKeeper errors other than these and a vanished
 * node propagate.
 */
export async function rebuildFailoutView(session: ZkReader, d2BasePath: string, now: number): Promise<Map<string, FailoutProperties>> {
  let names: string[];
  try {
    names = (await session.children(clusterPath(d2BasePath))).children;
  } catch (e) {
    if (isZkError(e, 'noNode')) return new Map();
    throw e;
  }
  const entries = await Promise.all(names.map(async (name) => [name, await readOpenFailout(session, d2BasePath, name, now)] as const));
  return new Map(entries.filter((e): e is readonly [string, FailoutProperties] => e[1] !== null));
}

async function readOpenFailout(session: ZkReader, d2BasePath: string, cluster: string, now: number): Promise<FailoutProperties | null> {
  let path: string;
  try {
    path = clusterPath(d2BasePath, cluster);
  } catch {
    return null;
  }
  let node: Awaited<ReturnType<ZkReader['read']>>;
  try {
    node = await session.read(path);
  } catch (e) {
    // A node the worker may not read (noAuth) is left out as an unreadable one is: failing here would
    // fail every request that needs the view until the DLQ, restores included.
    if (isZkError(e, 'noAuth')) return null;
    throw e;
  }
  if (!node.exists) return null;
  try {
    const props = parseClusterProperties(node.data).failoutProperties;
    return hasOpenWindow(props, now) ? props : null;
  } catch (e) {
    if (isMalformed(e)) return null;
    throw e;
  }
}

/** One difference between the view and the cluster nodes (`failout zk check`). */
export interface ViewDrift {
  readonly cluster: string;
  /** `missing`: the cluster has an open failout the view lacks; `stale`: the view has one the cluster does not; `differs`: both have one, not the same. */
  readonly kind: 'missing' | 'stale' | 'differs';
}

/** Compares a stored view with the cluster nodes' truth (both at `now`); empty when they agree. */
export function viewDrift(stored: FailoutView, truth: FailoutView, now: number): ViewDrift[] {
  const drift: ViewDrift[] = [];
  const names = new Set([...stored.keys(), ...truth.keys()]);
  for (const cluster of [...names].sort()) {
    const a = stored.get(cluster);
    const b = truth.get(cluster);
    const open = hasOpenWindow(a, now);
    if (!open && b !== undefined) drift.push({ cluster, kind: 'missing' });
    else if (open && b === undefined) drift.push({ cluster, kind: 'stale' });
    else if (open && b !== undefined && failoutText(a) !== failoutText(b)) drift.push({ cluster, kind: 'differs' });
  }
  return drift;
}
