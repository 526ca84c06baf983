/**
 * The local stack's live terminal view: where each service's traffic goes (share per cluster of its
 * service, and per fabric), each cluster's failout state and window, the bridge replicas (leader, active control plane), the control planes,
 * request outcomes and the worker's counters; plus the commands to try. `renderView` is pure over a
 * {@link ViewSource}; `LiveView` redraws it every second.
 *
 * Names, peers, problems and errors come from ZooKeeper and the traffic: every line of a frame goes
 * through lib/text's one escaping function, so only the view's own screen control (home, clear) ever
 * reaches the terminal (issue 14).
 */
import type { FailoutConfig, FailoutWindow } from '../failout';
import { escapeControlChars } from '../text';
import type { ControlPlaneName } from './control-planes';
import type { ObserverView } from './observers';
import { fabricOfCluster, fabricPercent, sharesByFabric } from './fabric-shares';
import type { SqsPollerStats } from './sqs-poller';
import { summarize, type Sample, type WarmUpCounts } from './traffic';

/** One bridge replica as the view shows it. */
export interface ReplicaView {
  readonly id: string;
  readonly role: string;
  readonly ready: boolean;
  /** The control plane its xDS client uses now. */
  readonly controlPlane: ControlPlaneName | undefined;
  readonly adminPort: number | undefined;
}

/** One cluster as the clients see it in ZooKeeper. */
export interface ClusterView {
  readonly name: string;
  /** The D2 service it serves (its share is of that service's traffic; absent: of all traffic). */
  readonly service?: string;
  readonly hosts: number;
  readonly failout: FailoutConfig | undefined;
  /** Why the latest write of the cluster's document could not be read (the clients keep the last good one). */
  readonly problem?: string;
}

/** The environment the `failout` CLI needs to reach this stack. */
export interface StackEnv {
  readonly FAILOUT_QUEUE_URL: string;
  readonly SQS_ENDPOINT: string;
  readonly ZK_CONNECT: string;
  /**
   * A file (mode 0600) holding the announcer identity's `user:password`, for services that announce
   * themselves (examples/service reads it): the path is shown, never the password.
   */
  readonly ZK_ANNOUNCER_DIGEST_FILE: string;
  /** The alarm evaluator's states (`GET` → `{"alarms":[{name, state, since}]}`), for the drills' alarm reader. */
  readonly FAILOUT_ALARMS_URL: string;
}

/** One D2 observer as the view lists it: its state, and whether the traffic's clients read from it. */
export interface ObserverLine extends ObserverView {
  /** The traffic's xDS client reads from this observer now (always false in ZooKeeper mode). */
  readonly clientsOn: boolean;
}

/** What the view reads (a {@link LocalStack} fits through {@link stackViewSource}). */
export interface ViewSource {
  /** Requests per second to each service. */
  readonly rate: number;
  /** The services the traffic calls (a line of shares per fabric when given). */
  readonly services?: readonly string[];
  /** Samples of every service's requests sent since `since`. */
  samplesSince(since: number): Sample[];
  totals(): { ok: number; errors: number };
  clusters(): ClusterView[];
  replicas(): ReplicaView[];
  planes(): { name: ControlPlaneName; uri: string; state: string }[];
  worker(): SqsPollerStats;
  /** The traffic client's warm-up counters. */
  warmUps(): WarmUpCounts;
  /** A host URI → backend name (`lor1-2`). */
  backendName(uri: string): string | undefined;
  env(): StackEnv;
  /** The web console's URL, when it runs. */
  consoleUrl?(): string | undefined;
  /** Where the traffic's clients read discovery data (`zookeeper`, `xds`). */
  readonly discovery?: string;
  /** The D2 observers. */
  observers?(): ObserverLine[];
}

/** Seconds of traffic the shares are computed over. */
const WINDOW_MS = 5000;

const pct = (n: number, total: number): string => `${total === 0 ? '0.0' : ((100 * n) / total).toFixed(1)}%`;
const time = (ms: number): string => new Date(ms).toISOString().slice(11, 19);
/** `<service>-`: what a cluster's name shares with its service's other clusters (the fabric rule's prefix). */
const servicePrefix = (cluster: string): string => cluster.slice(0, cluster.lastIndexOf('-') + 1);
/** A peer's name without the failed-out cluster's service prefix: `greetings-lva1` → `lva1` for `greetings-lor1`. */
function short(peer: string, of: string): string {
  const prefix = servicePrefix(of);
  return prefix !== '' && peer.startsWith(prefix) ? peer.slice(prefix.length) : peer;
}

/**
 * `FAILED OUT → lva1:2 ltx1:1 · buckets 0-99 · until 12:30:00 (29m left)`, `scheduled …`, `serving`;
 * a ramp (windows not ended that start at different times) shows its step, the share moved, and
 * when the next step starts: `FAILED OUT → lva1:2 · ramp step 2/3: 50 % (buckets 0-49) · next 100 % at …`.
 */
export function describeFailout(config: FailoutConfig | undefined, now: number): string {
  if (!config) return 'serving';
  const peers = config.peers.map((p) => `${short(p.cluster, config.cluster)}:${p.weight}`).join(' ');
  const open = config.windows.filter((w) => w.onlineAt === undefined || now < w.onlineAt);
  const starts = [...new Set(open.map((w) => w.offlineAt))].sort((a, b) => a - b);
  if (starts.length > 1) return describeRamp(open, starts, peers, now);
  const active = config.windows.find((w) => w.offlineAt <= now && (w.onlineAt === undefined || now < w.onlineAt));
  const window = active ?? config.windows.filter((w) => w.offlineAt > now).sort((a, b) => a.offlineAt - b.offlineAt)[0];
  if (!window) return 'serving (failout ended)';
  const what = `→ ${peers} · buckets ${window.buckets.from}-${window.buckets.to} · ${until(window.onlineAt, now)}`;
  return active ? `FAILED OUT ${what}` : `scheduled at ${time(window.offlineAt)} ${what}`;
}

function until(onlineAt: number | undefined, now: number): string {
  return onlineAt === undefined ? 'until restored' : `until ${time(onlineAt)} (${Math.max(0, Math.round((onlineAt - now) / 60_000))}m left)`;
}

/** Share (of all traffic) and bucket span of the windows starting by `at`. */
function stepAt(open: readonly FailoutWindow[], at: number): { percent: number; span: string } {
  const buckets = new Set<number>();
  for (const w of open) if (w.offlineAt <= at) for (let b = w.buckets.from; b <= w.buckets.to; b++) buckets.add(b);
  return { percent: buckets.size, span: buckets.size === 0 ? 'none' : `${Math.min(...buckets)}-${Math.max(...buckets)}` };
}

function describeRamp(open: readonly FailoutWindow[], starts: readonly number[], peers: string, now: number): string {
  const end = Math.max(...open.map((w) => w.onlineAt ?? Number.POSITIVE_INFINITY));
  const ends = until(Number.isFinite(end) ? end : undefined, now);
  const reached = starts.filter((s) => s <= now).length;
  if (reached === 0) {
    const first = stepAt(open, starts[0]!);
    return `scheduled at ${time(starts[0]!)} → ${peers} · ramp of ${starts.length} steps from ${first.percent} % (buckets ${first.span}) · ${ends}`;
  }
  const current = stepAt(open, starts[reached - 1]!);
  const nextAt = starts[reached];
  const next = nextAt === undefined ? '' : ` · next ${stepAt(open, nextAt).percent} % at ${time(nextAt)} (in ${inWords(nextAt - now)})`;
  return `FAILED OUT → ${peers} · ramp step ${reached}/${starts.length}: ${current.percent} % (buckets ${current.span})${next} · ${ends}`;
}

/** `3m`, `45s`: how long until a ramp's next step. */
function inWords(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)}m` : `${Math.max(0, Math.ceil(ms / 1000))}s`;
}

/** The copy-paste commands and the environment they need. */
export function commandsText(env: StackEnv, keys: boolean, consoleUrl?: string): string[] {
  const lines = [
    ...(consoleUrl === undefined ? [] : [`Console: open ${consoleUrl} in a browser (fail out, restore, watch the traffic move).`]),
    'In another terminal (from this directory):',
    `  export FAILOUT_QUEUE_URL=${env.FAILOUT_QUEUE_URL} SQS_ENDPOINT=${env.SQS_ENDPOINT} ZK_CONNECT=${env.ZK_CONNECT} FAILOUT_ALARMS_URL=${env.FAILOUT_ALARMS_URL}`,
    `  (a service announcing itself, examples/service: ZK_ANNOUNCER_DIGEST_FILE=${env.ZK_ANNOUNCER_DIGEST_FILE})`,
    '  npx failout out greetings-lor1 --peer greetings-lva1:2 --peer greetings-ltx1:1 --for 30m --wait',
    '  npx failout out greetings-lor1 --peer greetings-lva1 --for 30m --buckets 0-49 --wait',
    '  npx failout out greetings-lor1 --peer greetings-lva1:2 --peer greetings-ltx1:1 --for 30m --ramp 10%:1m,50%:2m,100% --wait',
    '  npx failout out greetings-lor1 --peer greetings-lva1:2 --peer greetings-ltx1:1 --for 30m --stop-alarm greetings-lva1-errors --wait   (then b)',
    '  npx failout extend greetings-lor1 --for 1h --wait',
    '  npx failout restore greetings-lor1 --wait',
    '  npx failout evacuate lor1 --to lva1:2,ltx1:1 --for 30m --wait   (every service of fabric lor1: greetings-lor1 and hello-lor1)',
    '  npx failout restore --fabric lor1 --wait',
    '  npx failout status   ·   npx failout fabric list',
  ];
  if (keys) {
    lines.push(
      'Keys here: p stop the primary control plane mid-rollout (the bridge falls back) / start it again ·',
      '           e add a backend to greetings-lor1 (on the serving control planes) · k kill the bridge leader · q quit (or Ctrl-C)',
      '           b break greetings-lva1 (its backends answer 500; alarm greetings-lva1-errors) / mend it',
      '           o kill D2 observer-1 / start it again on its port',
    );
  }
  return lines;
}

/**
 * `fabrics (share of each service's traffic): lor1 greetings 100.0% hello 100.0% · lva1 …`: where each
 * service's requests of the window landed, by fabric (the fabric rule over the cluster names), fabrics
 * in the order the clusters are listed.
 */
export function fabricLine(samples: readonly Sample[], services: readonly string[], clusters: readonly ClusterView[]): string {
  const shares = sharesByFabric(samples, services);
  const fabrics: string[] = [];
  const add = (fabric: string): void => void (fabrics.includes(fabric) ? undefined : fabrics.push(fabric));
  for (const c of clusters) if (c.service !== undefined) add(fabricOfCluster(c.service, c.name) ?? c.name);
  for (const s of shares) for (const fabric of s.byFabric.keys()) add(fabric);
  const cells = fabrics.map((fabric) => `${fabric} ${shares.map((s) => `${s.service} ${pct(fabricPercent(s, fabric), 100)}`).join(' ')}`);
  return `  fabrics (share of each service's traffic): ${cells.length === 0 ? 'none' : cells.join(' · ')}`;
}

/** One frame of the view. */
export function renderView(source: ViewSource, now = Date.now()): string[] {
  const samples = source.samplesSince(now - WINDOW_MS);
  const recent = summarize(samples);
  const totals = source.totals();
  const out: string[] = [];
  out.push(`failout local stack — ${time(now)} UTC`);
  out.push('');
  const services = source.services ?? [];
  const perService = services.length === 0 ? '' : ` to each of ${services.join(', ')}`;
  out.push(
    `traffic, last ${WINDOW_MS / 1000} s at ${source.rate} req/s${perService}: ${recent.total} requests, ${recent.ok} ok, ${recent.errors} errors` +
      `   (since start: ${totals.ok} ok, ${totals.errors} errors)`,
  );
  if (recent.lastError) out.push(`  last error: ${recent.lastError}`);
  const warm = source.warmUps();
  out.push(`  peer warm-ups: ${warm.started} started, ${warm.succeeded} succeeded, ${warm.failed} failed, ${warm.connections} connections opened ahead of traffic`);
  const ofService = new Map(services.map((service) => [service, samples.filter((x) => x.service === service).length]));
  out.push(`  ${'cluster'.padEnd(16)} ${'share'.padStart(7)} ${'hosts'.padStart(5)}  ${'backends (requests)'.padEnd(34)} failout`);
  for (const cluster of source.clusters()) {
    const n = recent.byCluster.get(cluster.name) ?? 0;
    const backends = [...summarize(samples.filter((x) => x.cluster === cluster.name)).byHost].map(([uri, count]) => `${short(source.backendName(uri) ?? uri, cluster.name)} ${count}`).join(', ');
    const failout = cluster.problem ? `malformed (ignored): ${cluster.problem}` : describeFailout(cluster.failout, now);
    // The share of the cluster's own service's traffic: every service's home cluster reads 100 %.
    const of = cluster.service === undefined ? recent.total : (ofService.get(cluster.service) ?? recent.total);
    out.push(`  ${cluster.name.padEnd(16)} ${pct(n, of).padStart(7)} ${String(cluster.hosts).padStart(5)}  ${backends.padEnd(34)} ${failout}`);
  }
  if (services.length > 0) out.push(fabricLine(samples, services, source.clusters()));
  out.push('');
  out.push('bridge replicas (xDS → ZooKeeper)');
  for (const r of source.replicas()) {
    const admin = r.adminPort ? `  http://127.0.0.1:${r.adminPort}/status` : '';
    out.push(`  ${r.id.padEnd(10)} ${r.role.padEnd(8)} ${(r.ready ? 'ready' : 'not ready').padEnd(9)} control plane: ${(r.controlPlane ?? 'none').padEnd(8)}${admin}`);
  }
  out.push(`control planes: ${source.planes().map((p) => `${p.name} ${p.uri} ${p.state}`).join(' · ')}`);
  out.push(...observerLines(source));
  const w = source.worker();
  out.push(`request worker: ${w.batches} batches, ${w.records} requests, ${w.deleted} acknowledged, ${w.failures} left for retry, ${w.sqsErrors} SQS errors`);
  out.push('');
  out.push(...commandsText(source.env(), true, source.consoleUrl?.()));
  // Per line, so a newline inside a value shows as `\n` instead of starting a line of its own.
  return out.map((line) => escapeControlChars(line));
}

/**
 * The D2 observers and where the traffic reads discovery data: `observer-1 127.0.0.1:… serving, 1
 * streams ← clients` (the arrow marks the observer the traffic's xDS client reads from).
 */
function observerLines(source: ViewSource): string[] {
  const observers = source.observers?.() ?? [];
  if (observers.length === 0 && source.discovery === undefined) return [];
  const mode = source.discovery === 'xds' ? 'xDS through the observers (o: kill / restart observer-1)' : 'ZooKeeper (npm start -- --discovery xds reads through the observers)';
  const lines = [`discovery: ${mode}`];
  for (const o of observers) {
    const role = o.name.endsWith('1') ? 'own fabric' : 'fallback';
    // A71: clients whose data is all cached keep it and wait for a dead server; say so, or it looks stuck.
    const clients = !o.clientsOn ? '' : o.state === 'serving' ? '  ← clients' : '  ← clients (keeping cached data; they fall back once they need more)';
    lines.push(`  ${o.name.padEnd(11)} ${o.address.padEnd(16)} ${role.padEnd(10)} ${o.state.padEnd(8)} ${String(o.streams).padStart(3)} streams  ${o.adminUrl}/status${clients}`);
  }
  return lines;
}

/** Redraws the view every second on a terminal stream. */
export class LiveView {
  private timer: NodeJS.Timeout | undefined;
  /** A line under the frame (the result of the last key). */
  note = '';

  constructor(
    private readonly source: ViewSource,
    private readonly write: (text: string) => void,
  ) {}

  start(): void {
    this.draw();
    this.timer = setInterval(() => this.draw(), 1000);
  }

  draw(): void {
    const frame = renderView(this.source);
    // Home, clear the screen, draw: the only control sequence written; the note may quote an error.
    const note = this.note ? `\n${escapeControlChars(this.note)}\n` : '';
    this.write(`\x1b[H\x1b[2J${frame.join('\n')}\n${note}`);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
