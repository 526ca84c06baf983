/**
 * The xDS → ZooKeeper bridge (ARCHITECTURE.md "Bridge"): follows the configured services over xDS
 * (with the A71 fallback of lib/xds), and — while it leads — keeps their D2 data in ZooKeeper.
 *
 * High availability: every replica runs the resolver, so a standby's xDS cache is warm. Leadership
 * comes from {@link LeaderElection}; each write batch is fenced on it (`fencedMulti`), so a replica
 * that lost its session cannot write. On taking over, a leader syncs the full state once (reading
 * ZooKeeper afresh), then writes only what changes.
 *
 * Concurrency: event-loop only. `config`, `session`, `client`, `resolver`, `sync`, `election` and
 * `metrics` are fixed after `start`; `roleValue` and `fullSyncDone` change in `takeOver`/`standDown`/`close`.
 */
import { clusterPath, servicePath, urisPath } from '../d2/data';
import { createLogger, type Logger } from '../logging';
import { buildClientStatusResponse, clientStatusJson, createXdsClient, type ClientStatusResponse, type XdsClient, type XdsClientDump } from '../xds';
import { LeaderElection, ZkSession } from '../zk';
import { prepareBridgeAccess } from './access';
import { AdminGrpcServer } from './admin-grpc-server';
import { AdminServer, type AdminSource } from './admin-server';
import type { BridgeConfig } from './config';
import { D2Sync, type SyncStats } from './d2-sync';
import type { NodeAcl } from './diff';
import { assertIsError } from './errors';
import { BridgeMetrics, fallbackActive } from './metrics';
import type { EntityKey } from './model';
import { XdsResolver } from './resolver';
import { entityTarget } from './targets';
import type { Lifecycle } from '../lifecycle';

/** Options of {@link XdsBridge.start}. */
export interface XdsBridgeOptions {
  readonly config: BridgeConfig;
  /** A started session to use instead of connecting one (tests); the bridge closes it in `close()`. */
  readonly session?: ZkSession;
  /** Serve the admin endpoints, HTTP and (unless `config.admin.grpcPort` is undefined) gRPC (default true). */
  readonly admin?: boolean;
  readonly logger?: Logger;
}

/** `starting` → `standby` ⇄ `leader` → `closed`; the bridge's lifecycle derives from it. */
export type BridgeRole = 'starting' | 'standby' | 'leader' | 'closed';

/** `/status`. */
export interface BridgeStatus {
  readonly replicaId: string;
  readonly role: BridgeRole;
  readonly healthy: boolean;
  readonly ready: boolean;
  readonly authorities: readonly {
    authority: string;
    activeServer: string | undefined;
    fallbackActive: boolean;
    servers: XdsClientDump['authorities'][number]['servers'];
    resources: number;
  }[];
  readonly services: readonly { name: string; state: string; clusters: readonly string[]; error: string | undefined }[];
  readonly clusters: readonly { name: string; xdsName: string; cds: string; eds: string; endpoints: number }[];
  readonly sync: SyncStats & { readonly lagMs: number };
  readonly zookeeper: { readonly state: string; readonly sessionId: string | undefined };
}

/** A running bridge replica. */
export class XdsBridge {
  private roleValue: BridgeRole = 'starting';
  private fullSyncDone = false;
  private admin: AdminServer | undefined;
  private adminGrpc: AdminGrpcServer | undefined;
  private readonly resolver: XdsResolver;
  private readonly sync: D2Sync;
  private readonly election: LeaderElection;
  readonly metrics: BridgeMetrics;

  private constructor(
    readonly config: BridgeConfig,
    private readonly session: ZkSession,
    private readonly client: XdsClient,
    private readonly log: Logger,
    /** The ACL of every node this replica creates (see `access.ts`). */
    private readonly acl: NodeAcl,
  ) {
    this.metrics = new BridgeMetrics({
      dump: () => this.client.dump(),
      isLeader: () => this.roleValue === 'leader',
      pendingLagSeconds: () => this.lagMs() / 1000,
    });
    this.resolver = new XdsResolver({
      client,
      services: config.services,
      onChange: (keys) => keys.forEach((key) => this.sync.markDirty(key)),
      onError: (resource, error, ambient) => this.log.warn({ resource, kind: error.kind, ambient, err: error }, 'xDS error; keeping the last good data'),
    });
    this.sync = new D2Sync({
      session,
      basePath: config.zookeeper.basePath,
      budget: config.writeBudget,
      write: (ops) => this.election.fencedMulti(ops),
      target: (key: EntityKey) => entityTarget(key, this.resolver, config),
      acl,
      hooks: {
        onBatch: (ops) => this.metrics.batchWritten(ops),
        onFailure: (kind) => this.metrics.writeFailed(kind),
        onSynced: (_key, lagMs) => this.metrics.synced(lagMs),
      },
      logger: log,
    });
    this.election = new LeaderElection(session, { path: config.zookeeper.electionPath, participantId: config.replicaId, acl, logger: log });
    this.election.on('leader', () => void this.takeOver());
    this.election.on('notLeader', () => this.standDown());
    client.on('serverSwitch', (e) => {
      this.metrics.serverSwitched(e.authority, e.reason);
      this.log.warn({ authority: e.authority, from: e.from.serverUri, to: e.to.serverUri, reason: e.reason }, 'xDS server switch');
    });
  }

  /**
   * Starts a replica: connects ZooKeeper (unless a session is given), starts the xDS watches, joins
   * the election and serves the admin endpoints. Resolves once it stands by or leads.
   */
  static async start(options: XdsBridgeOptions): Promise<XdsBridge> {
    const { config } = options;
    const log = options.logger ?? createLogger('xds-bridge');
    const session =
      options.session ??
      new ZkSession({ connectString: config.zookeeper.connectString, sessionTimeoutMs: config.zookeeper.sessionTimeoutMs, credentials: config.zookeeper.credentials, tls: config.zookeeper.tls, logger: log });
    if (!options.session) await session.start();
    let acl: NodeAcl;
    try {
      // Before anything is written: refuses without a credential or on an open tree (unless allowOpenAcl).
      acl = await prepareBridgeAccess(session, config, log);
    } catch (err) {
      await session.close();
      throw err;
    }
    const client = createXdsClient({ bootstrap: config.bootstrap, watchExpiryMs: config.watchExpiryMs, fallbackProbeCapMs: config.fallbackProbeCapMs });
    const bridge = new XdsBridge(config, session, client, log, acl);
    try {
      if (options.admin ?? true) {
        bridge.admin = await AdminServer.start({ ...config.admin, source: bridge.adminSource() });
        const { host, grpcPort, token } = config.admin;
        if (grpcPort !== undefined) bridge.adminGrpc = await AdminGrpcServer.start({ host, port: grpcPort, token, clients: () => [client] });
      }
      bridge.resolver.start();
      if (bridge.roleValue === 'starting') bridge.roleValue = 'standby';
      await bridge.election.start();
    } catch (err) {
      await bridge.close();
      throw err;
    }
    return bridge;
  }

  /** This replica's role now. */
  get role(): BridgeRole {
    return this.roleValue;
  }

  /** `idle` while starting, `running` while standing by or leading, `closed` after {@link close} (derived from {@link role}). */
  get lifecycle(): Lifecycle {
    if (this.roleValue === 'starting') return 'idle';
    return this.roleValue === 'closed' ? 'closed' : 'running';
  }

  /** The admin server's port (undefined without one). */
  get adminPort(): number | undefined {
    return this.admin?.port;
  }

  /** The gRPC admin server's port, serving CSDS (undefined without one). */
  get adminGrpcPort(): number | undefined {
    return this.adminGrpc?.port;
  }

  /**
   * Healthy: running with a usable ZooKeeper session. A session closed under a running bridge cannot
   * come back (a new one is made only after expiry), so the process should be replaced.
   */
  get healthy(): boolean {
    return this.roleValue !== 'closed' && this.session.state !== 'closed';
  }

  /** Ready: leading with the first full sync done, or standing by with a warm xDS cache. */
  get ready(): boolean {
    if (this.roleValue === 'leader') return this.fullSyncDone && this.resolver.isWarm();
    return this.roleValue === 'standby' && this.resolver.isWarm();
  }

  /** Sync counters. */
  syncStats(): SyncStats {
    return this.sync.stats();
  }

  /** Resolves when nothing is waiting to be written (or this replica does not write). */
  whenSynced(): Promise<void> {
    return this.sync.whenIdle();
  }

  /** `/status`. */
  status(): BridgeStatus {
    const dump = this.client.dump();
    return {
      replicaId: this.config.replicaId,
      role: this.roleValue,
      healthy: this.healthy,
      ready: this.ready,
      authorities: dump.authorities.map((a) => ({ authority: a.authority, activeServer: a.activeServer, fallbackActive: fallbackActive(a), servers: a.servers, resources: a.resources.length })),
      services: this.resolver.serviceViews().map((s) => ({
        name: s.config.name,
        state: s.route.state,
        clusters: s.route.state === 'resolved' ? s.route.value.clusters.map((c) => c.name) : [],
        error: s.lastError,
      })),
      clusters: this.resolver.clusterViews().map((c) => ({ name: c.d2Name, xdsName: c.xdsName, cds: c.cds.state, eds: c.eds.state, endpoints: c.eds.state === 'resolved' ? c.eds.value.length : 0 })),
      sync: { ...this.sync.stats(), lagMs: this.lagMs() },
      zookeeper: { state: this.session.state, sessionId: this.session.sessionId },
    };
  }

  /**
   * What the xDS client knows, as CSDS reports it (gRFC A40): the one `ClientStatusResponse` that the
   * gRPC admin port serves and `/config_dump` renders as JSON.
   */
  configDump(): ClientStatusResponse {
    return buildClientStatusResponse([this.client.dump()]);
  }

  /**
   * Closes: gives up leadership (the candidate node goes at once, so a standby takes over without
   * waiting for a session timeout), closes the xDS streams, the admin server and the session.
   */
  async close(): Promise<void> {
    if (this.roleValue === 'closed') return;
    this.roleValue = 'closed';
    this.sync.close();
    this.resolver.close();
    await this.election.close().catch((err: unknown) => this.log.warn({ err }, 'leaving the election failed'));
    this.client.close();
    this.adminGrpc?.close();
    await this.admin?.close();
    await this.session.close();
  }

  private lagMs(): number {
    const oldest = this.sync.stats().oldestPendingAt;
    return this.roleValue === 'leader' && oldest !== undefined ? Date.now() - oldest : 0;
  }

  private async takeOver(): Promise<void> {
    if (this.roleValue === 'closed') return;
    this.roleValue = 'leader';
    this.fullSyncDone = false;
    this.log.info({ replicaId: this.config.replicaId }, 'leading: full sync');
    try {
      const base = this.config.zookeeper.basePath;
      for (const dir of [servicePath(base), clusterPath(base), urisPath(base)]) await this.session.ensurePath(dir, this.acl);
    } catch (err) {
      assertIsError(err);
      this.log.warn({ err }, 'could not ensure the D2 directories; the sync retries');
    }
    await this.sync.activate(this.resolver.entityKeys());
    if (this.roleValue === 'leader' && this.sync.lifecycle === 'running') this.fullSyncDone = true;
  }

  private standDown(): void {
    if (this.roleValue !== 'leader') return;
    this.roleValue = 'standby';
    this.fullSyncDone = false;
    this.sync.pause();
    this.log.warn({ replicaId: this.config.replicaId }, 'standing by: leadership lost');
  }

  private adminSource(): AdminSource {
    return {
      healthy: () => this.healthy,
      ready: () => this.ready,
      status: () => this.status(),
      configDump: () => clientStatusJson(this.configDump()),
      metrics: async () => ({ contentType: this.metrics.contentType, text: await this.metrics.text() }),
    };
  }
}

