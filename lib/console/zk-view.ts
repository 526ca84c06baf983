/**
 * The console's one view of ZooKeeper: one session per console server (never one per browser), the
 * D2 clusters and services through persistent watches read with the clients' own codecs (lib/d2/data:
 * a malformed write is reported and the last good document stays, as `LoadBalancerState` does), the
 * hosts per cluster as the children of its URI node, the request records through a children
 * watch, and the fabric maps and evacuation nodes (fabric-watch.ts). Everything is pushed by watches;
 * nothing polls. (Not `LoadBalancerState` itself: its face
 * loads the D2 HTTP client, which the CLI that starts the console must not load; module-faces test.)
 *
 * Lifecycle: latent → started (`start`) → closed (`close`). The session is made in the background and
 * made again until ZooKeeper answers, so the console serves its page (saying ZooKeeper is out of reach)
 * from the first second; once connected, the session itself reconnects and re-arms every watch.
 *
 * Concurrency: event loop only. `onChange` is called after every change, synchronously, possibly
 * often: the caller coalesces.
 */
import type { Lifecycle } from '../lifecycle';
import { clusterPath, isSymlinkName, parseClusterProperties, parseServiceProperties, servicePath, urisPath, type FailoutProperties } from '../d2/data';
import type { Logger } from '../logging';
import { decodeRequestRecord, isValidRequestId, requestIdTime, type EvacuationNode, type RequestRecord } from '../requests';
import { isZkError, ZkSession, type ConnectionState, type DataState, type Watch, type ZkTlsOptions } from '../zk';
import { FabricWatch, type FabricMapEntry, type UnreadableEvacuationEntry } from './fabric-watch';
import { DrillWatch, type DrillEntry } from './drill-watch';
import { unreadableProblem } from './child-watches';
import { newestFirst } from './history-query';

/** Where ZooKeeper stands for the console: `unreachable` until a first session starts, then the session's state. */
export type ZkViewState = 'connecting' | 'unreachable' | Exclude<ConnectionState, 'idle' | 'connecting'>;

/** Options of {@link ZkView}. */
export interface ZkViewOptions {
  /** `host:port[,…]`. */
  readonly connectString: string;
  /** TLS to ZooKeeper, when configured. */
  readonly tls?: ZkTlsOptions | undefined;
  /** D2 base path (`/d2`). */
  readonly d2Base: string;
  /** Request records path (`/failout/requests`). */
  readonly requestsBase: string;
  /** Parent of the fabric maps (`/failout/fabrics`, issue 23). */
  readonly fabricsBase: string;
  /** Parent of the evacuation nodes (`/failout/evacuations`, issue 23). */
  readonly evacuationsBase: string;
  /** Parent of the drill nodes (`/failout/drills`, issue 24 item 7); default: drills are not watched. */
  readonly drillsBase?: string | undefined;
  /**
   * How many of the newest request records are kept. Default {@link MAX_VIEW_RECORDS}: every record a
   * retention keeps (issue 24, item 5: the history reaches back to the oldest), with a ceiling that
   * bounds the console's memory if the sweep ever stops (a record is at most 4 KiB, most well under
   * 1 KiB: at most 80 MiB, in practice a few).
   */
  readonly maxRecords?: number;
  /** How long one connection attempt waits. Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** Pause between attempts while ZooKeeper does not answer. Default 2 s. */
  readonly retryMs?: number;
  readonly logger: Logger;
  /** Called after every change of anything the view holds. */
  readonly onChange: () => void;
}

/** Default of {@link ZkViewOptions.maxRecords}. */
export const MAX_VIEW_RECORDS = 20_000;

/** How many record reads are in flight at once: the newest are read first, and ZooKeeper is not flooded. */
const RECORD_READS = 64;
/** Pause before reading records again after a read failed for a moment. */
const RECORD_RETRY_MS = 1000;

/** One cluster as the view holds it. */
export interface ClusterEntry {
  readonly name: string;
  /** The failout properties in effect (null: none; undefined: not loaded yet). */
  readonly failout: FailoutProperties | null | undefined;
  /** Announced hosts. */
  readonly hosts: number;
  /** Why the latest write of the document could not be read (the last good one stays in effect). */
  readonly problem: string | undefined;
}

/** The ZooKeeper side of the console. */
export class ZkView {
  private lifecycle: Lifecycle = 'idle';
  private session: ZkSession | undefined;
  private stateValue: ZkViewState = 'connecting';
  private lastError: string | undefined;
  private since = Date.now();
  private readonly watches: Watch[] = [];
  private clusterNames: readonly string[] = [];
  private serviceNames: readonly string[] = [];
  /** Per cluster: its last good failout properties (null: none), hosts, and why the latest write was unreadable. */
  private readonly clusterState = new Map<string, { failout: FailoutProperties | null | undefined; hosts: number; problem: string | undefined; watches: Watch[] }>();
  /** Per service: its home cluster (last good document). */
  private readonly serviceState = new Map<string, { cluster: string | undefined; watch: Watch | undefined }>();
  private readonly records = new Map<string, RequestRecord>();
  /** The records newest first, made again only after the records changed (every render and query reads it). */
  private sortedRecords: RequestRecord[] | undefined;
  private readonly reading = new Set<string>();
  /** The ids to keep (the newest `maxRecords`), and those still to read, newest last (popped first). */
  private recordNames: ReadonlySet<string> = new Set();
  private unread: string[] = [];
  /** Set after a record read failed for a moment (connection loss): reads wait for it to fire, then go on. */
  private recordRetry: NodeJS.Timeout | undefined;
  /** The session being started (`close` closes it), and the pause between attempts (`close` ends it). */
  private connecting: ZkSession | undefined;
  private pause: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  /** The fabric maps and evacuation nodes (fabric-watch.ts), once connected. */
  private fabricWatch: FabricWatch | undefined;
  private drillWatch: DrillWatch | undefined;

  constructor(private readonly options: ZkViewOptions) {}

  /** Starts connecting in the background; does nothing unless latent. */
  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    void this.connectLoop();
  }

  /** The connected (or reconnecting) session, undefined before the first connection. */
  get zkSession(): ZkSession | undefined {
    return this.session;
  }

  /** Connection state, the last connection error, and since when it holds (epoch ms). */
  connection(): { readonly state: ZkViewState; readonly error: string | undefined; readonly since: number } {
    return { state: this.stateValue, error: this.lastError, since: this.since };
  }

  /** Every cluster under `<d2Base>/clusters` (D2 symlinks left out), sorted. */
  clusters(): ClusterEntry[] {
    return this.clusterNames.map((name) => {
      const state = this.clusterState.get(name);
      return { name, failout: state?.failout, hosts: state?.hosts ?? 0, problem: state?.problem };
    });
  }

  /** Every service with its home cluster (`clusterName`), sorted. */
  services(): { readonly name: string; readonly cluster: string | undefined }[] {
    return this.serviceNames.map((name) => ({ name, cluster: this.serviceState.get(name)?.cluster }));
  }

  /** The request records read so far, newest first (history-query.ts `newestFirst`); do not modify. */
  requestRecords(): readonly RequestRecord[] {
    return (this.sortedRecords ??= [...this.records.values()].sort(newestFirst));
  }

  /** The fabric map nodes read so far (decoded, or with why they do not decode). */
  fabricMaps(): FabricMapEntry[] {
    return this.fabricWatch?.fabricMaps() ?? [];
  }

  /** The evacuation nodes read so far, sorted by fabric (one that stopped decoding: as last read well). */
  evacuations(): readonly EvacuationNode[] {
    return this.fabricWatch?.evacuations() ?? [];
  }

  /** The evacuation nodes that do not decode now, each with its problem. */
  unreadableEvacuations(): readonly UnreadableEvacuationEntry[] {
    return this.fabricWatch?.unreadableEvacuations() ?? [];
  }

  /** The drill nodes read so far (decoded, or with why they do not decode), sorted by name. */
  drills(): DrillEntry[] {
    return this.drillWatch?.entries() ?? [];
  }

  /** A record by id, when read. */
  record(requestId: string): RequestRecord | undefined {
    return this.records.get(requestId);
  }

  /** Closes the watches, the state and the session. Safe to call twice. */
  async close(): Promise<void> {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    clearTimeout(this.recordRetry);
    if (this.pause) {
      clearTimeout(this.pause.timer);
      this.pause.resolve();
    }
    // A session still in its handshake is closed too (ZkSession abandons the attempt): no wait for a
    // ZooKeeper that does not answer.
    await this.connecting?.close();
    const watches = [...this.watches.splice(0), ...[...this.clusterState.values()].flatMap((s) => s.watches), ...[...this.serviceState.values()].flatMap((s) => (s.watch ? [s.watch] : []))];
    for (const watch of watches) watch.close();
    this.fabricWatch?.close();
    this.drillWatch?.close();
    await this.session?.close();
  }

  private setState(next: ZkViewState, error?: string): void {
    if (next !== this.stateValue) this.since = Date.now();
    this.stateValue = next;
    this.lastError = error;
    this.options.onChange();
  }

  /** Makes sessions until one connects (ZkSession.start closes a session that did not). */
  private async connectLoop(): Promise<void> {
    const { logger: log } = this.options;
    while (this.lifecycle === 'running') {
      const session = new ZkSession({ connectString: this.options.connectString, tls: this.options.tls, sessionTimeoutMs: 10_000, connectWaitMs: 5000, logger: log });
      this.connecting = session;
      try {
        await session.start(this.options.connectTimeoutMs ?? 5000);
      } catch (err) {
        if (this.lifecycle !== 'running') return;
        this.setState('unreachable', err instanceof Error ? err.message : String(err));
        await new Promise<void>((resolve) => (this.pause = { timer: setTimeout(resolve, this.options.retryMs ?? 2000), resolve }));
        this.pause = undefined;
        continue;
      } finally {
        this.connecting = undefined;
      }
      if (this.lifecycle !== 'running') {
        await session.close();
        return;
      }
      this.attach(session);
      return;
    }
  }

  private attach(session: ZkSession): void {
    this.session = session;
    session.on((event) => {
      if (event !== 'reset') this.setState(event);
    });
    this.setState('connected');
    const base = this.options.d2Base;
    this.watchNames(session, clusterPath(base), (children) => {
      // A D2 symlink (`$FooClusterMaster`) holds the path of a cluster, not a cluster of its own.
      const names = children.filter((name) => !isSymlinkName(name));
      for (const name of names) if (!this.clusterState.has(name)) this.followCluster(session, name);
      for (const gone of this.clusterNames.filter((n) => !names.includes(n))) {
        this.clusterState.get(gone)?.watches.forEach((w) => w.close());
        this.clusterState.delete(gone);
      }
      this.clusterNames = names;
    });
    this.watchNames(session, servicePath(base), (names) => {
      for (const name of names) if (!this.serviceState.has(name)) this.followService(session, name);
      for (const gone of this.serviceNames.filter((n) => !names.includes(n))) {
        this.serviceState.get(gone)?.watch?.close();
        this.serviceState.delete(gone);
      }
      this.serviceNames = names;
    });
    this.watchNames(session, this.options.requestsBase, (names) => this.onRecordNames(session, names));
    this.fabricWatch = new FabricWatch(session, { fabricsBase: this.options.fabricsBase, evacuationsBase: this.options.evacuationsBase, logger: this.options.logger, onChange: this.options.onChange });
    if (this.options.drillsBase !== undefined) this.drillWatch = new DrillWatch(session, { drillsBase: this.options.drillsBase, onChange: this.options.onChange });
  }

  /** A cluster's document (failout properties, last good kept) and its announced hosts (children of its URI node). */
  private followCluster(session: ZkSession, name: string): void {
    const state: { failout: FailoutProperties | null | undefined; hosts: number; problem: string | undefined; watches: Watch[] } = { failout: undefined, hosts: 0, problem: undefined, watches: [] };
    this.clusterState.set(name, state);
    const base = this.options.d2Base;
    state.watches.push(
      session.watchData(
        clusterPath(base, name),
        (node) => {
          const parsed = this.parse(node, (text) => parseClusterProperties(text).failoutProperties);
          if (parsed.ok) {
            state.failout = parsed.value ?? null;
            state.problem = undefined;
          } else state.problem = parsed.problem;
          this.options.onChange();
        },
        // A node this session may not read (noAuth) is said on its card, in the words of `failout status`;
        // without this the card would stay "loading…" for ever.
        (err) => {
          state.problem = unreadableProblem(err);
          this.options.onChange();
        },
      ),
      session.watchChildren(urisPath(base, name), (children) => {
        state.hosts = children.exists ? children.children.length : 0;
        this.options.onChange();
      }),
    );
  }

  /** A service's home cluster (`clusterName`; last good kept). */
  private followService(session: ZkSession, name: string): void {
    const entry: { cluster: string | undefined; watch: Watch | undefined } = { cluster: undefined, watch: undefined };
    this.serviceState.set(name, entry);
    entry.watch = session.watchData(servicePath(this.options.d2Base, name), (node) => {
      const parsed = this.parse(node, (text) => parseServiceProperties(text).clusterName);
      if (parsed.ok) entry.cluster = parsed.value;
      this.options.onChange();
    });
  }

  /** Reads a watched document with a codec: absent → undefined; unreadable → the problem (the caller keeps the last good value). */
  private parse<T>(node: DataState, read: (text: string) => T): { ok: true; value: T | undefined } | { ok: false; problem: string } {
    if (!node.exists) return { ok: true, value: undefined };
    try {
      return { ok: true, value: read(node.data.toString('utf8')) };
    } catch (err) {
      return { ok: false, problem: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Watches a directory's children (absent directory: none). */
  private watchNames(session: ZkSession, path: string, apply: (names: readonly string[]) => void): void {
    const watch = session.watchChildren(path, (children) => {
      apply(children.exists ? [...children.children].sort() : []);
      this.options.onChange();
    });
    this.watches.push(watch);
  }

  /**
   * Records are written once and never change: each new child is read once, the newest first, at most
   * {@link RECORD_READS} at a time (5,000 reads at once would hold every other watch up). Only the
   * newest `maxRecords` (by the time in their UUIDv7 id, else by name) are read and kept.
   */
  private onRecordNames(session: ZkSession, names: readonly string[]): void {
    const max = this.options.maxRecords ?? MAX_VIEW_RECORDS;
    const newest = names
      .filter((n) => isValidRequestId(n))
      .map((id) => ({ id, at: requestIdTime(id) ?? 0 }))
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
      .slice(0, max)
      .map((e) => e.id);
    this.recordNames = new Set(newest);
    for (const id of [...this.records.keys()]) {
      if (this.recordNames.has(id)) continue;
      this.records.delete(id);
      this.sortedRecords = undefined;
    }
    this.unread = newest.filter((id) => !this.records.has(id) && !this.reading.has(id)).reverse();
    this.readRecords(session);
  }

  /**
   * Starts reads of the unread records until {@link RECORD_READS} are in flight; none while a retry is
   * pending. A read that fails for a moment (connection loss, session expiry) puts its id back and
   * pauses the reads for {@link RECORD_RETRY_MS}: the children watch will not tell these names again,
   * so a record dropped here would be missing from the history until some other record arrived.
   */
  private readRecords(session: ZkSession): void {
    if (this.recordRetry !== undefined) return;
    while (this.reading.size < RECORD_READS && this.unread.length > 0) {
      const id = this.unread.pop()!;
      if (this.records.has(id) || this.reading.has(id) || !this.recordNames.has(id)) continue;
      this.reading.add(id);
      session
        .get(`${this.options.requestsBase.replace(/\/+$/, '')}/${id}`)
        .then(
          ({ data }) => {
            try {
              if (this.recordNames.has(id)) {
                this.records.set(id, decodeRequestRecord(data));
                this.sortedRecords = undefined;
              }
            } catch (err) {
              // A node under the records path that is no record: not shown, said in the log.
              this.options.logger.warn({ err, id }, 'console: unreadable request record');
            }
            this.options.onChange();
          },
          (err: unknown) => {
            // Gone (pruned) or never readable by this session: nothing to read again.
            if (isZkError(err, 'noNode') || isZkError(err, 'noAuth')) {
              this.options.logger.warn({ err, id }, 'console: could not read a request record');
              return;
            }
            this.unread.push(id);
            if (this.recordRetry !== undefined || this.lifecycle !== 'running') return;
            this.options.logger.warn({ err, id }, 'console: could not read a request record; reading the records again shortly');
            this.recordRetry = setTimeout(() => {
              this.recordRetry = undefined;
              if (this.lifecycle === 'running') this.readRecords(session);
            }, RECORD_RETRY_MS);
            this.recordRetry.unref();
          },
        )
        .finally(() => {
          this.reading.delete(id);
          if (this.lifecycle === 'running') this.readRecords(session);
        });
    }
  }
}
