/**
 * The console's HTTP server (fastify): the page, its static files (ours and uPlot's, from the
 * package: no CDN), server-sent events for live updates, and the two action endpoints. One
 * {@link ZkView} and one set of HTTP source timers per server; every browser gets the same rendered
 * pieces.
 *
 * Routes:
 * - `GET /` the page; `GET /events` the event stream (below); `GET /static/…`.
 * - `POST /api/check` builds, validates and judges a request (nothing is sent) and says what it
 *   changes against the cluster's failout; `POST /api/send` sends a checked request: only with the
 *   request id of its check, the same fields, and the cluster unchanged since (checked-requests.ts),
 *   judged again first. Both need the CSRF token and same origin (security.ts).
 * - `POST /api/fabric/check` and `POST /api/fabric/send`: the same for a fabric's evacuation and its
 *   restore (issue 23, fabric-actions.ts); the Confirm names only the checked request id, and the body
 *   the Check stored is what is sent.
 * - `POST /api/drill/check` and `POST /api/drill/send`: a drill's "Run now" (issue 24, item 7,
 *   drill-actions.ts): the drill runner decides the run and makes its message, which is shown; the
 *   Confirm names only the request id, and that message is what is sent. The `drills` section (a small
 *   section, drill-page.ts) lists every drill and is patched live like the others.
 * - Every Confirm sends its request at most once (checked-requests.ts `SendsOnce`): a second Confirm
 *   of the same id, at once or after the answer was lost, sends nothing and is told it was sent
 *   (`alreadySent`); one refused because what its judgement read changed is answered with the
 *   judgement now (`check`), to be confirmed in its turn.
 * - Every text the page shows comes with control and bidi characters as visible escapes (lib/text,
 *   the CLI's one function): in the rendered sections (html.ts) and in these JSON answers.
 * - `GET /login?token=…` sets the access cookie when the console has an access token.
 * - `GET /api/history` one page of the history, filtered, and `GET /api/history.csv|.json` every
 *   matching record (history-routes.ts; read-only: no CSRF token, the access rules as everywhere).
 * - `GET /clusters/<name>` one cluster's page: its failout, peers, stop alarms, hosts and own history
 *   (cluster-page.ts; read-only, from what the view holds; 404 page for a cluster it does not know).
 *   The cards carry what the page's find form filters by, in the browser (cluster-filter.ts, find.js),
 *   and each card its outcome trail for an hour (outcome-trail.ts, trail.js).
 *
 * Live updates (issue 24): the server renders once per change for every browser and sends only what
 * changed (live-state.ts keeps what the browsers have). Events on `/events`:
 * - `sections` (with `id: <version>`): the whole state, `{status, clusters, fabrics, drills, planes,
 *   "history-rows"}`, each the `innerHTML` of the element with that id. Sent first on every connection
 *   (unless the browser already has that version: its page was served with it, `?v=`, or its last event
 *   had it, `Last-Event-ID`) and to a stream that catches up after a stall when the patch log cannot
 *   say what it missed (event-streams.ts, patch-log.ts; otherwise it gets one `patch` of what changed).
 * - `patch` (with `id: <version>`): what changed since the previous version, as JSON
 *   `{sections?: {status?|planes?|fabrics?|drills?|"clusters-note"?: html}, groups?: K, cards?: {<service>: K},
 *   rows?: K, records?: <count>, fabrics?: {rows?: K, cards?: K}}` (`fabrics`: the fabric table's rows
 *   by service and the fabric cards by fabric, both by `data-key`, when the rest of that section is
 *   unchanged; otherwise `sections.fabrics` whole) (`records`: how many records the console holds, when that changed;
 *   the rows are only the newest page) where K is `{upsert?: [{id, html, after?}], remove?: [id], order?: [id]}`
 *   (card-patches.ts; `after` on a new piece: the key it follows, null when first):
 *   groups keyed by service (`''`: other clusters; html: the group with no card), cards by cluster
 *   name (both as `data-key`, the name percent-encoded: card-patches.ts `liveKey`), history rows by
 *   request id (`data-request`; `''`: the "no records" row). `order` comes only when pieces that stay
 *   changed places among themselves.
 *   The page applies `sections`, then `groups`, then each group's `cards`, then `rows`; in each list
 *   `remove`, then `upsert` (replace in place, or insert after `after`), then `order`. Nothing
 *   changed: nothing is sent.
 * - `traffic`: one chart point, `{service, point, error, health}` (`health`: per target the legend's
 *   texts, health-view.ts `HealthTexts`). A card's health comes with the card, in a `patch`, and only
 *   when a value it shows changed (health-board.ts): a scrape that changed none renders no card.
 * The countdowns count in the browser from `<time data-until>`; the server renders again only on a
 * change and at the next window or evacuation boundary (one timer: render-schedule.ts, boundaries.ts),
 * never every second, and then only the cards whose inputs changed (card-cache.ts, live-state.ts).
 *
 * Lifecycle: `start` → running → `close` (once; later calls wait for it).
 */
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from '../logging';
import { AlarmPoller, type AlarmStatesView, type ConsoleAlarmSource } from './alarms';
import type { ZkSession, ZkTlsOptions } from '../zk';
import { renderPage, renderClustersNote, renderPlanes, renderStatus, shownPoint } from './page';
import type { evacuation, OperatorAlarmSource, OperatorRequests, QueueProbe } from '../operator';
import type { RatePoint } from '../metrics';
import { ACCESS_COOKIE, csrfRefusal, digest, hasAccess, isLoopback, listenProblem, matches, newCsrfToken } from './security';
import { alarmedFailouts, groupClusters, shownAlarmNames, type ConsoleSnapshot, type ServiceGroup } from './snapshot';
import { HttpSources } from './sources';
import { ZkView } from './zk-view';
import { escapeControlChars } from '../text';
import { ConsoleActions, parseActionRequest, type ActionAnswer } from './actions';
import { EventStreams, type StreamClientView } from './event-streams';
import { FabricActions, parseFabricCheck, parseFabricSend } from './fabric-actions';
import { DrillActions, parseDrillCheck, parseDrillSend } from './drill-actions';
import { drillsSection } from './drill-page';
import { EMPTY_FABRIC_TABLE, fabricFingerprint, FabricTables, type FabricTable } from './fabric-view';
import { DEFAULT_FABRICS_PATH } from '../fabrics';
import { DEFAULT_EVACUATIONS_PATH } from '../requests';
import { DEFAULT_DRILLS_PATH } from '../requests/drills';
import type { AlarmReader } from '../alarms';
import { fabricPieces, FabricRowHtml, type FabricPieces } from './fabric-page';
import { evacuationBoundary } from './boundaries';
import { RenderSchedule } from './render-schedule';
import { ClusterCards } from './card-cache';
import { freshCountdowns } from './card-patches';
import { LiveState, type LivePatch } from './live-state';
import { HISTORY_PAGE_SIZE } from './history-query';
import { registerHistoryRoutes } from './history-routes';
import { CardFabrics } from './cluster-filter';
import { registerClusterPage } from './cluster-page';
import { OutcomeTrails } from './outcome-trail';
import { HealthBoard } from './health-board';
import { shownLegend } from './health-view';

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
  /** Parent of the drill nodes (issue 24, item 7). Default `/failout/drills`. */
  readonly drillsBase?: string | undefined;
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
   * `FAILOUT_ALARMS_URL` or `--cloudwatch-alarms`), read once a second; undefined: the page says
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
  /** {@link alarmedFailouts} of the last render: when it changes, the poller reads at once. */
  private alarmedFailouts = '';
  private readonly streams: EventStreams;
  private readonly actions: ConsoleActions;
  private readonly fabricActions: FabricActions;
  private readonly drillActions: DrillActions;
  /** The earliest next run the drills section shows (a render boundary; Infinity: none). */
  private nextDrillRun = Infinity;
  /** What every browser shows (live-state.ts); undefined until the first render. */
  private live: LiveState | undefined;
  private readonly cards: ClusterCards;
  /** Each card's fabric, for the find form (cluster-filter.ts). */
  private readonly cardFabrics = new CardFabrics();
  /** Why each card's last failout ended, for an hour (outcome-trail.ts). */
  private readonly trails = new OutcomeTrails();
  /** Each target's health as the cards and charts show it (health-board.ts). */
  private readonly health: HealthBoard;
  /** When to render: after changes, and at the next boundary (render-schedule.ts). */
  // A change renders the cards first and the fabric table (a pass over every cluster) just after, so
  // a card's change never waits for the table; see renderAll.
  private readonly schedule = new RenderSchedule({ renderAll: () => this.renderAll(false), renderFabrics: () => this.renderFabrics() });
  /** The fabric tables, made again only where a change touched them, and their rows' HTML (fabric-view.ts, fabric-page.ts). */
  private readonly fabricTables = new FabricTables();
  private readonly fabricRows = new FabricRowHtml();
  /** When the fabric table was first left behind by a render (0: it is current). */
  private fabricsBehindSince = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private queue: { probe: QueueProbe | undefined; at: number } = { probe: undefined, at: 0 };
  private closing: Promise<void> | undefined;
  private app!: FastifyInstance;
  private urlValue = '';

  private constructor(private readonly options: ConsoleServerOptions) {
    this.csrfDigest = digest(this.csrfToken);
    this.tokenDigest = options.token === undefined ? undefined : digest(options.token);
    this.cards = new ClusterCards((cluster, properties, now) => options.requests.describe(cluster, properties, now));
    this.health = new HealthBoard([...(options.metricsUrls?.keys() ?? [])]);
    const log = options.logger;
    this.zkView = options.zk
      ? new ZkView({
          connectString: options.zk.connectString,
          tls: options.zk.tls,
          d2Base: options.d2Base,
          requestsBase: options.requestsBase,
          fabricsBase: options.fabricsBase ?? DEFAULT_FABRICS_PATH,
          evacuationsBase: options.evacuationsBase ?? DEFAULT_EVACUATIONS_PATH,
          drillsBase: options.drillsBase ?? DEFAULT_DRILLS_PATH,
          logger: log,
          onChange: () => this.schedule.request(),
        })
      : undefined;
    this.sources = new HttpSources({
      bridgeUrls: options.bridgeUrls ?? [],
      bridgeToken: options.bridgeToken,
      metricsUrls: options.metricsUrls ?? new Map(),
      trafficMetric: options.trafficMetric,
      logger: log,
      onBridges: () => this.schedule.request(),
      onTraffic: (service, point) => {
        const traffic = this.sources.services().find((t) => t.service === service);
        // The cards are rendered again only when a health they show changed (its rounded text, its
        // verdict or its reason: health-board.ts); else the fabric table's shares alone.
        const healthChanged = traffic !== undefined && this.health.update(traffic);
        this.onTraffic(service, point, traffic?.error);
        this.schedule.request(healthChanged);
      },
    });
    this.streams = new EventStreams({
      stallMs: options.streamStallMs,
      // A client back from a pause gets what changed since the version it has, each piece as it is now
      // (live-state.ts patchSince), or the whole state when that cannot be told: either way exactly
      // what every patch so far led to, so the next patch applies on top of it.
      catchUp: (since) => this.catchUpFrame(since),
      logger: log,
    });
    const alarmSource = options.alarmSource;
    // The alarms a request names (a failout's stop alarms, an evacuation's) are checked with the
    // worker's rule when the source can tell an unknown alarm from one without data (both readers
    // lib/operator builds can).
    const alarmChecker: OperatorAlarmSource | undefined = alarmSource !== undefined && isAlarmReader(alarmSource.reader) ? { label: alarmSource.label, reader: alarmSource.reader } : undefined;
    this.actions = new ConsoleActions({
      requests: options.requests,
      session: () => this.connectedSession(),
      rates: () => this.sources.currentRates(),
      alarms: () => alarmChecker,
      clusterState: (cluster, peers) => this.clusterState(cluster, peers),
      logger: log,
    });
    this.fabricActions = new FabricActions({
      requests: options.requests,
      session: () => this.connectedSession(),
      alarms: () => alarmChecker,
      fabricState: (request) => this.fabricState(request),
      logger: log,
    });
    this.drillActions = new DrillActions({
      requests: options.requests,
      session: () => this.connectedSession(),
      alarms: () => alarmSource?.reader,
      paths: {
        d2Base: options.d2Base,
        requestsBase: options.requestsBase,
        drillsBase: options.drillsBase ?? DEFAULT_DRILLS_PATH,
        fabricsBase: options.fabricsBase ?? DEFAULT_FABRICS_PATH,
        evacuationsBase: options.evacuationsBase ?? DEFAULT_EVACUATIONS_PATH,
      },
      drillState: (drill) => JSON.stringify(this.zkView?.drills().find((d) => d.name === drill) ?? null),
      logger: log,
    });
    this.alarms = alarmSource
      ? new AlarmPoller({
          source: alarmSource,
          names: () => this.shownAlarms,
          logger: log,
          onChange: () => this.schedule.request(),
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
    server.renderAll();
    return server;
  }

  /** `http://127.0.0.1:<port>/`. */
  get url(): string {
    return this.urlValue;
  }

  /** The snapshot the page shows now. */
  snapshot(now = Date.now(), withFabrics = true): ConsoleSnapshot {
    const view = this.zkView;
    const connection = view?.connection() ?? { state: 'unreachable' as const, error: 'no ZooKeeper configured (set ZK_CONNECT or pass --zk)', since: now };
    return {
      now,
      zk: { connect: this.options.zk?.connectString ?? '(not configured)', ...connection },
      queue: { url: this.options.requests.queueUrl, ...this.queue },
      groups: this.groups(now),
      // The live first page of the history; older pages and filters are queries (history-routes.ts).
      records: view?.requestRecords().slice(0, HISTORY_PAGE_SIZE) ?? [],
      bridges: this.sources.bridges(),
      traffic: this.sources.services(),
      trafficHealth: new Map(this.sources.services().map((t) => [t.service, this.health.legend(t.service, new Set(t.points.flatMap((p) => Object.keys(p.rates))))])),
      alarms: this.alarmsView(),
      fabrics: withFabrics ? this.fabrics(now) : EMPTY_FABRIC_TABLE,
    };
  }

  /** Fabrics × services as ZooKeeper has them now, with the shares from the last scrapes. */
  private fabrics(now: number): FabricTable {
    const view = this.zkView;
    if (view === undefined) return EMPTY_FABRIC_TABLE;
    return this.fabricTables.build({
      services: view.services().map((s) => s.name),
      clusters: view.clusters(),
      maps: view.fabricMaps(),
      evacuations: view.evacuations(),
      unreadableEvacuations: view.unreadableEvacuations(),
      rates: this.sources.currentRates(now),
      // The cards' descriptions when they are current (card-cache.ts): one description per change, not two.
      describe: (cluster, properties) => this.cards.status(cluster, properties, now),
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
    const services = view?.services() ?? [];
    const withFabrics = this.cardFabrics.decorate(this.cards.cards(view?.clusters() ?? [], now), services.map((s) => s.name), view?.fabricMaps() ?? []);
    const cards = this.trails.decorate(withFabrics, view?.requestRecords() ?? [], now);
    return this.health.decorate(groupClusters(services, cards));
  }

  private alarmsView(): AlarmStatesView {
    return this.alarms?.view() ?? { kind: 'off' };
  }

  /** Stops serving, the streams, the timers, the view and the request side. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers.splice(0)) clearInterval(timer);
      this.schedule.close();
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
    this.schedule.request();
  }

  /**
   * Renders everything that may have changed and sends the patch (if any) to every stream; sets the
   * timer for the next boundary. Returns the snapshot it rendered (the page is served from it).
   * `withFabrics` false (a change seen live): the fabric table follows in its own render a moment later,
   * unless it has been behind for a second already (changes arriving faster than the coalescing).
   */
  private renderAll(withFabrics = true): ConsoleSnapshot {
    const now = Date.now();
    const fabricsNow = withFabrics || (this.fabricsBehindSince !== 0 && now - this.fabricsBehindSince >= 1000);
    const snapshot = this.snapshot(now, fabricsNow);
    const drills = drillsSection(this.zkView?.drills() ?? [], this.zkView?.requestRecords() ?? [], now, this.zkView?.connection().state === 'connected');
    this.nextDrillRun = drills.nextRun;
    const sections = { status: renderStatus(snapshot).text, planes: renderPlanes(snapshot).text, 'clusters-note': renderClustersNote(snapshot).text, drills: drills.html };
    this.send(
      this.liveState().update({
        now,
        alarms: snapshot.alarms,
        sections,
        ...(fabricsNow ? { fabrics: this.fabricsSection(snapshot.fabrics, now) } : {}),
        groups: snapshot.groups,
        records: snapshot.records,
        recordCount: this.zkView?.requestRecords().length ?? 0,
      }),
    );
    if (fabricsNow) {
      this.fabricsBehindSince = 0;
    } else {
      if (this.fabricsBehindSince === 0) this.fabricsBehindSince = now;
      this.schedule.request(false);
    }
    // The cards may show other alarm names now: a change of the failouts that name alarms is read at
    // once (issue 24: their states with the card), anything else at the poller's pace.
    this.shownAlarms = shownAlarmNames(snapshot.groups);
    const alarmed = alarmedFailouts(snapshot.groups);
    this.alarms?.wake(alarmed !== this.alarmedFailouts);
    this.alarmedFailouts = alarmed;
    // The next moment a card or an evacuation changes on the clock alone (boundaries.ts).
    const boundary = (this.zkView?.evacuations() ?? []).reduce((next, node) => Math.min(next, evacuationBoundary(node, now)), Math.min(this.cards.nextBoundary(), this.trails.nextExpiry()));
    this.schedule.boundaryAt(Math.min(boundary, this.nextDrillRun), now);
    return snapshot;
  }

  /** Renders the fabric table alone (new request rates: its shares) and sends it if it changed. */
  private renderFabrics(): void {
    const now = Date.now();
    this.fabricsBehindSince = 0;
    this.send(this.liveState().update({ now, alarms: this.alarmsView(), fabrics: this.fabricsSection(this.fabrics(now), now) }));
  }

  private fabricsSection(table: FabricTable, now: number): FabricPieces {
    return fabricPieces(table, now, this.zkView?.connection().state === 'connected', this.fabricRows);
  }

  private liveState(): LiveState {
    return (this.live ??= new LiveState());
  }

  private send(patch: LivePatch | undefined): void {
    if (patch !== undefined && !this.closing) this.streams.broadcastState(sseFrame('patch', patch, this.live!.version), this.live!.version);
  }

  /** What a stream that has `since` needs to be current: a patch when the live state can tell it, else the whole state. */
  private catchUpFrame(since: string | undefined): { readonly frame: string; readonly version: string } {
    const live = this.currentLive();
    const patch = since === undefined ? undefined : live.patchSince(since);
    return { frame: patch === undefined ? this.fullFrame() : sseFrame('patch', patch, live.version), version: live.version };
  }

  /** The whole live state as one `sections` frame, with its version as the event id. */
  private fullFrame(): string {
    const live = this.currentLive();
    return sseFrame('sections', live.full(), live.version);
  }

  /** The live state, rendered first if it never was. */
  private currentLive(): LiveState {
    if (this.live === undefined) this.renderAll();
    return this.live!;
  }

  private onTraffic(service: string, point: RatePoint | undefined, error: string | undefined): void {
    // Names and errors come from the services' metrics: shown as text, control characters escaped.
    const health = shownLegend(this.health.legend(service, point === undefined ? [] : Object.keys(point.rates)));
    this.streams.broadcastPoint(sseFrame('traffic', { service: escapeControlChars(service), point: point === undefined ? null : shownPoint(point), error: error === undefined ? null : escapeControlChars(error), health }));
  }

  private buildApp(host: string): FastifyInstance {
    // Closing ends every connection, not only idle ones: a client that stops reading, or never finishes
    // its request, must not keep `failout console` running after Ctrl-C (the streams are ended first).
    const app = Fastify({ logger: false, bodyLimit: 64 * 1024, forceCloseConnections: true });
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
    app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(this.page()));
    // Browsers ask for it unprompted; an empty answer keeps the log free of 404s.
    app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());
    app.get('/events', (request: FastifyRequest<{ Querystring: { v?: string } }>, reply) => this.openStream(reply, lastVersion(request)));
    registerHistoryRoutes(app, () => this.zkView?.requestRecords() ?? []);
    registerClusterPage(app, () => {
      const now = Date.now();
      return { now, groups: this.groups(now), alarms: this.alarmsView(), records: this.zkView?.requestRecords() ?? [], connected: this.zkView?.connection().state === 'connected' };
    });
    app.post('/api/check', async (request, reply) => this.act(request, reply, parseActionRequest, (action) => this.actions.check(action)));
    app.post('/api/send', async (request, reply) => this.act(request, reply, parseActionRequest, (action) => this.actions.send(action)));
    app.post('/api/fabric/check', async (request, reply) => this.act(request, reply, parseFabricCheck, (check) => this.fabricActions.check(check)));
    app.post('/api/fabric/send', async (request, reply) => this.act(request, reply, parseFabricSend, (send) => this.fabricActions.send(send)));
    app.post('/api/drill/check', async (request, reply) => this.act(request, reply, parseDrillCheck, (check) => this.drillActions.check(check)));
    app.post('/api/drill/send', async (request, reply) => this.act(request, reply, parseDrillSend, (send) => this.drillActions.send(send)));
    app.setErrorHandler((err: { statusCode?: number; message?: string }, _request, reply) => {
      const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      if (status === 500) log.error({ err }, 'console: request failed');
      return reply.code(status).send({ kind: 'error', message: status === 500 ? 'internal error (see the console log)' : (err.message ?? 'bad request') });
    });
    return app;
  }

  /**
   * A cluster's failout as the console's view holds it, and its peers' (`named` and its failout's), as
   * one string (`absent`: no such cluster). Not hosts, which come and go (as the fabric fingerprint):
   * the Confirm's own judgement refuses a peer over its capacity.
   */
  private clusterState(cluster: string, named: readonly string[]): string {
    const clusters = this.zkView?.clusters() ?? [];
    const entry = clusters.find((c) => c.name === cluster);
    if (entry === undefined) return 'absent';
    const peers = [...new Set([...named, ...(entry.failout?.redirects ?? []).map((r) => r.peer)])].sort();
    const state = (name: string): unknown => {
      const peer = clusters.find((c) => c.name === name);
      return peer === undefined ? [name, 'absent'] : [name, peer.failout ?? null];
    };
    return JSON.stringify([entry.failout ?? null, peers.map(state)]);
  }

  /** What a fabric request's judgement is about, as the view holds it now (fabric-view.ts). */
  private fabricState(request: { readonly action: evacuation.FabricAction; readonly fabric: string }): string {
    const view = this.zkView;
    if (view === undefined) return 'no ZooKeeper';
    const state = { clusters: view.clusters(), maps: view.fabricMaps(), evacuations: view.evacuations(), unreadableEvacuations: view.unreadableEvacuations() };
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

  /**
   * The whole page, from the live state brought up to date first (its patch goes to the open streams),
   * so the page is exactly a version the event stream follows on from.
   */
  private page(): string {
    const snapshot = this.renderAll();
    const live = this.currentLive();
    // The HTML was rendered when each piece last changed: its countdowns say the time left now.
    const sections = live.full();
    for (const id of Object.keys(sections) as (keyof typeof sections)[]) sections[id] = freshCountdowns(sections[id], snapshot.now);
    return renderPage(snapshot, { csrfToken: this.csrfToken, requester: this.options.requester }, { sections, version: live.version });
  }

  /** `known`: the version the browser has (`?v=` of its page, or the `Last-Event-ID` of a reconnection). */
  private openStream(reply: FastifyReply, known: string | undefined): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
    });
    // The full state first, so a browser that reconnects after a gap catches up at once; none when it
    // has the current version already (its page was rendered from it, or nothing changed while away).
    const live = this.currentLive();
    this.streams.add(raw, `retry: 1000\n\n${known === live.version ? '' : sseFrame('sections', live.full(), live.version)}`, live.version);
  }
}

/** One SSE frame: `event:`, the event `id:` when given (the browser's `Last-Event-ID`), and one `data:` line of JSON (JSON has no raw newlines). */
export function sseFrame(event: string, data: unknown, id?: string): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** The version a browser says it has: `Last-Event-ID` (an EventSource reconnecting), else `?v=` (its page's). */
function lastVersion(request: FastifyRequest<{ Querystring: { v?: string } }>): string | undefined {
  const header = request.headers['last-event-id'];
  return (typeof header === 'string' && header !== '' ? header : undefined) ?? request.query.v;
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

