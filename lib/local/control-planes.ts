/**
 * The local stack's two xDS management servers (primary, fallback), fed the same sample topology, as
 * two control planes sharing one source of truth would be. A stopped server keeps receiving snapshots
 * and serves the latest when it starts again.
 */
import { EDS_TYPE_URL } from '../xds/envoy-protos';
import { XdsManagementServer } from '../xds/server';
import { LOCAL_CLUSTER, type Backend, type SampleTopology } from './topology';

/** Which control plane. */
export type ControlPlaneName = 'primary' | 'fallback';

/** Options of {@link ControlPlanes.start}. */
export interface ControlPlanesOptions {
  readonly topology: SampleTopology;
  /** Fixed ports; restart-safe free ports when absent. */
  readonly primaryPort?: number;
  readonly fallbackPort?: number;
}

/** Primary and fallback management servers serving one {@link SampleTopology}. */
export class ControlPlanes {
  private constructor(
    readonly topology: SampleTopology,
    readonly primary: XdsManagementServer,
    readonly fallback: XdsManagementServer,
  ) {}

  static async start(options: ControlPlanesOptions): Promise<ControlPlanes> {
    const primary = await XdsManagementServer.start({ port: options.primaryPort, recordResourceNames: false });
    const fallback = await XdsManagementServer.start({ port: options.fallbackPort, recordResourceNames: false }).catch(async (err: unknown) => {
      await primary.close();
      throw err;
    });
    const planes = new ControlPlanes(options.topology, primary, fallback);
    planes.publish();
    return planes;
  }

  /** `primary` or `fallback` for a server URI (as the bridge reports its active server). */
  nameOf(serverUri: string | undefined): ControlPlaneName | undefined {
    if (serverUri === this.primary.uri) return 'primary';
    if (serverUri === this.fallback.uri) return 'fallback';
    return undefined;
  }

  get primaryServing(): boolean {
    return this.primary.lifecycle === 'running';
  }

  /** Publishes the topology's current snapshot on both servers (a stopped one serves it when back). */
  publish(): void {
    const snapshot = this.topology.snapshot();
    this.primary.setSnapshot('*', snapshot);
    this.fallback.setSnapshot('*', snapshot);
  }

  /**
   * Stops the primary in the middle of a rollout: the topology gets a new EDS generation, and the
   * primary dies (listener stopped, streams failed) when a bridge subscribes to the new EDS name.
   *
   * Why not just stop it: gRFC A71 falls back only while some watched resource is uncached; with
   * everything cached a client keeps its data and waits for the primary (no fallback needed). A
   * control plane that dies during a rollout leaves the bridge with a resource it has not got yet, the
   * case fallback exists for; the fallback server has the same rollout and serves it.
   */
  stopPrimaryMidRollout(): void {
    if (!this.primaryServing) return;
    const newEds = this.topology.nextEdsGeneration();
    this.primary.faults.failStreamWhenRequested({ typeUrl: EDS_TYPE_URL, resourceName: newEds, stopListener: true, once: true });
    this.publish();
  }

  /** Stops the primary at once (with everything cached, a bridge keeps its data and does not fall back). */
  async stopPrimary(): Promise<void> {
    await this.primary.stopServing();
  }

  /** Starts the primary again on its port, serving the latest snapshot. */
  async startPrimary(): Promise<void> {
    this.primary.faults.clear();
    this.publish();
    await this.primary.start();
  }

  /** Starts one more backend in `cluster` (default the local one) and publishes it. */
  async addBackend(cluster: string = LOCAL_CLUSTER): Promise<Backend> {
    const backend = await this.topology.addBackend(cluster);
    this.publish();
    return backend;
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
