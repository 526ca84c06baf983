/**
 * A SotW ADS management server on loopback, for tests and the local stack.
 *
 * Public names (stable):
 * - `XdsManagementServer` — `XdsManagementServer.start(options?)` → started server;
 *   `setSnapshot(nodeId | '*', input)`, `start()` (again after `stopServing()`: SAME port),
 *   `stopServing()`, `close()`, `pushRaw(typeUrl, resources, version?)`, `failStreams(code?, details?)`;
 *   getters `port`, `address` / `uri` (`127.0.0.1:<port>`), `lifecycle`, `activeAdsStreams`; fields
 *   `cache`, `faults`, `recorder`, `lrs`.
 * - `ManagementServerOptions` — `{ host?, port?, wrapResources?, credentials?, lrsReportIntervalMs?,
 *   recordResourceNames? }`.
 * - `lifecycle` — the shared `Lifecycle`: `idle` (not serving: before `start()`, or after
 *   `stopServing()`), `running` (serving), `closing`, `closed`.
 *
 * Ports: by default the server listens on a random port BELOW the OS ephemeral range and keeps it for
 * every restart, so `stopServing()` then `start()` cannot fail because an outgoing connection took the port
 * meanwhile (see `restart-safe-port.ts`). `port: 0` asks the OS instead (ephemeral: fine for a server
 * that is never restarted).
 *
 * Serves ADS (`StreamAggregatedResources`, SotW) and LRS (`StreamLoadStats`). Resources are sent bare
 * (no `Resource` wrapper; grpc-js-xds NACKs the wrapper) unless `wrapResources: true`.
 */
import * as grpc from '@grpc/grpc-js';
import type { Lifecycle } from '../../lifecycle';
import { XdsError } from '../errors';
import { loadXdsProtos, type AnyMessage } from '../protos';
import { AdsSession } from './ads-session';
import { FaultHooks, type StreamFailureFault } from './fault-hooks';
import { LrsSink } from './lrs-sink';
import { ServerRecorder } from './recorder';
import { randomRestartSafePort } from './restart-safe-port';
import { SnapshotCache, type Snapshot, type SnapshotInput } from './snapshot-cache';

/** Construction options. */
export interface ManagementServerOptions {
  /** Listen address; 127.0.0.1 by default. */
  host?: string;
  /**
   * Unset (default): a random free port below the ephemeral range, safe to restart on. 0: the OS
   * picks (ephemeral; a restart can hit EADDRINUSE). n: that port. Restarts always reuse the port.
   */
  port?: number;
  /** Wrap resources in `envoy.service.discovery.v3.Resource` (default false). */
  wrapResources?: boolean;
  /** Server credentials; insecure by default. */
  credentials?: grpc.ServerCredentials;
  /** `load_reporting_interval` sent to LRS clients; 1000 ms by default. */
  lrsReportIntervalMs?: number;
  /** Keep every request's and response's resource names in `recorder` (default true; false for benchmarks). */
  recordResourceNames?: boolean;
}

/** The management server. */
export class XdsManagementServer {
  /** Snapshots per node id. */
  readonly cache = new SnapshotCache();
  /** Fault injection. */
  readonly faults = new FaultHooks();
  /** What the server saw. */
  readonly recorder: ServerRecorder;
  /** LRS reports (recorded in `recorder.loadReports`). */
  readonly lrs: LrsSink;
  private readonly sessions = new Set<AdsSession>();
  private server: grpc.Server | undefined;
  private boundPort: number;
  /** The teardown a `stopServing()` started (also one a fault hook started), awaited by `start()` and `close()`. */
  private stopping: Promise<void> = Promise.resolve();
  /** idle → running ⇄ idle (stopServing / start) → closing → closed. */
  private lifecycleValue: Lifecycle = 'idle';
  /** The teardown `close()` started; a second `close()` waits for it. */
  private closing: Promise<void> | undefined;
  private streamIds = 0;
  private readonly host: string;
  private readonly options: ManagementServerOptions;

  constructor(options: ManagementServerOptions = {}) {
    this.options = options;
    this.host = options.host ?? '127.0.0.1';
    this.boundPort = options.port ?? 0;
    this.recorder = new ServerRecorder(options.recordResourceNames ?? true);
    this.lrs = new LrsSink(this.recorder, () => ++this.streamIds, options.lrsReportIntervalMs ?? 1000);
    this.cache.onChange(() => {
      for (const s of this.sessions) s.onSnapshotChanged();
    });
  }

  /** Creates and starts a server. */
  static async start(options: ManagementServerOptions = {}): Promise<XdsManagementServer> {
    const server = new XdsManagementServer(options);
    await server.start();
    return server;
  }

  /** The bound port (0 before the first start). */
  get port(): number {
    return this.boundPort;
  }

  /** `host:port`, usable as `server_uri`. */
  get address(): string {
    return `${this.host}:${this.boundPort}`;
  }

  /** Same as {@link address}. */
  get uri(): string {
    return this.address;
  }

  /** `idle` while not serving (before {@link start}, after {@link stopServing}), `running` while serving, then `closing`, `closed`. */
  get lifecycle(): Lifecycle {
    return this.lifecycleValue;
  }

  /** ADS streams open now. */
  get activeAdsStreams(): number {
    return this.sessions.size;
  }

  /** Stores a snapshot and pushes changed versions to open streams of that node (or all, for '*'). */
  setSnapshot(nodeId: string, input: SnapshotInput): Snapshot {
    return this.cache.set(nodeId, input);
  }

  /** Starts listening: on a fresh port the first time, on the SAME port after {@link stopServing}. */
  async start(): Promise<void> {
    if (this.lifecycleValue === 'running') return;
    if (this.lifecycleValue === 'closing' || this.lifecycleValue === 'closed') throw new XdsError('closed', 'management server is closed');
    // A stop a fault hook began may still be releasing the port.
    await this.stopping;
    // Never bound yet (the port is chosen on the first start): pick a restart-safe one.
    const fresh = this.options.port === undefined && this.boundPort === 0;
    const { server, port } = fresh ? await this.bindRestartSafe() : await this.bindSamePort();
    this.boundPort = port;
    this.server = server;
    this.lifecycleValue = 'running';
  }

  /**
   * A control plane going away, for tests: stops the listener and kills every open stream, back to
   * `idle`; the port and the snapshots are kept, and {@link start} serves again on the same port.
   */
  async stopServing(): Promise<void> {
    if (this.lifecycleValue !== 'running') return;
    this.lifecycleValue = 'idle';
    this.stopping = this.teardown();
    await this.stopping;
  }

  /** Stops for good; resolves when nothing stays open. Idempotent. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    const wasRunning = this.lifecycleValue === 'running';
    this.lifecycleValue = 'closing';
    this.closing = (async () => {
      await (wasRunning ? this.teardown() : this.stopping);
      this.lifecycleValue = 'closed';
    })();
    return this.closing;
  }

  /** Sends `resources` as-is to every stream subscribed to `typeUrl`; returns how many got it. */
  pushRaw(typeUrl: string, resources: AnyMessage[], version = `raw-${Date.now()}`): number {
    let count = 0;
    for (const s of this.sessions) if (s.pushRaw(typeUrl, resources, version)) count++;
    return count;
  }

  /** Fails every open ADS stream (listener stays up): a close-after-response for clients. */
  failStreams(code: grpc.status = grpc.status.UNAVAILABLE, details = 'injected stream failure'): void {
    for (const s of [...this.sessions]) s.fail(code, details);
  }

  /* eslint-disable @typescript-eslint/no-explicit-any -- grpc-js handler maps are untyped */
  private newGrpcServer(): grpc.Server {
    const protos = loadXdsProtos();
    const server = new grpc.Server();
    server.addService(protos.adsService, {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<any, any>) => this.onAdsStream(call),
      DeltaAggregatedResources: (call: grpc.ServerDuplexStream<any, any>) => {
        call.emit('error', Object.assign(new Error('delta xDS is not supported'), { code: grpc.status.UNIMPLEMENTED }));
      },
    });
    server.addService(protos.lrsService, {
      StreamLoadStats: (call: grpc.ServerDuplexStream<any, any>) =>
        this.lifecycleValue === 'running'
          ? this.lrs.handle(call)
          : call.emit('error', Object.assign(new Error('management server stopped'), { code: grpc.status.UNAVAILABLE })),
    });
    return server;
  }

  private onAdsStream(call: grpc.ServerDuplexStream<any, any>): void {
    if (this.lifecycleValue !== 'running') {
      call.emit('error', Object.assign(new Error('management server stopped'), { code: grpc.status.UNAVAILABLE }));
      return;
    }
    const session = new AdsSession(call, ++this.streamIds, {
      cache: this.cache,
      faults: this.faults,
      recorder: this.recorder,
      wrapResources: this.options.wrapResources ?? false,
      onFault: (fault) => this.onFault(fault),
      onClosed: (s) => this.sessions.delete(s),
    });
    if (!session.closed) this.sessions.add(session);
  }

  /* eslint-enable @typescript-eslint/no-explicit-any */

  private onFault(fault: StreamFailureFault): void {
    if (fault.stopListener) void this.stopServing();
  }

  /** First start without a port: random restart-safe ports until one is free. */
  private async bindRestartSafe(): Promise<{ server: grpc.Server; port: number }> {
    for (let attempt = 0; ; attempt++) {
      const server = this.newGrpcServer();
      const wanted = randomRestartSafePort();
      try {
        return { server, port: await this.bindOnce(server, wanted) };
      } catch (e) {
        server.forceShutdown();
        if (attempt >= 20 || wanted === 0) throw new XdsError('connection', `cannot bind management server on ${this.host}`, { cause: e });
      }
    }
  }

  /** The configured port, or the previous one on a restart, retrying briefly (the old listener may still be closing). */
  private async bindSamePort(): Promise<{ server: grpc.Server; port: number }> {
    const server = this.newGrpcServer();
    for (let attempt = 0; ; attempt++) {
      try {
        return { server, port: await this.bindOnce(server, this.boundPort) };
      } catch (e) {
        // Up to ~5 s: on a loaded machine the old listener can take a while to let go.
        if (attempt >= 100 || this.boundPort === 0) {
          server.forceShutdown();
          throw new XdsError('connection', `cannot bind management server to ${this.host}:${this.boundPort}`, { cause: e });
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  private bindOnce(server: grpc.Server, port: number): Promise<number> {
    const creds = this.options.credentials ?? grpc.ServerCredentials.createInsecure();
    return new Promise<number>((resolve, reject) => server.bindAsync(`${this.host}:${port}`, creds, (err, bound) => (err ? reject(err) : resolve(bound))));
  }

  /** Fails every stream, then closes the listener and waits until its port is free. */
  private async teardown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of [...this.sessions]) s.fail(grpc.status.UNAVAILABLE, 'management server stopped');
    this.sessions.clear();
    this.lrs.closeAll();
    // Give the UNAVAILABLE trailers a moment to reach clients before the connections are torn down.
    await new Promise((r) => setTimeout(r, 20));
    if (!server) return;
    // forceShutdown drops the connections; tryShutdown's callback then says when the listening socket
    // is really closed, so a restart can bind the same port.
    server.forceShutdown();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }
}
