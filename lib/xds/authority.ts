/**
 * One authority: its ordered servers, the active one, the resource cache and the A71 fallback loop
 * (grpc-go `authority.go`, with the C-core/Java choices listed in xds-fallback-a71.md §2.11/§6).
 *
 * Fallback (gRFC A71): on a connectivity failure of the ACTIVE server, if some watched resource is
 * uncached, the next server that is not already failing is connected, made active and subscribed to
 * every watched resource; cache and watchers are kept. Watchers hear of the failure only once every
 * server has failed (ambient when cached), once per outage.
 * Where we differ from grpc-go (following C-core `SetChannelStatusLocked` / Java `getActiveAuthorities`):
 * - failures of a NON-active server are ignored (a primary retry failure never jumps to server #3);
 * - a new watch subscribes on every open channel, and falls back at once when the active server is
 *   failing and the resource is uncached (grpc-go waits for the next retry failure, up to ~144 s);
 * - an update from another server than the cached one re-notifies watchers even when equal, so
 *   that load reporting moves with the CDS source (grpc-go compares bytes only; A47 caveat).
 * Our extension: with `fallbackWhenCached` (bootstrap `failout.fallbackWhenCached`) the active
 * server's failure falls back even when everything is cached, for servers that are replicas of one
 * view (D2 observers, issue 25); the A71 condition stays the default.
 * Return: the first response from a higher-priority server makes it active; lower channels are
 * released. Responses from lower servers are dropped (close/response race).
 * SotW deletion by absence only for a value the responding server sent; a value another server sent
 * waits for the does-not-exist timer on the responding server (see `applySotwDeletions`).
 * Incremental ADS (servers with `failout_delta_ads`): a response carries changes only, so it never
 * deletes by absence; its `removed_resources` are does-not-exist at once (see `applyDeltaRemovals`).
 * What the cache takes from one server is told to the other servers' channels (`tellOtherServers`),
 * so that an incremental stream never claims, on its next call, a version the client no longer holds.
 *
 * Concurrency: event-loop only. `options` is fixed; everything else changes only in the public
 * methods and the channel handler callbacks. Watcher callbacks go through per-watcher queues.
 */
import type { AdsResponseEvent } from './ads-stream';
import { DEFAULT_FALLBACK_PROBE_CAP_MS, type XdsServerConfig } from './bootstrap';
import { RETRY_CAP_MS, type XdsChannelEventHandler, type XdsChannelState } from './channel';
import { XdsError } from './errors';
import type { AnyMessage } from './protos';
import {
  createWatcherEntry,
  isCached,
  newResourceRecord,
  ResourceStatus,
  type AnyResourceType,
  type ResourceRecord,
  type WatcherEntry,
} from './resource-state';
import type { XdsWatcher } from './watcher';
import type { Lifecycle } from '../lifecycle';

/** An authority's hold on a (possibly shared) channel. Released by `release()` or by the signal. */
export interface ChannelLease {
  readonly serverUri: string;
  readonly state: XdsChannelState;
  readonly lastError: XdsError | undefined;
  subscribe(typeUrl: string, name: string): void;
  unsubscribe(typeUrl: string, name: string): void;
  /**
   * The authority now caches, for a name this lease subscribed, what another server sent: `version`
   * is that server's own version of it (incremental ADS), undefined when there is none (a SotW value,
   * or does-not-exist). The channel's stream then does not claim the name's older version on its next call.
   */
  heldFromOtherServer(typeUrl: string, name: string, version: string | undefined): void;
  /**
   * A SotW response of this server left out a name it subscribed, whose cached value another server
   * sent: the stream runs the name's does-not-exist timer until a response carries it (see `applySotwDeletions`).
   */
  awaitFromServer(typeUrl: string, name: string): void;
  /** This lease's wish for the retry cap; a shared channel uses the smallest wish. */
  setRetryCapMs(capMs: number): void;
  version(typeUrl: string): string;
  release(): void;
}

/** Hands out channels (client.ts shares them across authorities by server key). */
export interface ChannelPool {
  acquire(server: XdsServerConfig, handler: XdsChannelEventHandler, signal: AbortSignal): ChannelLease;
}

/** Emitted when an authority's active server changes after the first activation. */
export interface ServerSwitchEvent {
  /** The authority's name ('' for the top-level authority, and for a bootstrap authority named ""). */
  readonly authority: string;
  /** The server that was active before. */
  readonly from: {
    /** Its position in the authority's ordered `xds_servers` (0 = highest priority). */
    readonly index: number;
    /** Its `server_uri`. */
    readonly serverUri: string;
  };
  /** The server that is active now. */
  readonly to: {
    /** Its position in the authority's ordered `xds_servers` (0 = highest priority). */
    readonly index: number;
    /** Its `server_uri`. */
    readonly serverUri: string;
  };
  /** `fallback` to a lower-priority server, `return` to a higher one. */
  readonly reason: 'fallback' | 'return';
}

/** CSDS-like view of an authority. */
export interface AuthorityDump {
  /** The authority's name: '' for the top-level authority, and for a bootstrap authority named "" (see `topLevel`). */
  readonly authority: string;
  /**
   * True for the top-level authority, which serves old-style (non-xdstp) names from the top-level
   * `xds_servers`; false for an entry of the bootstrap's `authorities`, "" included (gRFC A47 `xdstp:///`).
   */
  readonly topLevel: boolean;
  /** `server_uri` of the active server; undefined while no channel is held. */
  readonly activeServer: string | undefined;
  /** The authority's servers, in priority order. */
  readonly servers: ReadonlyArray<{
    /** The server's `server_uri`. */
    serverUri: string;
    /** The state of its channel; 'unused' when this authority holds none to it. */
    state: XdsChannelState | 'unused';
    /** Message of the channel's last error, if any. */
    lastError: string | undefined;
  }>;
  /** Every watched resource of the authority. */
  readonly resources: ReadonlyArray<{
    /** The resource's type URL. */
    typeUrl: string;
    /** The resource name. */
    name: string;
    /** What the client knows about it (CSDS `ClientResourceStatus`). */
    status: ResourceStatus;
    /** `version_info` of the response that delivered the cached value; '' when none. */
    version: string;
    /** `server_uri` of the server that delivered the cached value (or decided does-not-exist). */
    source: string | undefined;
    /** How many watchers it has. */
    watchers: number;
    /** Message of the last NACK error, cleared by the next accepted value. */
    error: string | undefined;
    /** The cached value as the server sent it (an Any, CSDS `xds_config`); undefined when nothing is cached. */
    raw: AnyMessage | undefined;
    /** When (ms since the epoch) a value was last accepted or does-not-exist decided (CSDS `last_updated`). */
    lastUpdated: number | undefined;
    /** The NACKed update behind `error`: its `version_info` and when it came (CSDS `error_state`, gRFC A40). */
    rejected:
      | {
          /** `version_info` of the rejected response. */
          readonly version: string;
          /** When it came (ms since the epoch). */
          readonly at: number;
        }
      | undefined;
  }>;
}

/** Options of {@link Authority}. */
export interface AuthorityOptions {
  /** The authority's name: '' for the top-level authority, or the key of its bootstrap `authorities` entry ("" possible). */
  readonly name: string;
  /** True for the top-level authority of old-style names (grpc-go `topLevelAuthority`); default false. */
  readonly topLevel?: boolean;
  /** Servers in priority order (non-empty). */
  readonly servers: readonly XdsServerConfig[];
  readonly pool: ChannelPool;
  readonly resourceTypes: ReadonlyMap<string, AnyResourceType>;
  /** Retry cap of higher-priority servers while a lower one is active (default 5 s). */
  readonly fallbackProbeCapMs?: number;
  /** Fall back on the active server's failure even when everything is cached (bootstrap `failout.fallbackWhenCached`); default false (A71). */
  readonly fallbackWhenCached?: boolean;
  readonly onServerSwitch?: (event: ServerSwitchEvent) => void;
}

interface ServerSlot {
  readonly index: number;
  readonly server: XdsServerConfig;
  lease: ChannelLease | undefined;
}

/** The A71 fallback loop of one authority. */
export class Authority {
  private readonly slots: ServerSlot[];
  private readonly resources = new Map<string, Map<string, ResourceRecord>>();
  private readonly abort = new AbortController();
  private lifecycle: Lifecycle = 'running';
  /** Index of the active server; undefined while no channel is held. */
  private active: number | undefined;
  /** Set once watchers were told of a connectivity failure; cleared by any response (edge trigger). */
  private outage: XdsError | undefined;

  constructor(private readonly options: AuthorityOptions) {
    if (options.servers.length === 0) throw new XdsError('bootstrap', `authority "${options.name}" has no xds_servers`);
    this.slots = options.servers.map((server, index) => ({ index, server, lease: undefined }));
  }

  /** Index of the active server (test hook and dump). */
  get activeIndex(): number | undefined {
    return this.active;
  }

  /** Starts watching; returns the cancel function. */
  watch(typeUrl: string, name: string, watcher: XdsWatcher): () => void {
    if (this.lifecycle === 'closed') throw new XdsError('closed', `authority "${this.options.name}" is closed`);
    let byName = this.resources.get(typeUrl);
    if (!byName) this.resources.set(typeUrl, (byName = new Map()));
    let record = byName.get(name);
    const entry = createWatcherEntry(watcher);
    if (!record) {
      record = newResourceRecord(typeUrl, name, entry);
      byName.set(name, record);
      for (const slot of this.slots) slot.lease?.subscribe(typeUrl, name);
      if (this.active === undefined) this.activate(0, undefined);
    } else {
      record.watchers.push(entry);
      deliverCached(record, entry);
    }
    this.onWatchAdded(record, entry);
    const watched = record;
    return () => this.cancelWatch(watched, entry);
  }

  /** The server that delivered the cached value of a resource (LRS follows the CDS source, A47). */
  sourceServer(typeUrl: string, name: string): XdsServerConfig | undefined {
    const record = this.get(typeUrl, name);
    return record?.value === undefined || record.source === undefined ? undefined : this.slots[record.source]?.server;
  }

  /** CSDS-like dump. */
  dump(): AuthorityDump {
    const uri = (index: number | undefined): string | undefined =>
      index === undefined ? undefined : this.slots[index]?.server.serverUri;
    const resources = [...this.resources.values()].flatMap((byName) =>
      [...byName.values()].map((r) => ({
        typeUrl: r.typeUrl,
        name: r.name,
        status: r.status,
        version: r.version,
        source: uri(r.source),
        watchers: r.watchers.length,
        error: r.nackError?.message,
        raw: r.raw,
        lastUpdated: r.updatedAt,
        rejected: r.rejected,
      })),
    );
    return {
      authority: this.options.name,
      topLevel: this.options.topLevel ?? false,
      activeServer: uri(this.active),
      servers: this.slots.map((s) => ({
        serverUri: s.server.serverUri,
        state: s.lease?.state ?? 'unused',
        lastError: s.lease?.lastError?.message,
      })),
      resources,
    };
  }

  /** Releases every channel and drops every watcher. Idempotent. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.abort.abort();
    for (const slot of this.slots) slot.lease = undefined;
    for (const byName of this.resources.values()) {
      for (const record of byName.values()) for (const entry of record.watchers) entry.cancel();
    }
    this.resources.clear();
    this.active = undefined;
  }

  /** Fallback at watch time (C-core `WatchResource`, Java): the active server is failing, the resource uncached. */
  private onWatchAdded(record: ResourceRecord, entry: WatcherEntry): void {
    const active = this.active === undefined ? undefined : this.slots[this.active];
    if (!active?.lease || isCached(record)) {
      if (this.outage) entry.enqueue((w, done) => w.onError(this.outage as XdsError, { ambient: isCached(record) }, done));
      return;
    }
    if (active.lease.state !== 'failing') return;
    if (this.fallbackFrom(active.index)) return;
    if (this.outage) entry.enqueue((w, done) => w.onError(this.outage as XdsError, { ambient: false }, done));
    else this.notifyConnectivityError(active.index, active.lease.lastError);
  }

  private cancelWatch(record: ResourceRecord, entry: WatcherEntry): void {
    entry.cancel();
    const at = record.watchers.indexOf(entry);
    if (at < 0) return;
    record.watchers.splice(at, 1);
    if (record.watchers.length > 0 || this.lifecycle === 'closed') return;
    const byName = this.resources.get(record.typeUrl);
    byName?.delete(record.name);
    if (byName?.size === 0) this.resources.delete(record.typeUrl);
    for (const slot of this.slots) slot.lease?.unsubscribe(record.typeUrl, record.name);
    if (this.resources.size === 0) this.releaseFrom(0); // grpc-go: the last unwatch releases every channel
  }

  private get(typeUrl: string, name: string): ResourceRecord | undefined {
    return this.resources.get(typeUrl)?.get(name);
  }

  private hasUncached(): boolean {
    for (const byName of this.resources.values()) {
      for (const record of byName.values()) if (record.watchers.length > 0 && !isCached(record)) return true;
    }
    return false;
  }

  /** Connects slot `index` if needed, subscribes everything there and makes it active. */
  private activate(index: number, reason: ServerSwitchEvent['reason'] | undefined): void {
    const lease = this.connect(this.slots[index] as ServerSlot);
    const previous = this.active;
    this.active = index;
    // A server already failing (a channel shared with another authority) ends no outage: the watchers
    // told of it are not told again.
    if (lease.state !== 'failing') this.outage = undefined;
    this.applyRetryCaps();
    if (previous !== undefined && previous !== index && reason) {
      const at = (i: number): { index: number; serverUri: string } => ({ index: i, serverUri: this.slots[i]?.server.serverUri ?? '' });
      this.options.onServerSwitch?.({ authority: this.options.name, from: at(previous), to: at(index), reason });
    }
  }

  /** Acquires the slot's channel if this authority holds none, and subscribes every watched resource there. */
  private connect(slot: ServerSlot): ChannelLease {
    if (!slot.lease) {
      slot.lease = this.options.pool.acquire(slot.server, this.handlerFor(slot), this.abort.signal);
      for (const [typeUrl, byName] of this.resources) for (const name of byName.keys()) slot.lease.subscribe(typeUrl, name);
    }
    return slot.lease;
  }

  /**
   * The reconnect policy: servers above the active one, i.e. while this authority is served by a
   * lower-priority server (A71 fallback), are retried with backoff capped at `fallbackProbeCapMs` so
   * that the return is prompt; every other server uses gRPC's connection backoff capped at 120 s
   * (connection-backoff.md), since nothing would be gained by probing it faster.
   */
  private applyRetryCaps(): void {
    const probe = this.options.fallbackProbeCapMs ?? DEFAULT_FALLBACK_PROBE_CAP_MS;
    for (const slot of this.slots) {
      slot.lease?.setRetryCapMs(this.active !== undefined && slot.index < this.active ? probe : RETRY_CAP_MS);
    }
  }

  /** Releases the channels of slots `from` and below in priority. */
  private releaseFrom(from: number): void {
    for (const slot of this.slots.slice(from)) {
      const lease = slot.lease;
      slot.lease = undefined;
      lease?.release();
    }
    if (from === 0) {
      this.active = undefined;
      this.outage = undefined;
    }
  }

  private handlerFor(slot: ServerSlot): XdsChannelEventHandler {
    const live = (): boolean => this.lifecycle === 'running' && slot.lease !== undefined;
    return {
      onConnectivityFailure: (error) => {
        if (live()) this.handleFailure(slot.index, error);
      },
      onResponse: (event) => {
        if (live()) this.handleResponse(slot.index, event);
      },
      onResourceDoesNotExist: (typeUrl, name) => {
        if (live()) this.handleDoesNotExist(slot.index, typeUrl, name);
      },
      isResourceCached: (typeUrl, name) => {
        const record = this.get(typeUrl, name);
        return record !== undefined && isCached(record);
      },
    };
  }

  /**
   * gRFC A71 §1.1: only the ACTIVE server's failure counts; fall back while something is uncached,
   * or always with `fallbackWhenCached` (replicas of one view, as D2 observers: the cache of a dead
   * server would go stale while the next one serves the same data fresh).
   */
  private handleFailure(index: number, error: XdsError): void {
    if (index !== this.active || this.outage) return;
    if ((this.options.fallbackWhenCached === true || this.hasUncached()) && this.fallbackFrom(index)) return;
    this.notifyConnectivityError(index, error);
  }

  /**
   * Activates the next server after `failed` that is not failing; false when there is none.
   * A channel shared with another authority may be failing already when this one first acquires it:
   * its next failure could be a full backoff away (up to 120 s), so it is kept (subscribed, so that its
   * recovery is seen) and the next server is tried at once. When every server is failing, the last one
   * acquired becomes active, so that a response from it or any server above it is used (C-core
   * `MaybeFallbackLocked` checks each channel's status as it adds it; its last channel is the active one).
   */
  private fallbackFrom(failed: number): boolean {
    let failingShared: ServerSlot | undefined;
    for (const slot of this.slots.slice(failed + 1)) {
      if (slot.lease?.state === 'failing') continue;
      if (this.connect(slot).state === 'failing') {
        failingShared = slot;
        continue;
      }
      this.activate(slot.index, 'fallback');
      return true;
    }
    if (failingShared) this.activate(failingShared.index, 'fallback');
    return false;
  }

  /** Tells every watcher, once per outage, naming the lowest-priority server that failed. */
  private notifyConnectivityError(index: number, error: XdsError | undefined): void {
    let last = index;
    for (const slot of this.slots) if (slot.lease?.state === 'failing' && slot.index > last) last = slot.index;
    const lastServer = this.slots[last] as ServerSlot;
    const cause = lastServer.lease?.lastError ?? error;
    const outage = new XdsError(
      'connection',
      `xDS servers of authority "${this.options.name}" unreachable; last tried ${lastServer.server.serverUri}: ${cause?.message ?? 'failed'}`,
      { serverUri: lastServer.server.serverUri, cause },
    );
    this.outage = outage;
    this.forEachRecord((record) => {
      const ambient = isCached(record);
      for (const entry of record.watchers) entry.enqueue((w, done) => w.onError(outage, { ambient }, done));
    });
  }

  private handleResponse(index: number, event: AdsResponseEvent): void {
    if (this.active === undefined || index > this.active) return; // a lower server: dropped (A71 revert race)
    if (index < this.active) {
      this.activate(index, 'return');
      this.releaseFrom(index + 1);
    }
    this.outage = undefined;
    const type = this.options.resourceTypes.get(event.typeUrl);
    const serverUri = this.slots[index]?.server.serverUri;
    for (const { name, value, raw, version } of event.updates) {
      const record = this.get(event.typeUrl, name);
      // Incremental ADS versions each resource (CSDS shows it); SotW versions the response.
      if (record) this.applyUpdate(record, { value, raw, version: version ?? event.version, resourceVersion: version }, index, type);
    }
    for (const { name, error, version } of event.errors) {
      const record = name === undefined ? undefined : this.get(event.typeUrl, name);
      if (!record) continue;
      record.status = ResourceStatus.nacked;
      record.nackError = new XdsError('nacked', `NACKed ${name} from ${serverUri}: ${error.message}`, {
        typeUrl: event.typeUrl,
        resourceName: name,
        serverUri,
        cause: error,
      });
      record.rejected = { version: version ?? event.version, at: Date.now() };
      const nack = record.nackError;
      const ambient = isCached(record);
      for (const entry of record.watchers) entry.enqueue((w, done) => w.onError(nack, { ambient }, done));
    }
    if (event.protocol === 'delta') {
      this.applyDeltaRemovals(event, index);
      return;
    }
    // An unnamed invalid resource may be the "missing" one: no SotW deletion from such a response.
    const unnamedError = event.errors.some((e) => e.name === undefined);
    if (type?.allResourcesRequiredInSotW && !unnamedError && !this.slots[index]?.server.ignoreResourceDeletion) {
      this.applySotwDeletions(event, index);
    }
  }

  /**
   * Incremental ADS: absence means nothing; a name in `removed_resources` does not exist, whatever
   * its type and whether cached or not, so its watchers learn it at once instead of after the
   * does-not-exist timer. Under ignore_resource_deletion (gRFC A53) a cached value is kept, as for
   * SotW deletions; an uncached name still does not exist. Watchers are told once (edge).
   */
  private applyDeltaRemovals(event: AdsResponseEvent, index: number): void {
    const ignoreDeletion = this.slots[index]?.server.ignoreResourceDeletion ?? false;
    for (const name of event.removed) {
      const record = this.get(event.typeUrl, name);
      if (!record || (ignoreDeletion && record.value !== undefined)) continue;
      if (record.status === ResourceStatus.doesNotExist) {
        record.source = index;
        continue;
      }
      this.markDoesNotExist(record, index);
    }
  }

  private applyUpdate(
    record: ResourceRecord,
    { value, raw, version, resourceVersion }: { value: unknown; raw: AnyMessage; version: string; resourceVersion: string | undefined },
    index: number,
    type: AnyResourceType | undefined,
  ): void {
    this.tellOtherServers(record, index, resourceVersion);
    const previous = record.value;
    const changed =
      previous === undefined || record.source !== index || !(type?.isEqual(previous.data, value) ?? false);
    record.value = { data: value };
    record.status = ResourceStatus.acked;
    record.version = version;
    record.source = index;
    record.nackError = undefined;
    record.raw = raw;
    record.updatedAt = Date.now();
    record.rejected = undefined;
    if (!changed) return;
    for (const entry of record.watchers) entry.enqueue((w, done) => w.onUpdate(value, done));
  }

  /**
   * LDS/CDS: a cached resource missing from the active server's response was deleted, when that server
   * sent the cached value. A value another server sent (the one before a fallback or a return) is not
   * deleted by absence: the response may predate this server's sight of the name (a push in flight on a
   * stream that another authority already had open when this one subscribed there), so it waits for a
   * response from this server like an uncached name, under the does-not-exist timer (grpc-go's reason
   * for never deleting an uncached name by absence, applied to what this server has not answered yet).
   */
  private applySotwDeletions(event: AdsResponseEvent, index: number): void {
    for (const record of this.resources.get(event.typeUrl)?.values() ?? []) {
      if (record.value === undefined || event.names.has(record.name)) continue;
      if (record.source !== index) this.slots[index]?.lease?.awaitFromServer(record.typeUrl, record.name);
      else this.markDoesNotExist(record, index);
    }
  }

  /** A does-not-exist timer fired: for an uncached name, or a value another server sent that this one left out. */
  private handleDoesNotExist(index: number, typeUrl: string, name: string): void {
    const record = this.get(typeUrl, name);
    if (index !== this.active || !record) return;
    if (isCached(record) && (record.value === undefined || record.source === index)) return;
    this.markDoesNotExist(record, index);
  }

  /**
   * What the cache holds for `record` now comes from server `index`: the other servers' channels
   * learn it, so that an incremental stream to one of them (the primary during a fallback) does not
   * tell its server, at its return, that the client holds the version it last had from it: that
   * server would then send nothing, and the other server's state (older, or removed) would stay.
   */
  private tellOtherServers(record: ResourceRecord, index: number, resourceVersion: string | undefined): void {
    for (const slot of this.slots) if (slot.index !== index) slot.lease?.heldFromOtherServer(record.typeUrl, record.name, resourceVersion);
  }

  private markDoesNotExist(record: ResourceRecord, index: number): void {
    this.tellOtherServers(record, index, undefined);
    record.value = undefined;
    record.raw = undefined;
    record.updatedAt = Date.now();
    record.status = ResourceStatus.doesNotExist;
    record.source = index;
    for (const entry of record.watchers) entry.enqueue((w, done) => w.onResourceDoesNotExist(done));
  }

  private forEachRecord(fn: (record: ResourceRecord) => void): void {
    for (const byName of this.resources.values()) for (const record of byName.values()) fn(record);
  }
}

/** A new watcher of a known resource gets what the others already have. */
function deliverCached(record: ResourceRecord, entry: WatcherEntry): void {
  const value = record.value;
  const nack = record.nackError;
  if (value !== undefined) entry.enqueue((w, done) => w.onUpdate(value.data, done));
  else if (record.status === ResourceStatus.doesNotExist) entry.enqueue((w, done) => w.onResourceDoesNotExist(done));
  if (nack) entry.enqueue((w, done) => w.onError(nack, { ambient: isCached(record) }, done));
}
