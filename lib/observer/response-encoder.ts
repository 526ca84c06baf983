/**
 * Encodes the observer's SotW responses once for every stream that gets the same one. Streams that
 * subscribed to the same names of a type (every instance of a service does) get the same resources
 * after a change; their responses differ only by `version_info` and `nonce`, so both come from one
 * observer-wide sequence instead of a per-stream count, and the bytes are shared.
 *
 * Nonces stay unique per stream and grow on it: a stream whose last nonce is not older than a cached
 * response's gets a freshly encoded one (it already had that response, e.g. before subscribing to
 * something else and back).
 *
 * Memory: one entry per distinct (type, names) in use; entries nobody reuses are dropped wholesale
 * past {@link MAX_ENTRIES} (re-encoding is the only cost).
 */
import { encodeDiscoveryResponse, type AnyMessage } from '../xds/envoy-protos';

/** Distinct subscriptions kept before the cache starts over. */
const MAX_ENTRIES = 4096;

interface Entry {
  readonly resources: readonly AnyMessage[];
  readonly bytes: Buffer;
  readonly nonce: number;
}

/** An encoded response and its nonce (also its `version_info`). */
export interface EncodedResponse {
  readonly bytes: Buffer;
  readonly nonce: number;
}

/** Shared by every stream of one observer. */
export class ResponseEncoder {
  private readonly entries = new Map<string, Entry>();
  private sequence = 0;

  /** @param encoded called for each response actually encoded (a counter: encodes against pushes). */
  constructor(private readonly encoded: (typeUrl: string) => void = () => undefined) {}

  /**
   * The response carrying `resources` of `typeUrl` to a stream subscribed to `names` (their order
   * is the stream's), whose last nonce for the type was `lastNonce` (0 before any).
   */
  encode(typeUrl: string, names: Iterable<string>, resources: readonly AnyMessage[], lastNonce: number): EncodedResponse {
    let key = typeUrl;
    for (const name of names) key += `\n${name}`;
    const entry = this.entries.get(key);
    if (entry && entry.nonce > lastNonce && sameResources(entry.resources, resources)) return entry;
    const nonce = ++this.sequence;
    const bytes = encodeDiscoveryResponse({ version_info: String(nonce), resources: [...resources], type_url: typeUrl, nonce: String(nonce) });
    this.encoded(typeUrl);
    if (!entry && this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const fresh = { resources, bytes, nonce };
    this.entries.set(key, fresh);
    return fresh;
  }
}

/** The same resource objects in the same order (the cache replaces a resource's object when it changes). */
function sameResources(a: readonly AnyMessage[], b: readonly AnyMessage[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
