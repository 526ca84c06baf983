/**
 * What the observer's CSDS shows (issue 25), as the dumps lib/xds `csds.ts` renders (the one codec of
 * the format, gRFC A40; the observer builds no message of its own):
 *
 * - one `ClientConfig` with `client_scope` {@link OBSERVER_SCOPE}: every resource the observer serves
 *   now, with its version (the znode's mzxid, or the URI map's version) and when it was last encoded;
 *   `ACKED` for a present resource, `DOES_NOT_EXIST` for an absent one. Pending reads are left out.
 * - one `ClientConfig` per ADS stream (`node.id`: the client's node id, `client_scope`
 *   `stream/<id>`): each subscribed name with the version the client last ACKed (`ACKED`, or
 *   `DOES_NOT_EXIST` when it ACKed a response leaving the name out), `NACKED` with the error and
 *   rejected version after a NACK (keeping the ACKed version, as A40's example does), `REQUESTED`
 *   before any ACK.
 *
 * Resource contents are left out (`xds_config`): the observer serves the same bytes to every client,
 * and 10,000 streams of them would make a dump of megabytes. Pure over what it is given.
 */
import { ResourceStatus, buildClientStatusResponse } from '../xds';
import type { TypeStatus } from './ads-stream';
import type { SettledEntry } from './resource-cache';

/** The CSDS dump of one client scope (lib/xds `CsdsDump`). */
type CsdsDump = Parameters<typeof buildClientStatusResponse>[0][number];
type ResourceDump = CsdsDump['authorities'][number]['resources'][number];

/** The `client_scope` of the observer's own config: what it serves. */
export const OBSERVER_SCOPE = '#observer';

/** One stream as CSDS needs it. */
export interface StreamStatus {
  readonly id: number;
  readonly nodeId: string;
  readonly types: ReadonlyMap<string, TypeStatus>;
}

/** The cache key `<type URL> <name>` split back (type URLs hold no space). */
function splitKey(key: string): { typeUrl: string; name: string } {
  const at = key.indexOf(' ');
  return { typeUrl: key.slice(0, at), name: key.slice(at + 1) };
}

function resource(typeUrl: string, name: string, fields: Partial<ResourceDump> & Pick<ResourceDump, 'status'>): ResourceDump {
  return { typeUrl, name, version: '', error: undefined, raw: undefined, lastUpdated: undefined, rejected: undefined, ...fields };
}

/** The observer's own config: every settled cache entry. */
export function servedDump(entries: Iterable<[string, SettledEntry]>): CsdsDump {
  const resources: ResourceDump[] = [];
  for (const [key, entry] of entries) {
    const { typeUrl, name } = splitKey(key);
    resources.push(
      entry.status === 'present'
        ? resource(typeUrl, name, { status: ResourceStatus.acked, version: entry.version, lastUpdated: entry.updatedAt })
        : resource(typeUrl, name, { status: ResourceStatus.doesNotExist, lastUpdated: entry.updatedAt }),
    );
  }
  return { clientScope: OBSERVER_SCOPE, node: { id: 'd2-observer' }, authorities: [{ resources }] };
}

function nameDump(typeUrl: string, name: string, status: TypeStatus): ResourceDump {
  const ackedVersion = status.acked?.versions.get(name);
  const ackedFields = status.acked?.versions.has(name) ? { version: ackedVersion ?? '', lastUpdated: status.acked.at } : {};
  if (status.nacked?.versions.has(name)) {
    const rejected = { version: status.nacked.versions.get(name) ?? '', at: status.nacked.at };
    return resource(typeUrl, name, { status: ResourceStatus.nacked, ...ackedFields, error: status.nacked.message, rejected });
  }
  if (!status.acked?.versions.has(name)) return resource(typeUrl, name, { status: ResourceStatus.requested });
  return resource(typeUrl, name, { status: ackedVersion === undefined ? ResourceStatus.doesNotExist : ResourceStatus.acked, ...ackedFields });
}

/** One stream's config: what its client subscribed to and ACKed or NACKed. */
export function streamDump(stream: StreamStatus): CsdsDump {
  const resources: ResourceDump[] = [];
  for (const [typeUrl, status] of stream.types) for (const name of status.names) resources.push(nameDump(typeUrl, name, status));
  return { clientScope: `stream/${stream.id}`, node: { id: stream.nodeId }, authorities: [{ resources }] };
}
