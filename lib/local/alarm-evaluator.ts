/**
 * The local stack's stand-in for CloudWatch alarms (issue 16, "Stop conditions"): one alarm per
 * cluster, `<cluster>-errors`, over the traffic generator's error rate for the requests that landed on
 * that cluster in the last `windowMs`, evaluated every `intervalMs`. Past `thresholdPct` (with at
 * least `minSamples` requests in the window) it goes to ALARM, below it back to OK. Each transition is
 * emitted as the very EventBridge "CloudWatch Alarm State Change" JSON the guard Lambda gets in AWS,
 * into the same handler (its bundle, through `emit`).
 *
 * It also serves the states at `GET http://127.0.0.1:<port>/alarms` (FAILOUT_ALARMS_URL, the drills',
 * the request worker's and the CLI's alarm-state reader): `{"alarms":[{"name","state","since"}]}`,
 * listing EVERY alarm it evaluates, from its start, whatever its state: a name it does not list is
 * an alarm that does not exist here, which the worker refuses as a stop alarm (`unknownAlarm`), as
 * CloudWatch's DescribeAlarms tells a missing alarm from one without data.
 *
 * Differences from CloudWatch, on purpose: a window of a second instead of a minute (the figure of
 * issue 16 is "home within 1 s of the alarm"); no requests in the window reads as OK (CloudWatch's
 * `treatMissingData: notBreaching`), since a peer gets no traffic until a failout sends it some.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../logging';
import { alarmStateChangeEvent, type AlarmStateValue } from '../safety';
import type { Sample } from './traffic';
import type { PortReservation } from './net';

/** One alarm as served and as the evaluator keeps it. */
export interface LocalAlarm {
  readonly name: string;
  readonly state: AlarmStateValue;
  /** Epoch ms of the last transition (the evaluator's start for the first state). */
  readonly since: number;
}

/** One transition, as emitted. */
export interface AlarmTransition {
  readonly name: string;
  readonly from: AlarmStateValue;
  readonly to: AlarmStateValue;
  /** Epoch ms at which the evaluator decided. */
  readonly at: number;
  /** The event JSON handed to `emit`. */
  readonly event: Record<string, unknown>;
  /** What the guard returned for the event (its `GuardResponse`), or why it failed. */
  readonly response: Promise<unknown>;
}

/** Options of {@link AlarmEvaluator.start}. */
export interface AlarmEvaluatorOptions {
  /** Where the samples come from (the traffic generator). */
  readonly samplesSince: (since: number) => readonly Sample[];
  /** The clusters with an alarm each. */
  readonly clusters: readonly string[];
  /** Hands an event to the guard; a rejection is logged (CloudWatch would retry; the next transition is emitted anyway). */
  readonly emit: (event: Record<string, unknown>) => Promise<unknown>;
  /** Evaluation window. Default 1000 ms. */
  readonly windowMs?: number;
  /** Evaluation period. Default 100 ms. */
  readonly intervalMs?: number;
  /** Error rate, in percent, at or above which the alarm fires. Default 20. */
  readonly thresholdPct?: number;
  /** Fewest requests in the window to judge by; fewer read as OK. Default 5. */
  readonly minSamples?: number;
  /**
   * The port of `GET /alarms` on 127.0.0.1, held until the evaluator binds it. Default: a free one.
   * The stack reserves it before it starts the request worker, which reads its alarms there
   * (`FAILOUT_ALARMS_URL`) from its first request.
   */
  readonly port?: PortReservation;
  readonly logger?: Logger;
}

/** `http://127.0.0.1:<port>/alarms`: where an evaluator on `port` serves the states (FAILOUT_ALARMS_URL). */
export function alarmsUrl(port: number): string {
  return `http://127.0.0.1:${port}/alarms`;
}

/** The name of a cluster's alarm. */
export function errorAlarmName(cluster: string): string {
  return `${cluster}-errors`;
}

/**
 * Evaluates the alarms until stopped. Lifecycle: `start` → running → `close` (once).
 * Concurrency: the event loop only; `alarms` changes only in the timer's tick.
 */
export class AlarmEvaluator {
  private readonly alarms = new Map<string, LocalAlarm>();
  private readonly transitionLog: AlarmTransition[] = [];
  private readonly listeners = new Set<(t: AlarmTransition) => void>();
  private readonly pending = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private server: Server | undefined;
  private readonly log: Logger;

  private constructor(private readonly options: AlarmEvaluatorOptions) {
    this.log = options.logger ?? createLogger('alarm-evaluator');
    const now = Date.now();
    for (const cluster of options.clusters) this.alarms.set(errorAlarmName(cluster), { name: errorAlarmName(cluster), state: 'OK', since: now });
  }

  /** Starts evaluating and serving the states on 127.0.0.1 (a free port). */
  static async start(options: AlarmEvaluatorOptions): Promise<AlarmEvaluator> {
    const evaluator = new AlarmEvaluator(options);
    await evaluator.listen();
    evaluator.timer = setInterval(() => evaluator.evaluate(Date.now()), options.intervalMs ?? 100);
    return evaluator;
  }

  /** `http://127.0.0.1:<port>/alarms` (FAILOUT_ALARMS_URL). */
  get url(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('the alarm evaluator is not listening');
    return alarmsUrl(address.port);
  }

  /** Every alarm now. */
  states(): LocalAlarm[] {
    return [...this.alarms.values()];
  }

  /** One alarm's state now, or undefined for a name it does not evaluate. */
  state(name: string): AlarmStateValue | undefined {
    return this.alarms.get(name)?.state;
  }

  /** Transitions so far, oldest first. */
  transitions(): readonly AlarmTransition[] {
    return this.transitionLog;
  }

  /** Calls `listener` on every transition from now on (just after the event is handed to the guard); returns a function that stops it. */
  onTransition(listener: (t: AlarmTransition) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops evaluating, waits for the events in flight, closes the server. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.pending]);
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** One evaluation of every alarm at `now`; public so that a test can drive it. */
  evaluate(now: number): void {
    const windowMs = this.options.windowMs ?? 1000;
    const threshold = this.options.thresholdPct ?? 20;
    const minSamples = this.options.minSamples ?? 5;
    const counts = new Map<string, { total: number; errors: number }>();
    for (const s of this.options.samplesSince(now - windowMs)) {
      if (s.cluster === undefined) continue;
      const c = counts.get(s.cluster) ?? { total: 0, errors: 0 };
      c.total++;
      if (!s.ok) c.errors++;
      counts.set(s.cluster, c);
    }
    for (const cluster of this.options.clusters) {
      const name = errorAlarmName(cluster);
      const current = this.alarms.get(name)!;
      const c = counts.get(cluster) ?? { total: 0, errors: 0 };
      const ratePct = c.total === 0 ? 0 : (100 * c.errors) / c.total;
      const next: AlarmStateValue = c.total >= minSamples && ratePct >= threshold ? 'ALARM' : 'OK';
      if (next === current.state) continue;
      const reason = `Threshold Crossed: ${c.errors} of ${c.total} requests to ${cluster} failed in ${windowMs} ms (${ratePct.toFixed(1)} %, threshold ${threshold} %)`;
      this.transition(current, next, now, reason);
    }
  }

  private transition(current: LocalAlarm, to: AlarmStateValue, at: number, reason: string): void {
    this.alarms.set(current.name, { name: current.name, state: to, since: at });
    const event = alarmStateChangeEvent({ id: randomUUID(), alarmName: current.name, state: to, previousState: current.state, at, reason });
    this.log.info({ alarm: current.name, from: current.state, to, reason }, 'alarm state changed');
    const response = this.options.emit(event);
    const transition: AlarmTransition = { name: current.name, from: current.state, to, at, event, response };
    this.transitionLog.push(transition);
    if (this.transitionLog.length > 1000) this.transitionLog.shift();
    for (const listener of this.listeners) listener(transition);
    const settled = response
      .catch((err: unknown) => this.log.error({ alarm: current.name, err: err instanceof Error ? err.message : String(err) }, 'the guard failed on an alarm event'))
      .finally(() => this.pending.delete(settled));
    this.pending.add(settled);
  }

  private async listen(): Promise<void> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/alarms') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ alarms: this.states() }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const reserved = this.options.port;
      if (!reserved) server.listen(0, '127.0.0.1', () => resolve());
      else void reserved.release().then(() => server.listen(reserved.port, '127.0.0.1', () => resolve()));
    });
    this.server = server;
  }
}
