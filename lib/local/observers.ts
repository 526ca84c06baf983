/**
 * The local stack's two D2 observers (issue 25): each a `launchObserver` process part, as `failout
 * observer` and the Fargate task start one, on 127.0.0.1 and ports picked once at start, so that a
 * killed observer comes back on the same address (as a fabric's NLB name stays the same while its
 * tasks are replaced). Observer 1 stands for the clients' own fabric, observer 2 for another fabric's:
 * the bootstrap lists them in that order, and lib/xds falls back from the first to the second (gRFC A71).
 */
import { launchObserver, type LaunchedObserver } from '../observer';
import type { Logger } from '../logging';
import { onFreePorts, PortInUseError, portTaken } from './net';

/** Which observer: 1 is the clients' own fabric's, 2 the fallback. */
export type ObserverNumber = 1 | 2;

/** An observer slot's state. */
export type ObserverState = 'starting' | 'serving' | 'stopping' | 'stopped' | 'closed';

/** One observer as the status line and the live view show it. */
export interface ObserverView {
  /** `observer-1`, `observer-2`. */
  readonly name: string;
  /** `127.0.0.1:<port>`: the `server_uri` in the bootstrap. */
  readonly address: string;
  /** `http://127.0.0.1:<port>`: its admin HTTP (`/status`, `/metrics`). */
  readonly adminUrl: string;
  /** `serving` or `stopped` (or `starting`/`stopping` while a key's action runs). */
  readonly state: ObserverState;
  /** Open ADS streams (0 while stopped). */
  readonly streams: number;
}

/** Options of {@link LocalObservers.start}. */
export interface LocalObserversOptions {
  readonly connectString: string;
  /** The D2 tree served; default `/d2` (tests give one of their own). */
  readonly basePath?: string;
  readonly logger: Logger;
}

/** One observer slot: fixed ports, and the running process part while it serves. */
interface Slot {
  /** Picked again only while the slot's first start finds a port taken; fixed from then on. */
  grpcPort: number;
  adminPort: number;
  running: LaunchedObserver | undefined;
  /** Edges: stopped → starting → serving → stopping → stopped; any → closed by `close()`. */
  state: ObserverState;
}

/**
 * Two observers over the stack's ZooKeeper. Lifecycle: `start` → running → `close` (once).
 * Concurrency: event loop only; a slot's `state` is checked before each transition (CAS style),
 * so a key pressed twice while an observer stops or starts does nothing.
 */
export class LocalObservers {
  private constructor(
    private readonly options: LocalObserversOptions,
    private readonly slots: readonly [Slot, Slot],
  ) {}

  /** Starts both observers on free loopback ports; on a failure stops what started and rethrows. */
  static async start(options: LocalObserversOptions): Promise<LocalObservers> {
    const slot = (): Slot => ({ grpcPort: 0, adminPort: 0, running: undefined, state: 'stopped' });
    const observers = new LocalObservers(options, [slot(), slot()]);
    try {
      await observers.firstStart(1);
      await observers.firstStart(2);
    } catch (err) {
      await observers.close();
      throw err;
    }
    return observers;
  }

  /** `127.0.0.1:<port>` of observer `n`'s ADS endpoint (the same across restarts). */
  address(n: ObserverNumber): string {
    return `127.0.0.1:${this.slot(n).grpcPort}`;
  }

  /** `http://127.0.0.1:<port>` of observer `n`'s admin HTTP. */
  adminUrl(n: ObserverNumber): string {
    return `http://127.0.0.1:${this.slot(n).adminPort}`;
  }

  /** Whether observer `n` serves now. */
  serving(n: ObserverNumber): boolean {
    return this.slot(n).state === 'serving';
  }

  /** `1` or `2` for a bootstrap `server_uri` (as an xDS client's dump names its active server). */
  numberOf(serverUri: string | undefined): ObserverNumber | undefined {
    if (serverUri === this.address(1)) return 1;
    if (serverUri === this.address(2)) return 2;
    return undefined;
  }

  /**
   * The gRPC xDS bootstrap the stack's clients read D2 data with (docs/observer.md "The bootstrap
   * services use"): observer 1 first (own fabric), observer 2 as the fallback. The probe cap is 1 s,
   * as the bridges', so that the return to observer 1 shows within a second or two of its restart.
   * `failout_delta_ads`: the observers serve incremental ADS, so a name that does not exist is known
   * at once (`removed_resources`) instead of after the 15 s does-not-exist timer.
   */
  bootstrap(nodeId: string): Record<string, unknown> {
    return {
      xds_servers: ([1, 2] as const).map((n) => ({ server_uri: this.address(n), channel_creds: [{ type: 'insecure' }], server_features: ['failout_delta_ads'] })),
      node: { id: nodeId, cluster: 'failout-local', locality: { zone: 'lor1' } },
      // Replicas of one view: fall back as soon as observer-1 dies, cached or not (lib/xds, issue 25).
      failout: { fallbackProbeCapMs: 1000, fallbackWhenCached: true },
    };
  }

  /** Both observers as the view lists them. */
  views(): ObserverView[] {
    return ([1, 2] as const).map((n) => {
      const slot = this.slot(n);
      const streams = slot.state === 'serving' ? (slot.running?.observer.status().streams ?? 0) : 0;
      return { name: `observer-${n}`, address: this.address(n), adminUrl: this.adminUrl(n), state: slot.state, streams };
    });
  }

  /**
   * Kills observer `n`: its ADS streams end with UNAVAILABLE and its port is refused until
   * {@link startObserver}. A no-op unless it serves.
   */
  async stopObserver(n: ObserverNumber): Promise<void> {
    const slot = this.slot(n);
    if (slot.state !== 'serving') return;
    slot.state = 'stopping';
    try {
      await slot.running?.close();
    } finally {
      slot.running = undefined;
      if (slot.state === 'stopping') slot.state = 'stopped';
    }
  }

  /** Starts observer `n` again on its ports (a no-op unless it is stopped). */
  async startObserver(n: ObserverNumber): Promise<void> {
    const slot = this.slot(n);
    if (slot.state !== 'stopped') return;
    slot.state = 'starting';
    try {
      // The same variables as `failout observer` and the Fargate task read: the one launch path.
      const launched = await launchObserver(
        {
          ZK_CONNECT: this.options.connectString,
          D2_BASE_PATH: this.options.basePath,
          OBSERVER_GRPC_HOST: '127.0.0.1',
          OBSERVER_GRPC_PORT: String(slot.grpcPort),
          OBSERVER_ADMIN_HOST: '127.0.0.1',
          OBSERVER_ADMIN_PORT: String(slot.adminPort),
        },
        { logger: this.options.logger.child({ component: `observer-${n}` }) },
      );
      // Closed while it started: release it at once.
      if (slot.state !== 'starting') {
        await launched.close();
        return;
      }
      slot.running = launched;
      slot.state = 'serving';
    } catch (err) {
      if (slot.state === 'starting') slot.state = 'stopped';
      throw err;
    }
  }

  /**
   * Starts observer `n` on free ports, on others when one was taken between the pick and the bind
   * (its ports stay the same across restarts after that: the bootstrap names them).
   */
  private async firstStart(n: ObserverNumber): Promise<void> {
    const slot = this.slot(n);
    await onFreePorts(2, async ([grpcPort, adminPort]) => {
      slot.grpcPort = grpcPort!;
      slot.adminPort = adminPort!;
      try {
        await this.startObserver(n);
      } catch (err) {
        if ((await portTaken(grpcPort!)) || (await portTaken(adminPort!))) throw new PortInUseError(`observer-${n}: port ${grpcPort} or ${adminPort} was taken`, err);
        throw err;
      }
    });
  }

  /** Stops observer `n` when it serves, starts it when stopped; returns what it did. */
  async toggle(n: ObserverNumber): Promise<'stopped' | 'started'> {
    if (this.serving(n)) {
      await this.stopObserver(n);
      return 'stopped';
    }
    await this.startObserver(n);
    return 'started';
  }

  /** Stops both. Idempotent. */
  async close(): Promise<void> {
    const running = this.slots.map((slot) => slot.running);
    for (const slot of this.slots) {
      slot.running = undefined;
      slot.state = 'closed';
    }
    await Promise.all(running.map((r) => r?.close()));
  }

  private slot(n: ObserverNumber): Slot {
    return this.slots[n - 1]!;
  }
}
