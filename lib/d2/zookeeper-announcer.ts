import { aclFromGrants, digestId, isZkError, ZkError, type AclEntry, type AclRoles, type DigestCredential, type SessionEvent, type ZkSession } from '../zk';
import { createLogger, type Logger } from '../logging';
import type { Lifecycle } from '../lifecycle';
import { URI_NODE_GRANTS } from './acl-grants';
import { parseUriProperties, serializeUriProperties } from './codecs/uri';
import { assertIsError, D2Error } from './errors';
import type { PartitionWeights, UriProperties } from './model';
import { assertNodeName, normalizeBasePath, urisPath } from './paths';

/** Options for {@link ZooKeeperAnnouncer}. */
export interface ZooKeeperAnnouncerOptions {
  /** The session the ephemeral node lives in; shared, not owned (`close()` leaves it open). Re-announces on its `reset`. */
  readonly session: ZkSession;
  /** The cluster this server belongs to: it announces under `<base>/uris/<cluster>`. */
  readonly cluster: string;
  /** The URI clients send to, e.g. `http://10.0.0.7:8080` (a path is allowed and kept). */
  readonly uri: string;
  /** Weight of partition 0. Default 1.0; ignored when `partitions` is given. */
  readonly weight?: number;
  /** Partition id → weight, for partitioned clusters. */
  readonly partitions?: PartitionWeights;
  /** This URI's `uriSpecificProperties` (`doNotSlowStart`, `doNotLoadBalance`, application keys). */
  readonly uriSpecificProperties?: Record<string, unknown>;
  /** D2 base path; default `/d2`. */
  readonly basePath?: string;
  /** Child name prefix; ZooKeeper appends a 10-digit counter. Default rest.li's (misspelled) `ephemoral`. */
  readonly prefix?: string;
  /** Default a `d2-announcer` logger from `createLogger`. */
  readonly logger?: Logger;
  /**
   * The announcer identity's digest credential (docs/deployers.md "Access control"): added to the session (see
   * `ZkSession.addCredential`; everyone using the session then acts with it), so that the announcer
   * may create and delete children of `<base>/uris/<cluster>` on a secured tree. Without one the
   * session's own credentials are used (none: only an open cluster directory lets it announce).
   */
  readonly credential?: DigestCredential;
  /**
   * The other roles' identities (digest ids), for the announcement node's ACL: the policy's
   * `<base>/uris/<cluster>/<child>` row (everyone reads, the bridge may write, the admin everything).
   * Default none: everyone may read it, nobody change it; it goes with the session.
   */
  readonly aclRoles?: AclRoles;
}

/** What the announcer is asked to be: `up` (announced, and re-announced after a new session), `down`, `closed`. */
export type AnnouncerTarget = 'down' | 'up' | 'closed';

/**
 * A server's announcement in D2 (rest.li `ZooKeeperAnnouncer` + `ZooKeeperServer`): `markUp()` creates an
 * ephemeral sequential child `<base>/uris/<cluster>/ephemoral-NNNNNNNNNN` holding this one URI's
 * properties; `markDown()` deletes it. The node dies with the session, so after the session's `reset`
 * (a new session following expiry or loss) an announcer that is up announces again.
 *
 * As in rest.li, `markUp` and `markDown` first delete every ephemeral child that carries this URI: a
 * node of the previous session that the server has not expired yet, or one whose create succeeded
 * although its reply was lost, would otherwise keep announcing a host that marked itself down.
 * Persistent children (the bridge's) are never touched.
 *
 * The announcement is created with its ACL from the one access table (its `uri` row, `URI_NODE_GRANTS`), never an open one.
 * The cluster directory must exist: on a secured tree announcers may not create it (no CREATE on
 * `<base>/uris`); the bridge creates it when the cluster has endpoints, or the admin with
 * `failout zk secure --cluster <name>`. A missing directory fails `markUp` with ZkError `noNode`.
 *
 * Concurrency: operations run one at a time on a promise queue; `target` changes only in the public
 * calls, `nodePath` only inside queued operations.
 */
export class ZooKeeperAnnouncer {
  private readonly session: ZkSession;
  private readonly directory: string;
  private readonly data: Buffer;
  /** The ACL of each announcement node (fixed: the path differs only in the sequence number). */
  private readonly acl: readonly AclEntry[];
  private readonly prefix: string;
  private readonly log: Logger;
  private readonly unsubscribe: () => void;
  private targetValue: AnnouncerTarget = 'down';
  private path: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ZooKeeperAnnouncerOptions) {
    this.session = options.session;
    this.directory = urisPath(options.basePath, options.cluster);
    this.prefix = options.prefix ?? 'ephemoral';
    assertNodeName(`${this.prefix}-`, 'announcement prefix');
    this.log = options.logger ?? createLogger('d2-announcer');
    const properties: UriProperties = {
      clusterName: options.cluster,
      partitionDesc: { [options.uri]: options.partitions ?? { 0: options.weight ?? 1 } },
      uriSpecificProperties: options.uriSpecificProperties ? { [options.uri]: options.uriSpecificProperties } : {},
    };
    // Serialized once: a bad URI or weight fails here, as a malformed D2Error, not at markUp time.
    this.data = Buffer.from(serializeUriProperties(properties), 'utf8');
    parseUriProperties(this.data);
    const announcer = options.credential ? [digestId(options.credential.user, options.credential.password)] : [];
    const roles: AclRoles = { ...options.aclRoles, announcer: [...(options.aclRoles?.announcer ?? []), ...announcer] };
    // The access table has no layout with D2 at the root (its ACLs would cover the whole ensemble).
    if (normalizeBasePath(options.basePath) === '') throw new ZkError('other', 'layout path "" is not absolute');
    this.acl = aclFromGrants(URI_NODE_GRANTS, roles);
    if (options.credential) this.session.addCredential(options.credential);
    this.unsubscribe = this.session.on((event) => this.onSessionEvent(event));
  }

  /** What the announcer was last asked to be. */
  get target(): AnnouncerTarget {
    return this.targetValue;
  }

  /** `running` from construction, `closed` after {@link close} (from the target: one state, not two). */
  get lifecycle(): Lifecycle {
    return this.targetValue === 'closed' ? 'closed' : 'running';
  }

  /** The announcement node while announced in the current session, else undefined. */
  get nodePath(): string | undefined {
    return this.path;
  }

  /** The URI being announced. */
  get uri(): string {
    return this.options.uri;
  }

  /**
   * Announces this URI (replacing any ephemeral announcement of it); resolves the node's path. Stays up:
   * after a new session it announces again by itself.
   * @throws ZkError when ZooKeeper cannot be reached (the announcer still retries on the next connect).
   */
  async markUp(): Promise<string> {
    this.assertOpen();
    this.targetValue = 'up';
    return this.enqueue(async () => {
      await this.removeAnnouncements();
      return this.announce();
    });
  }

  /** Withdraws this URI: deletes its ephemeral announcements. */
  async markDown(): Promise<void> {
    this.assertOpen();
    this.targetValue = 'down';
    await this.enqueue(() => this.removeAnnouncements());
  }

  /**
   * Marks down (when up and the session is usable) and stops following the session. The session stays
   * open; closing it would withdraw the node anyway. Safe to call twice.
   */
  async close(): Promise<void> {
    if (this.targetValue === 'closed') return;
    const wasUp = this.targetValue === 'up' || this.path !== undefined;
    this.targetValue = 'closed';
    this.unsubscribe();
    if (!wasUp || this.session.state === 'closed') return;
    await this.enqueue(() => this.removeAnnouncements()).catch((err: unknown) => {
      this.log.warn({ err, uri: this.options.uri }, 'could not withdraw the announcement on close; it goes with the session');
    });
  }

  private onSessionEvent(event: SessionEvent): void {
    if (event === 'reset') {
      // The old session's ephemeral node is gone (or about to be): the path no longer means anything.
      this.path = undefined;
    }
    if ((event === 'reset' || event === 'connected') && this.targetValue === 'up') {
      void this.enqueue(() => this.reconcile()).catch((err: unknown) => {
        this.log.warn({ err, uri: this.options.uri }, 're-announcement failed; retrying on the next connect');
      });
    }
  }

  /** Announces again when up and not announced in this session (after reset, or a failed markUp). */
  private async reconcile(): Promise<void> {
    if (this.targetValue !== 'up' || this.path !== undefined) return;
    await this.removeAnnouncements();
    await this.announce();
    this.log.info({ uri: this.options.uri, path: this.path }, 're-announced after a new ZooKeeper session');
  }

  private async announce(): Promise<string> {
    // No `parents`: announcers never create the cluster directory (see the class doc).
    const path = await this.session.create(`${this.directory}/${this.prefix}-`, this.data, { mode: 'ephemeralSequential', acl: this.acl });
    this.path = path;
    return path;
  }

  /** Deletes every ephemeral child of the cluster that announces this URI (rest.li markDown). */
  private async removeAnnouncements(): Promise<void> {
    this.path = undefined;
    let children: string[];
    try {
      children = (await this.session.children(this.directory)).children;
    } catch (err) {
      if (isZkError(err, 'noNode')) return;
      throw err;
    }
    await Promise.all(children.map((child) => this.removeIfOurs(`${this.directory}/${child}`)));
  }

  private async removeIfOurs(path: string): Promise<void> {
    try {
      const { data, stat } = await this.session.get(path);
      if (stat.ephemeralOwner === 0n || !this.announcesUs(data)) return;
      await this.session.remove(path, stat.version);
    } catch (err) {
      assertIsError(err);
      // Gone meanwhile, or changed (then it is not the node we read): either way not ours to delete now.
      if (!isZkError(err, 'noNode', 'badVersion')) throw err;
    }
  }

  private announcesUs(data: Buffer): boolean {
    try {
      return Object.hasOwn(parseUriProperties(data).partitionDesc, this.options.uri);
    } catch {
      return false; // an unreadable child is not ours: we only ever write readable ones
    }
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private assertOpen(): void {
    if (this.targetValue === 'closed') throw new D2Error('closed', 'announcer is closed');
  }
}
