/**
 * The console's HTTP server (fastify): the page, its static files (ours and uPlot's, from the
 * package: no CDN), server-sent events for live updates, and the two action endpoints. One
 * {@link ZkView} and one set of HTTP source timers per server; every browser gets the same rendered
 * sections.
 *
 * Routes:
 * - `GET /` the page; `GET /events` the event stream (`sections`, `traffic`); `GET /static/…`.
 * - `POST /api/check` builds, validates and judges a request (nothing is sent) and says what it
 *   changes against the cluster's failout; `POST /api/send` sends a checked request: only with the
 *   request id of its check, the same fields, and the cluster unchanged since (checked-requests.ts),
 *   judged again first. Both need the CSRF token and same origin (security.ts).
 * - `POST /api/fabric/check` and `POST /api/fabric/send`: the same for a fabric's evacuation and its
 *   restore (issue 23, fabric-actions.ts); the Confirm names only the checked request id, and the body
 *   the Check stored is what is sent.
 * - Every text the page shows comes with control and bidi characters as visible escapes (lib/text,
 *   the CLI's one function): in the rendered sections (html.ts) and in these JSON answers.
 * - `GET /login?token=…` sets the access cookie when the console has an access token.
 *
 * Lifecycle: `start` → running → `close` (once; later calls wait for it).
 */
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from '../logging';
import { AlarmPoller, type AlarmStatesView, type ConsoleAlarmSource } from './alarms';
import type { ZkSession, ZkTlsOptions } from '../zk';
import { renderPage, renderSections, shownPoint, type SectionId } from './page';
import type { evacuation, OperatorAlarmSource, OperatorRequests, QueueProbe } from '../operator';
import type { RatePoint } from '../metrics';
import { ACCESS_COOKIE, csrfRefusal, digest, hasAccess, isLoopback, listenProblem, matches, newCsrfToken } from './security';
import { clusterCard, groupClusters, shownAlarmNames, type ConsoleSnapshot, type ServiceGroup } from './snapshot';
import { HttpSources } from './sources';
import { ZkView } from './zk-view';
import { escapeControlChars } from '../text';
import { ConsoleActions, parseActionRequest, type ActionAnswer } from './actions';
import { EventStreams, type StreamClientView } from './event-streams';
import { FabricActions, parseFabricCheck, parseFabricSend } from './fabric-actions';
import { buildFabricTable, EMPTY_FABRIC_TABLE, fabricFingerprint, type FabricTable } from './fabric-view';
import { DEFAULT_FABRICS_PATH } from '../fabrics';
import { DEFAULT_EVACUATIONS_PATH } from '../requests';
import type { AlarmReader } from '../alarms';

/** Options of {@link ConsoleServer.start}. */
export interface ConsoleServerOptions {
  /** Address to listen on. Default `127.0.0.1`; anything else needs {@link token}. */
  readonly host?: string | undefined;
  /** Port; 0 for a free one. Default 0. */
  readonly port?: number | undefined;
  /** Access token (at least 32 characters): required off loopback, optional on it. Never shown. */
  readonly token?: string | undefined;
  /** ZooKeeper; undefined when none is configured (the page says so). */
  readonly zk: { readonly connectString: string; readonly tls?: ZkTlsOptions | undefined } | undefined;
  readonly d2Base: string;
  readonly requestsBase: string;
  /** Parent of the fabric maps (issue 23). Default `/failout/fabrics`. */
  readonly fabricsBase?: string | undefined;
  /** Parent of the evacuation nodes (issue 23). Default `/failout/evacuations`. */
  readonly evacuationsBase?: string | undefined;
  /** The request side (lib/cli's `createConsoleRequests`). Owned: closed with the server. */
  readonly requests: OperatorRequests;
  /** Default `requestedBy` of the form. */
  readonly requester: string;
  /** Bridge admin URLs, or a function read before every round (replicas that come and go). */
  readonly bridgeUrls?: readonly string[] | (() => readonly string[]) | undefined;
  readonly bridgeToken?: string | undefined;
  readonly metricsUrls?: ReadonlyMap<string, readonly string[]> | undefined;
  readonly trafficMetric?: string | undefined;
  /**
   * Where the states of the stop alarms come from (lib/cli builds it from `--alarms-url` /
   * `FAILOUT_ALARMS_URL` or `--cloudwatch-alarms`), read at most every 5 s; undefined: the page says
   * they are not configured.
   */
  readonly alarmSource?: ConsoleAlarmSource | undefined;
  /** Period of the queue probe. Default 5 s. */
  readonly queueProbeMs?: number | undefined;
  /** How long an event-stream client may stop reading before it is dropped (event-streams.ts). Default 30 s. */
  readonly streamStallMs?: number | undefined;
  readonly logger: Logger;
}

/** A console option that cannot work; the message says what to change. */
export class ConsoleConfigError extends Error {
  override readonly name = 'ConsoleConfigError';
}

/** The page's Content-Security-Policy: our own files only, no inline script, no framing. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Where uPlot's built files are (served from the installed package). */
function uplotDist(): string {
  return dirname(require.resolve('uplot'));
}

/** The running console. */
export class ConsoleServer {
  private readonly csrfToken = newCsrfToken();
  private readonly csrfDigest: Buffer;
  private readonly tokenDigest: Buffer | undefined;
  private readonly zkView: ZkView | undefined;
  private readonly sources: HttpSources;
  private readonly alarms: AlarmPoller | undefined;
  /** The stop alarm names the last render showed (what the poller asks states for). */
  private shownAlarms: readonly string[] = [];
  private readonly streams: EventStreams;
  private readonly actions: ConsoleActions;
  private readonly fabricActions: FabricActions;
  private sections: Record<SectionId, string> | undefined;
  private renderTimer: NodeJS.Timeout | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private queue: { probe: QueueProbe | undefined; at: number } = { probe: undefined, at: 0 };
  private closing: Promise<void> | undefined;
  private app!: FastifyInstance;
  private urlValue = '';

  private constructor(private readonly options: ConsoleServerOptions) {
    this.csrfDigest = digest(this.csrfToken);
    this.tokenDigest = options.token === undefined ? undefined : digest(options.token);
    const log = options.logger;
    this.zkView = options.zk
      ? new ZkView({
          connectString: options.zk.connectString,
          tls: options.zk.tls,
          d2Base: options.d2Base,
          requestsBase: options.requestsBase,
          fabricsBase: options.fabricsBase ?? DEFAULT_FABRICS_PATH,
          evacuationsBase: options.evacuationsBase ?? DEFAULT_EVACUATIONS_PATH,
          logger: log,
          onChange: () => this.scheduleRender(),
        })
      : undefined;
    this.sources = new HttpSources({
      bridgeUrls: options.bridgeUrls ?? [],
      bridgeToken: options.bridgeToken,
      metricsUrls: options.metricsUrls ?? new Map(),
      trafficMetric: options.trafficMetric,
      logger: log,
      onBridges: () => this.scheduleRender(),
      onTraffic: (service, point) => this.onTraffic(service, point),
    });
    this.streams = new EventStreams({
      stallMs: options.streamStallMs,
      // A client back from a pause gets the whole state (the sections are state, not a log).
      catchUp: () => sseFrame('sections', this.sections ?? renderSections(this.snapshot())),
      logger: log,
    });
    this.actions = new ConsoleActions({
      requests: options.requests,
      session: () => this.connectedSession(),
      rates: () => this.sources.currentRates(),
      clusterState: (cluster) => this.clusterState(cluster),
      logger: log,
    });
    const alarmSource = options.alarmSource;
    // The named alarms of an evacuation are checked with the worker's rule when the source can tell an
    // unknown alarm from one without data (both readers lib/operator builds can).
    const alarmChecker: OperatorAlarmSource | undefined = alarmSource !== undefined && isAlarmReader(alarmSource.reader) ? { label: alarmSource.label, reader: alarmSource.reader } : undefined;
    this.fabricActions = new FabricActions({
      requests: options.requests,
      session: () => this.connectedSession(),
      alarms: () => alarmChecker,
      fabricState: (request) => this.fabricState(request),
      logger: log,
    });
    this.alarms = alarmSource
      ? new AlarmPoller({
          source: alarmSource,
          names: () => this.shownAlarms,
          logger: log,
          onChange: () => this.scheduleRender(),
        })
      : undefined;
  }

  /**
   * Listens and starts reading. @throws ConsoleConfigError for a non-loopback address without a token
   * or a short token (nothing is bound then).
   */
  static async start(options: ConsoleServerOptions): Promise<ConsoleServer> {
    const host = options.host ?? '127.0.0.1';
    const problem = listenProblem(host, options.token);
    if (problem) throw new ConsoleConfigError(problem);
    const server = new ConsoleServer(options);
    server.app = server.buildApp(host);
    await server.app.listen({ host, port: options.port ?? 0 });
    const address = server.app.server.address();
    const port = typeof address === 'object' && address ? address.port : options.port ?? 0;
    server.urlValue = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
    server.zkView?.start();
    server.sources.start();
    server.alarms?.start();
    server.every(options.queueProbeMs ?? 5000, () => server.probeQueue());
    // Windows start and end on the clock, without a write: re-render every second (sent only when changed).
    server.every(1000, async () => server.render());
    return server;
  }

  /** `http://127.0.0.1:<port>/`. */
  get url(): string {
    return this.urlValue;
  }

  /** The snapshot the page shows now. */
  snapshot(): ConsoleSnapshot {
    const now = Date.now();
    const view = this.zkView;
    const connection = view?.connection() ?? { state: 'unreachable' as const, error: 'no ZooKeeper configured (set ZK_CONNECT or pass --zk)', since: now };
    return {
      now,
      zk: { connect: this.options.zk?.connectString ?? '(not configured)', ...connection },
      queue: { url: this.options.requests.queueUrl, ...this.queue },
      groups: this.groups(now),
      records: view?.requestRecords() ?? [],
      bridges: this.sources.bridges(),
      traffic: this.sources.services(),
      alarms: this.alarmsView(),
      fabrics: this.fabrics(now),
    };
  }

  /** Fabrics × services as ZooKeeper has them now, with the shares from the last scrapes. */
  private fabrics(now: number): FabricTable {
    const view = this.zkView;
    if (view === undefined) return EMPTY_FABRIC_TABLE;
    return buildFabricTable({
      services: view.services().map((s) => s.name),
      clusters: view.clusters(),
      maps: view.fabricMaps(),
      evacuations: view.evacuations(),
      rates: this.sources.currentRates(now),
      describe: (cluster, properties) => this.options.requests.describe(cluster, properties, now),
      now,
    });
  }

  /** The open event streams: each one's unsent bytes and whether it is paused (not reading). */
  eventStreams(): { readonly clients: StreamClientView[]; readonly dropped: number } {
    return { clients: this.streams.clients(), dropped: this.streams.dropped };
  }

  /** The cluster cards, grouped by service, as ZooKeeper has them now. */
  private groups(now: number): ServiceGroup[] {
    const view = this.zkView;
    const cards = (view?.clusters() ?? []).map((entry) => clusterCard(entry, (props) => this.options.requests.describe(entry.name, props, now)));
    return groupClusters(view?.services() ?? [], cards);
  }

  private alarmsView(): AlarmStatesView {
    return this.alarms?.view() ?? { kind: 'off' };
  }

  /** Stops serving, the streams, the timers, the view and the request side. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers.splice(0)) clearInterval(timer);
      clearTimeout(this.renderTimer);
      this.sources.close();
      this.alarms?.close();
      this.streams.close();
      await this.app.close();
      await this.zkView?.close();
      await this.options.requests.close();
    })();
    return this.closing;
  }

  private every(ms: number, task: () => Promise<void>): void {
    void task();
    const timer = setInterval(() => void task(), ms);
    timer.unref();
    this.timers.push(timer);
  }

  private async probeQueue(): Promise<void> {
    if (this.options.requests.queueUrl === undefined) return;
    const probe = await this.options.requests.probeQueue().catch((err: unknown): QueueProbe => ({ ok: false, message: err instanceof Error ? err.message : String(err) }));
    this.queue = { probe, at: Date.now() };
    this.scheduleRender();
  }

  /** Coalesces bursts of changes (a watch storm) into one render 50 ms later. */
  private scheduleRender(): void {
    if (this.renderTimer !== undefined || this.closing) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.render();
    }, 50);
  }

  /** Renders the sections and sends the ones that changed to every stream. */
  private render(): void {
    if (this.closing) return;
    const snapshot = this.snapshot();
    const next = renderSections(snapshot);
    // The cards may show other alarm names now (a failout came or went): the poller reads them, at its pace.
    this.shownAlarms = shownAlarmNames(snapshot.groups);
    this.alarms?.wake();
    const previous = this.sections;
    this.sections = next;
    const changed = (Object.keys(next) as SectionId[]).filter((id) => previous?.[id] !== next[id]);
    if (changed.length === 0) return;
    const payload = Object.fromEntries(changed.map((id) => [id, next[id]]));
    this.streams.broadcastState(sseFrame('sections', payload));
  }

  private onTraffic(service: string, point: RatePoint | undefined): void {
    const error = this.sources.services().find((s) => s.service === service)?.error;
    // Names and errors come from the services' metrics: shown as text, control characters escaped.
    this.streams.broadcastPoint(sseFrame('traffic', { service: escapeControlChars(service), point: point === undefined ? null : shownPoint(point), error: error === undefined ? null : escapeControlChars(error) }));
  }

  private buildApp(host: string): FastifyInstance {
    const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
    const log = this.options.logger;
    app.addHook('onRequest', async (request, reply) => {
      reply.header('content-security-policy', CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-frame-options', 'DENY');
      reply.header('cache-control', 'no-store');
      // DNS rebinding: on loopback without a token, only a loopback Host may talk to us.
      if (this.tokenDigest === undefined && isLoopback(host) && !isLoopbackHost(request.headers.host)) {
        return reply.code(403).type('text/plain').send('forbidden: this console answers only to a loopback Host\n');
      }
      if (request.url.startsWith('/login')) return;
      if (!hasAccess(request.headers, this.tokenDigest)) {
        return reply.code(401).type('text/plain').send('this console needs its access token: open /login?token=<token> once (or send Authorization: Bearer <token>)\n');
      }
    });
    void app.register(fastifyStatic, { root: join(__dirname, 'public'), prefix: '/static/', decorateReply: false, cacheControl: false });
    void app.register(fastifyStatic, { root: uplotDist(), prefix: '/static/uplot/', decorateReply: false, cacheControl: false, allowedPath: (path) => /^\/uPlot\.(iife\.min\.js|min\.css)$/.test(path) });

    app.get('/login', async (request: FastifyRequest<{ Querystring: { token?: string } }>, reply) => {
      if (this.tokenDigest === undefined) return reply.redirect('/');
      if (!matches(request.query.token, this.tokenDigest)) return reply.code(401).type('text/plain').send('wrong or missing token\n');
      reply.header('set-cookie', `${ACCESS_COOKIE}=${encodeURIComponent(request.query.token!)}; HttpOnly; SameSite=Strict; Path=/`);
      return reply.redirect('/');
    });
    app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(renderPage(this.snapshot(), { csrfToken: this.csrfToken, requester: this.options.requester })));
    // Browsers ask for it unprompted; an empty answer keeps the log free of 404s.
    app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());
    app.get('/events', (_request, reply) => this.openStream(reply));
    app.post('/api/check', async (request, reply) => this.act(request, reply, parseActionRequest, (action) => this.actions.check(action)));
    app.post('/api/send', async (request, reply) => this.act(request, reply, parseActionRequest, (action) => this.actions.send(action)));
    app.post('/api/fabric/check', async (request, reply) => this.act(request, reply, parseFabricCheck, (check) => this.fabricActions.check(check)));
    app.post('/api/fabric/send', async (request, reply) => this.act(request, reply, parseFabricSend, (send) => this.fabricActions.send(send)));
    app.setErrorHandler((err: { statusCode?: number; message?: string }, _request, reply) => {
      const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      if (status === 500) log.error({ err }, 'console: request failed');
      return reply.code(status).send({ kind: 'error', message: status === 500 ? 'internal error (see the console log)' : (err.message ?? 'bad request') });
    });
    return app;
  }

  /** A cluster's failout as the console's view holds it, as one string (`absent`: no such cluster). */
  private clusterState(cluster: string): string {
    const entry = this.zkView?.clusters().find((c) => c.name === cluster);
    return entry === undefined ? 'absent' : JSON.stringify(entry.failout ?? null);
  }

  /** What a fabric request's judgement is about, as the view holds it now (fabric-view.ts). */
  private fabricState(request: { readonly action: evacuation.FabricAction; readonly fabric: string }): string {
    const view = this.zkView;
    if (view === undefined) return 'no ZooKeeper';
    const state = { clusters: view.clusters(), maps: view.fabricMaps(), evacuations: view.evacuations() };
    return fabricFingerprint(state, request.action === 'evacuate' ? this.fabrics(Date.now()) : EMPTY_FABRIC_TABLE, request);
  }

  /** The session for the judge, only while connected (otherwise the judge would wait for it). */
  private connectedSession(): ZkSession | undefined {
    const view = this.zkView;
    return view && view.connection().state === 'connected' ? view.zkSession : undefined;
  }

  /** CSRF and origin checks, then the body's shape, then the action (actions.ts, fabric-actions.ts). */
  private async act<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    parse: (body: unknown) => { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string },
    run: (value: T) => Promise<ActionAnswer>,
  ): Promise<FastifyReply> {
    const refusal = csrfRefusal(request.headers, this.csrfDigest);
    if (refusal) {
      this.options.logger.warn({ refusal, origin: request.headers.origin }, 'console: action refused');
      return reply.code(403).send({ kind: 'forbidden', reason: refusal, message: `refused (${refusal}): actions need the page's CSRF token and the same origin; reload the page` });
    }
    const parsed = parse(request.body);
    if (!parsed.ok) return reply.code(400).send({ kind: 'invalid', message: parsed.message });
    const answer = await run(parsed.value);
    return reply.code(answer.status).send(answer.body);
  }

  private openStream(reply: FastifyReply): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
    });
    // The full state first, so a browser that reconnects after a gap catches up at once.
    const sections = this.sections ?? renderSections(this.snapshot());
    this.streams.add(raw, `retry: 1000\n\n${sseFrame('sections', sections)}`);
  }
}

/** One SSE frame: `event:` and one `data:` line of JSON (JSON has no raw newlines). */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** True for a reader that tells an alarm the source does not know from one without data (lib/alarms `AlarmReader`). */
function isAlarmReader(reader: object): reader is AlarmReader & ConsoleAlarmSource['reader'] {
  return typeof (reader as Partial<AlarmReader>).read === 'function';
}

/** True for a Host header naming a loopback address (any port). */
function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return isLoopback(name);
}

