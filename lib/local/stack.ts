/**
 * The whole system on one machine (`npm start`): a real ZooKeeper, a FIFO queue and its DLQ on
 * fauxqs, two xDS control planes serving the sample topology (two services in three fabrics), two
 * bridge replicas writing D2 data, the request worker (the poller driving the real Lambda handler) and
 * a traffic generator calling both services through FailoutClient. Everything on 127.0.0.1; nothing
 * is a stand-in.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBridgeConfig, XdsBridge } from '../bridge';
import { ConsoleServer, consoleServerOptions } from '../console';

import { LoadBalancerState, urisPath } from '../d2';
import { createFailoutConfig } from '../failout';
import { createLogger, type Logger } from '../logging';
import { policyAcl } from '../requests/acl';
import { digestId, ZkSession, type AclRoles, type DigestCredential } from '../zk';
import { ControlPlanes } from './control-planes';
import { bundleFunction } from './function-bundle';
import { LambdaProcess } from './lambda-process';
import { localSecretArn, startLocalSecrets } from './secrets-server';
import { reservePort } from './net';
import { SqsPoller } from './sqs-poller';
import { startLocalSqs, type LocalSqs } from './sqs';
import { startStopConditions, type LocalStopConditions } from './stop-conditions';
import { startLocalDrills, type LocalDrills } from './drills';
import { alarmsUrl, type AlarmEvaluator } from './alarm-evaluator';
import { ALL_CLUSTERS, clustersOf, SampleTopology, SERVICES } from './topology';
import { LocalObservers, type ObserverNumber, type ObserverView } from './observers';
import { LOCAL_TRAFFIC_METRIC, TrafficGenerator } from './traffic';
import type { ClusterView, ReplicaView, StackEnv, ViewSource } from './view';
import { startZooKeeper, type ZooKeeperServer } from './zookeeper';
import type { Lifecycle } from '../lifecycle';

/** Where the traffic generator's D2 clients read discovery data (`npm start -- --discovery`). */
export type LocalDiscovery = 'zookeeper' | 'xds';

/** Options of {@link LocalStack.start}. */
export interface LocalStackOptions {
  /**
   * `zookeeper` (default): the traffic's clients watch ZooKeeper; `xds`: they read through the two D2
   * observers (which run in both modes), observer 1 first and observer 2 as the A71 fallback.
   */
  readonly discovery?: LocalDiscovery;
  /** Traffic generator rate, requests per second. Default 50. */
  readonly rate?: number;
  /** Fixed ports (free ones when absent). */
  readonly zkPort?: number;
  readonly sqsPort?: number;
  readonly primaryPort?: number;
  readonly fallbackPort?: number;
  /** Bridge session timeout: a killed leader's session ends after it. Default 4 s. */
  readonly bridgeSessionTimeoutMs?: number;
  /** Progress lines while starting. */
  readonly progress?: (line: string) => void;
  readonly logger?: Logger;
  /**
   * Port of the web console (lib/console). Default `$FAILOUT_CONSOLE_PORT` or 8300, a free one when
   * that is taken; 0 for a free one.
   */
  readonly consolePort?: number;
}




/**
 * The ZooKeeper identities of the stack's components (docs/deployers.md "Access control"), fresh at every start:
 * the bridge and the request writer each write only their own paths, as deployed; nothing is created
 * with an open ACL. The passwords live only in this process (never in the view, the logs or `env()`).
 */
interface LocalIdentities {
  readonly bridge: DigestCredential;
  readonly writer: DigestCredential;
  readonly announcer: DigestCredential;
}

function freshIdentities(): LocalIdentities {
  const secret = (): string => randomBytes(18).toString('base64url');
  return {
    bridge: { user: 'failout-local-bridge', password: secret() },
    writer: { user: 'failout-local-writer', password: secret() },
    announcer: { user: 'failout-local-announcer', password: secret() },
  };
}

/** The identities as the components' ACLs name them (digest ids, no passwords). */
function rolesOf(identities: LocalIdentities): AclRoles {
  const id = (c: DigestCredential): string => digestId(c.user, c.password);
  return { bridge: [id(identities.bridge)], requestWriter: [id(identities.writer)], announcer: [id(identities.announcer)] };
}

/**
 * Clusters whose servers announce themselves instead of coming from xDS (examples/service's
 * `profiles-lor1`). Announcers may not create a cluster directory; the stack makes it, as an operator
 * would with `failout zk secure --cluster <name>`.
 */
const SELF_ANNOUNCED_CLUSTERS = ['profiles-lor1'] as const;

/**
 * Prepares what a self-announcing service needs: the cluster directories (made with the bridge's
 * identity, with the policy's ACL) and the announcer credential in a file only this user can read.
 * Returns the file's path.
 */
async function prepareAnnouncers(connectString: string, identities: LocalIdentities, stops: Stops): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'failout-local-'));
  stops.add(async () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'announcer.digest');
  writeFileSync(file, `${identities.announcer.user}:${identities.announcer.password}\n`, { mode: 0o600 });
  const session = new ZkSession({ connectString, sessionTimeoutMs: 10_000, credentials: [identities.bridge] });
  await session.start();
  try {
    for (const cluster of SELF_ANNOUNCED_CLUSTERS) await session.ensurePath(urisPath(undefined, cluster), policyAcl(rolesOf(identities)));
  } finally {
    await session.close();
  }
  return file;
}

/** Everything started, stopped in reverse order. */
class Stops {
  private readonly stops: (() => Promise<unknown>)[] = [];
  add(stop: () => Promise<unknown>): void {
    this.stops.push(stop);
  }
  async run(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop().catch(() => undefined);
  }
}

/** The running local stack. Lifecycle: `start` → running → `close` (once; later calls wait for it). */
export class LocalStack {
  readonly replicas: XdsBridge[] = [];
  private replicaSeq = 0;
  private closing: Promise<void> | undefined;
  private trafficValue: TrafficGenerator | undefined;
  private stopConditionsValue: LocalStopConditions | undefined;
  private drillsValue: LocalDrills | undefined;
  private consoleValue: ConsoleServer | undefined;
  private observersValue: LocalObservers | undefined;
  /** Clusters whose latest document write was unreadable, and why (cleared by the next good write). */
  private readonly problems = new Map<string, string>();

  private constructor(
    private readonly options: LocalStackOptions,
    private readonly stops: Stops,
    readonly zk: ZooKeeperServer,
    readonly sqs: LocalSqs,
    readonly planes: ControlPlanes,
    readonly poller: SqsPoller,
    readonly observer: LoadBalancerState,
    private readonly log: Logger,
    private readonly identities: LocalIdentities,
    private readonly announcerDigestFile: string,
  ) {
    // The clients keep the last good document; the view says that a newer one was refused, and why.
    observer.registerClusterListener({
      onClusterChange: (change) => {
        if (change.kind === 'malformed') this.problems.set(change.cluster, change.error.message);
        else if (change.kind === 'properties' || change.kind === 'removed') this.problems.delete(change.cluster);
      },
    });
  }

  /** Starts every part, in dependency order; on a failure stops what already runs and rethrows. */
  static async start(options: LocalStackOptions = {}): Promise<LocalStack> {
    const progress = options.progress ?? (() => undefined);
    const log = options.logger ?? createLogger('local-stack');
    const stops = new Stops();
    try {
      progress('starting ZooKeeper…');
      const zk = await startZooKeeper({ port: options.zkPort, sessionTimeouts: { minMs: 1000, maxMs: 30_000 } });
      stops.add(() => zk.close());
      progress(`ZooKeeper on ${zk.connectString}; starting the queue, the backends and the control planes…`);
      const sqs = await startLocalSqs({ port: options.sqsPort, name: 'failout-requests', visibilityTimeoutSeconds: 30 });
      stops.add(() => sqs.close());
      const topology = await SampleTopology.start();
      stops.add(() => topology.close());
      const planes = await ControlPlanes.start({ topology, primaryPort: options.primaryPort, fallbackPort: options.fallbackPort });
      stops.add(() => planes.close());

      const identities = freshIdentities();
      // The alarm evaluator starts later (it needs the traffic), on a port the worker knows from its start.
      // Held until the evaluator binds it: seconds pass, and a free port is free only until someone binds it.
      const alarmsPort = await reservePort();
      stops.add(() => alarmsPort.release());
      const worker = await startRequestWorker(zk.connectString, sqs, log, identities, stops, alarmsUrl(alarmsPort.port));
      stops.add(() => worker.poller.close());

      const observerSession = new ZkSession({ connectString: zk.connectString, sessionTimeoutMs: 10_000, logger: log });
      await observerSession.start();
      stops.add(() => observerSession.close());
      const observer = new LoadBalancerState({ session: observerSession, logger: log });
      stops.add(async () => observer.close());

      const announcerDigestFile = await prepareAnnouncers(zk.connectString, identities, stops);
      const stack = new LocalStack(options, stops, zk, sqs, planes, worker.poller, observer, log, identities, announcerDigestFile);
      progress('starting two bridge replicas…');
      for (let i = 0; i < 2; i++) await stack.startReplica();
      stops.add(() => Promise.all(stack.replicas.map((r) => r.close())));
      await stack.waitFor(() => stack.replicas.some((r) => r.role === 'leader' && r.ready), 20_000, 'a bridge leader with its first full sync');
      await Promise.all(ALL_CLUSTERS.map((c) => observer.listenToCluster(c)));
      await stack.waitFor(() => ALL_CLUSTERS.every((c) => (observer.getUris(c)?.hosts.length ?? 0) >= 3), 20_000, 'D2 data of every cluster');

      progress('starting two D2 observers…');
      const observers = await LocalObservers.start({ connectString: zk.connectString, logger: log });
      stops.add(() => observers.close());
      stack.observersValue = observers;
      const discovery = options.discovery ?? 'zookeeper';
      progress(`D2 observers at ${observers.address(1)} (own fabric) and ${observers.address(2)} (fallback); the traffic reads discovery data from ${discovery === 'xds' ? 'the observers (xDS)' : 'ZooKeeper'}`);
      progress(`starting the traffic generator (${options.rate ?? 50} requests/s to each of ${SERVICES.join(', ')})…`);
      const xdsBootstrap = discovery === 'xds' ? observers.bootstrap('failout-local-traffic') : undefined;
      const traffic = await TrafficGenerator.start({ connectString: zk.connectString, xdsBootstrap, rate: options.rate, logger: log });
      stops.add(() => traffic.close());
      stack.trafficValue = traffic;
      progress('starting the alarm evaluator and the failout-guard function…');
      const stopConditions = await startStopConditions({ connectString: zk.connectString, sqs, samplesSince: (since) => traffic.allSamplesSince(since), clusters: ALL_CLUSTERS, alarmsPort, logLevel: powertoolsLevel(process.env.FAILOUT_LOG_LEVEL ?? 'info'), logger: log });
      stops.add(() => stopConditions.close());
      stack.stopConditionsValue = stopConditions;
      progress('starting the failout-drills function and its timer…');
      const drills = await startLocalDrills({ connectString: zk.connectString, sqs, alarmsUrl: stopConditions.alarms.url, logLevel: powertoolsLevel(process.env.FAILOUT_LOG_LEVEL ?? 'info'), logger: log });
      stops.add(() => drills.close());
      stack.drillsValue = drills;
      progress('starting the web console…');
      stack.consoleValue = await stack.startConsole();
      stops.add(() => stack.console.close());
      return stack;
    } catch (err) {
      await stops.run();
      throw err;
    }
  }

  /**
   * The alarm evaluator: `<cluster>-errors` per cluster over the traffic's error rate, emitting
   * CloudWatch alarm state change events into the failout-guard bundle (lib/local `stop-conditions.ts`).
   */
  get alarms(): AlarmEvaluator {
    if (!this.stopConditionsValue) throw new Error('the alarm evaluator has not started');
    return this.stopConditionsValue.alarms;
  }

  /** The two D2 observers (running in both discovery modes). */
  get observers(): LocalObservers {
    if (!this.observersValue) throw new Error('the observers have not started');
    return this.observersValue;
  }

  /** Where the traffic's clients read discovery data. */
  get discovery(): LocalDiscovery {
    return this.options.discovery ?? 'zookeeper';
  }

  /** The observers, and which one the traffic's xDS client reads from (xDS mode). */
  observerViews(): (ObserverView & { readonly clientsOn: boolean })[] {
    const active = this.observers.numberOf(this.trafficValue?.activeXdsServer());
    return this.observers.views().map((v, i) => ({ ...v, clientsOn: active === i + 1 }));
  }

  /** Kills observer `n` when it serves, starts it again (same port) when stopped (the `o` key). */
  toggleObserver(n: ObserverNumber = 1): Promise<'stopped' | 'started'> {
    return this.observers.toggle(n);
  }

  /** The drills function and its timer (lib/local `drills.ts`): ticks every 10 s, `runNow(name)` on demand. */
  get drills(): LocalDrills {
    if (!this.drillsValue) throw new Error('the drills function has not started');
    return this.drillsValue;
  }

  /** The traffic generator (started last). */
  get traffic(): TrafficGenerator {
    if (!this.trafficValue) throw new Error('the traffic generator has not started');
    return this.trafficValue;
  }

  /** The web console (started last, after the traffic it charts). */
  get console(): ConsoleServer {
    if (!this.consoleValue) throw new Error('the console has not started');
    return this.consoleValue;
  }

  /**
   * The console as `failout console` runs it against this stack (the CLI's options from the stack's
   * environment), with the bridges' admin URLs read before every round (replicas come and go) and the
   * traffic generator's counters charted, one chart per service (each from its own `/metrics/<service>`).
   */
  private async startConsole(): Promise<ConsoleServer> {
    const env = { ...process.env, ...this.env() };
    const fromEnv = process.env.FAILOUT_CONSOLE_PORT?.trim();
    const wanted = this.options.consolePort ?? (fromEnv !== undefined && /^\d{1,5}$/.test(fromEnv) ? Number(fromEnv) : 8300);
    const start = (port: number): Promise<ConsoleServer> => {
      const options = consoleServerOptions({ port: String(port), metrics: SERVICES.map((service) => `${service}=${this.traffic.metricsUrlOf(service)}`), trafficMetric: LOCAL_TRAFFIC_METRIC }, env, this.log);
      const bridgeUrls = (): string[] => this.replicas.filter((r) => r.adminPort !== undefined).map((r) => `http://127.0.0.1:${r.adminPort}`);
      return ConsoleServer.start({ ...options, bridgeUrls }).catch(async (err: unknown) => {
        await options.requests.close();
        throw err;
      });
    };
    try {
      return await start(wanted);
    } catch (err) {
      // By its code, not `instanceof Error`: errors from another realm (jest's) are not this realm's Error.
      if (wanted === 0 || (err as { code?: unknown } | null)?.code !== 'EADDRINUSE') throw err;
      return start(0);
    }
  }

  get topology(): SampleTopology {
    return this.planes.topology;
  }

  /** What the CLI needs (default D2 and request paths). */
  env(): StackEnv {
    return { FAILOUT_QUEUE_URL: this.sqs.queueUrl, SQS_ENDPOINT: this.sqs.endpoint, ZK_CONNECT: this.zk.connectString, ZK_ANNOUNCER_DIGEST_FILE: this.announcerDigestFile, FAILOUT_ALARMS_URL: this.alarms.url };
  }

  /** The leading replica, if any. */
  leader(): XdsBridge | undefined {
    return this.replicas.find((r) => r.role === 'leader');
  }

  replicaViews(): ReplicaView[] {
    return this.replicas.map((r) => {
      const status = r.status();
      return { id: r.config.replicaId, role: r.role, ready: r.ready, controlPlane: this.planes.nameOf(status.authorities[0]?.activeServer), adminPort: r.adminPort };
    });
  }

  /** Every cluster of every service (greetings' first), as the clients see it. */
  clusterViews(): ClusterView[] {
    return SERVICES.flatMap((service) =>
      clustersOf(service).map((name) => {
        const hosts = this.observer.getUris(name)?.hosts.length ?? 0;
        // The state holds validated properties: a malformed failout leaves the last good one in effect.
        return { name, service, hosts, failout: createFailoutConfig(name, this.observer.getFailoutProperties(name) ?? null), problem: this.problems.get(name) };
      }),
    );
  }

  /** What the live view reads. */
  viewSource(): ViewSource {
    return {
      rate: this.traffic.rate,
      services: this.traffic.services,
      samplesSince: (since) => this.traffic.allSamplesSince(since),
      totals: () => this.traffic.counts,
      warmUps: () => this.traffic.warmUps(),
      clusters: () => this.clusterViews(),
      replicas: () => this.replicaViews(),
      planes: () => [
        { name: 'primary', uri: this.planes.primary.uri, state: planeState(this.planes.primary.lifecycle) },
        { name: 'fallback', uri: this.planes.fallback.uri, state: planeState(this.planes.fallback.lifecycle) },
      ],
      worker: () => this.poller.stats(),
      backendName: (uri) => this.topology.backendByUri(uri)?.name,
      env: () => this.env(),
      consoleUrl: () => this.consoleValue?.url,
      discovery: this.discovery,
      observers: () => (this.observersValue ? this.observerViews() : []),
    };
  }

  /** Starts one more bridge replica (it stands by unless nobody leads). */
  async startReplica(): Promise<XdsBridge> {
    const id = `bridge-${String.fromCharCode(97 + (this.replicaSeq++ % 26))}`;
    const roles = rolesOf(this.identities);
    const config = parseBridgeConfig({
      replicaId: id,
      bootstrap: {
        xds_servers: [this.planes.primary.uri, this.planes.fallback.uri].map((uri) => ({ server_uri: uri, channel_creds: [{ type: 'insecure' }] })),
        node: { id: 'failout-local-bridge' },
      },
      services: [...SERVICES],
      zookeeper: { connectString: this.zk.connectString, sessionTimeoutMs: this.options.bridgeSessionTimeoutMs ?? 4000, credentials: [this.identities.bridge] },
      acl: { requestWriter: roles.requestWriter, announcer: roles.announcer },
      admin: { host: '127.0.0.1', port: 0, grpcPort: 0 },
      deletionGraceMs: 5000,
      fallbackProbeCapMs: 1000,
    });
    const bridge = await XdsBridge.start({ config, logger: this.log });
    this.replicas.push(bridge);
    return bridge;
  }

  /**
   * Kills the leading replica (it stops: its election node goes at once, as when ECS replaces a task)
   * and starts a fresh standby, so two replicas run again. Returns the killed replica's id.
   */
  async killLeader(): Promise<string | undefined> {
    const leader = this.leader();
    if (!leader) return undefined;
    this.replicas.splice(this.replicas.indexOf(leader), 1);
    await leader.close();
    await this.startReplica();
    return leader.config.replicaId;
  }

  /** Stops everything; resolves when every process and port is released. */
  close(): Promise<void> {
    this.closing ??= this.stops.run();
    return this.closing;
  }

  /** Polls `predicate` every 50 ms. */
  async waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** A control plane's lifecycle in the live view's words: `serving` while running, `stopped` while idle. */
function planeState(lifecycle: Lifecycle): string {
  if (lifecycle === 'running') return 'serving';
  return lifecycle === 'idle' ? 'stopped' : lifecycle;
}

/** The secret the worker's digest is read from, as an ARN the local secrets endpoint answers. */
const WRITER_SECRET_ARN = localSecretArn('failout/zk-writer');

/**
 * The request worker: the `failout-requests` Lambda as `cdk deploy` ships it — the esbuild bundle of
 * `functions/failout-requests/handler.ts` — in a process of its own with the environment the CDK app
 * gives it, reading its ZooKeeper digest from a secret (a local Secrets Manager endpoint), driven by
 * one poller as one Lambda execution environment would be.
 */
async function startRequestWorker(
  connectString: string,
  sqs: LocalSqs,
  log: Logger,
  identities: LocalIdentities,
  stops: Stops,
  alarmsUrlText: string,
): Promise<{ lambda: LambdaProcess; poller: SqsPoller }> {
  const secrets = await startLocalSecrets(new Map([[WRITER_SECRET_ARN, JSON.stringify(identities.writer)]]));
  stops.add(() => secrets.close());
  const bundle = await bundleFunction('failout-requests');
  const lambda = await LambdaProcess.start({
    bundle: bundle.file,
    functionName: 'failout-requests',
    logger: log,
    env: {
      ZK_CONNECT: connectString,
      D2_BASE_PATH: '/d2',
      FAILOUT_REQUESTS_PATH: '/failout/requests',
      ZK_DIGEST_SECRET_ARN: WRITER_SECRET_ARN,
      ZK_ACL_BRIDGE_ID: digestId(identities.bridge.user, identities.bridge.password),
      POWERTOOLS_SERVICE_NAME: 'failout-requests',
      POWERTOOLS_METRICS_NAMESPACE: 'failout',
      POWERTOOLS_LOG_LEVEL: powertoolsLevel(process.env.FAILOUT_LOG_LEVEL ?? 'info'),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      // The evaluator stands in for CloudWatch (the CDK app sets FAILOUT_ALARMS_CLOUDWATCH=1 instead).
      FAILOUT_ALARMS_URL: alarmsUrlText,
    },
  });
  stops.add(() => lambda.close());
  const poller = new SqsPoller({ client: sqs.client, queueUrl: sqs.queueUrl, queueArn: sqs.queueArn, handler: lambda.invoke, batchSize: 10, waitTimeSeconds: 1, functionName: 'failout-requests', logger: log });
  poller.start();
  return { lambda, poller };
}

/** Our pino level name (`FAILOUT_LOG_LEVEL`) as a Powertools log level. */
function powertoolsLevel(level = 'info'): 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' {
  const map = { trace: 'DEBUG', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', fatal: 'ERROR', silent: 'SILENT' } as const;
  return map[level as keyof typeof map] ?? 'INFO';
}
