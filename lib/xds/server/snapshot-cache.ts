/**
 * Versioned resource snapshots per node id (go-control-plane's SnapshotCache, SotW only).
 *
 * Public names (stable):
 * - `SnapshotCache` — `set(nodeId | '*', input)`, `get(nodeId)`, `clear(nodeId)`, `onChange(listener)`.
 * - `SnapshotInput` — `{ version, listeners?, routes?, clusters?, endpoints? }`; each a `ResourceSet`.
 * - `ResourceSet` — `AnyMessage[]` (names read from the resources) or `Record<name, AnyMessage>` (names
 *   given, which lets a test serve an invalid or undecodable resource under a name).
 * - `Snapshot` — `{ version, resources: ReadonlyMap<XdsTypeUrl, ReadonlyMap<name, AnyMessage>> }`.
 * - `DEFAULT_NODE` ('*') — the snapshot served to nodes without their own.
 */
import { XdsError } from '../errors';
import { unpackAny, unwrapResource, type AnyMessage } from '../protos';
import { CDS_TYPE_URL, EDS_TYPE_URL, LDS_TYPE_URL, RDS_TYPE_URL, type XdsTypeUrl } from '../resource-types/type-urls';

/** The node id whose snapshot serves every node without its own. */
export const DEFAULT_NODE = '*';

/** Resources of one type: packed resources (names read from them) or a name → resource map. */
export type ResourceSet = readonly AnyMessage[] | Readonly<Record<string, AnyMessage>>;

/** What `setSnapshot` takes. One version covers every type of the snapshot. */
export interface SnapshotInput {
  version: string;
  listeners?: ResourceSet;
  routes?: ResourceSet;
  clusters?: ResourceSet;
  endpoints?: ResourceSet;
}

/** A stored snapshot. */
export interface Snapshot {
  readonly version: string;
  readonly resources: ReadonlyMap<XdsTypeUrl, ReadonlyMap<string, AnyMessage>>;
}

/** The resource name of a packed resource: `name`, or `cluster_name` for EDS. */
function nameOf(any: AnyMessage): string {
  const unwrapped = unwrapResource(any);
  if (unwrapped.name) return unwrapped.name;
  const raw = unpackAny(unwrapped.any);
  const name = typeof raw.name === 'string' && raw.name ? raw.name : raw.cluster_name;
  if (typeof name !== 'string' || !name) throw new XdsError('validation', `resource of ${any.type_url} has no name`);
  return name;
}

function toMap(set: ResourceSet | undefined): ReadonlyMap<string, AnyMessage> {
  if (!set) return new Map();
  if (Array.isArray(set)) return new Map((set as readonly AnyMessage[]).map((a) => [nameOf(a), a]));
  return new Map(Object.entries(set as Record<string, AnyMessage>));
}

/** Snapshots per node id, with change notification for open streams. */
export class SnapshotCache {
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly listeners = new Set<(nodeId: string) => void>();

  /** Stores a snapshot for `nodeId` ('*' = default) and notifies listeners. */
  set(nodeId: string, input: SnapshotInput): Snapshot {
    const resources = new Map<XdsTypeUrl, ReadonlyMap<string, AnyMessage>>([
      [LDS_TYPE_URL, toMap(input.listeners)],
      [RDS_TYPE_URL, toMap(input.routes)],
      [CDS_TYPE_URL, toMap(input.clusters)],
      [EDS_TYPE_URL, toMap(input.endpoints)],
    ]);
    const snapshot: Snapshot = { version: input.version, resources };
    this.snapshots.set(nodeId, snapshot);
    for (const l of this.listeners) l(nodeId);
    return snapshot;
  }

  /** The snapshot for a node: its own, else the default, else undefined. */
  get(nodeId: string): Snapshot | undefined {
    return this.snapshots.get(nodeId) ?? this.snapshots.get(DEFAULT_NODE);
  }

  /** Removes a node's snapshot (streams keep what they have; nothing is sent). */
  clear(nodeId: string): void {
    this.snapshots.delete(nodeId);
  }

  /** Registers a change listener; returns its removal. */
  onChange(listener: (nodeId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
