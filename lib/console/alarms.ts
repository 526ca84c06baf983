/**
 * The states of the alarms the console shows (stop alarms on the cluster cards), read through the
 * safety module's {@link AlarmStates} port: the local stack's evaluator over HTTP, or CloudWatch
 * `DescribeAlarms` with the operator's credentials (lib/cli picks and builds the reader; the console
 * only holds the port). One poller per server, never one per browser: it asks only for the names the
 * page shows now, at most once per period (default 1 s, so an ALARM transition is on the page within
 * about 2 s: issue 24), and not at all while no card shows an alarm. A change of the failouts that
 * name alarms (one came, went, or changed its alarms) reads at once, without waiting for the period:
 * an operator who has just added a stop alarm sees its state with the card, not seconds later.
 *
 * Lifecycle: latent → started (`start`) → closed (`close`). Concurrency: the event loop only; one read
 * at a time.
 */
import type { Lifecycle } from '../lifecycle';
import type { AlarmState, AlarmStates } from '../safety';
import type { Logger } from '../logging';

/** Where alarm states come from, as the console is given it. */
export interface ConsoleAlarmSource {
  /** What the page calls the source (a URL without credentials, or "CloudWatch …"): shown as text, never a secret. */
  readonly label: string;
  /** The reader (lib/safety's `HttpAlarmStates` or `CloudWatchAlarmStates`). */
  readonly reader: AlarmStates;
}

/**
 * What the page knows of alarm states:
 * - `off`: no source configured (the page says so once, as a note, not an error);
 * - `waiting`: a source, not read yet (or no card shows an alarm);
 * - `read`: the states of the names asked for at `at`;
 * - `unreachable`: the last read failed (`error` says why); no state is shown rather than a stale one.
 */
export type AlarmStatesView =
  | { readonly kind: 'off' }
  | { readonly kind: 'waiting'; readonly source: string }
  | { readonly kind: 'read'; readonly source: string; readonly states: ReadonlyMap<string, AlarmState>; readonly at: number }
  | { readonly kind: 'unreachable'; readonly source: string; readonly error: string; readonly at: number };

/** Options of {@link AlarmPoller}. */
export interface AlarmPollerOptions {
  readonly source: ConsoleAlarmSource;
  /** The alarm names the page shows now (read before every poll). */
  readonly names: () => readonly string[];
  /** Shortest time between two reads, except the one a {@link AlarmPoller.wake} with `now` asks for. Default 1 s. */
  readonly periodMs?: number;
  /** Longest wait for one read before it counts as failed. Default 10 s. */
  readonly timeoutMs?: number;
  readonly logger: Logger;
  /** Called after the view changed. */
  readonly onChange: () => void;
}

/**
 * Default shortest time between two reads of the alarm source: one `DescribeAlarms` (or local GET) a
 * second per console server, whatever the number of browsers, while some card shows a stop alarm.
 */
export const ALARM_POLL_MS = 1000;

/** Access key ids (`AKIA…`, `ASIA…`) an SDK error might quote: never on a page or in a log. */
const ACCESS_KEY_ID = /\b(?:AKIA|ASIA|AIDA|AROA)[A-Z0-9]{12,}\b/g;

/** An error's message, without anything that looks like an access key id. */
export function alarmErrorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(ACCESS_KEY_ID, '<access key id>');
}

/** Reads the shown alarms' states on a timer that runs only while some are shown. */
export class AlarmPoller {
  private lifecycle: Lifecycle = 'idle';
  private viewValue: AlarmStatesView;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** A read was asked for `now` while one was in flight: it runs as soon as that one ends. */
  private urgent = false;
  /** When the last read started (epoch ms); reads are at least `periodMs` apart. */
  private lastStart = Number.NEGATIVE_INFINITY;
  private readonly periodMs: number;

  constructor(private readonly options: AlarmPollerOptions) {
    this.periodMs = options.periodMs ?? ALARM_POLL_MS;
    this.viewValue = { kind: 'waiting', source: options.source.label };
  }

  /** What the page shows now. */
  view(): AlarmStatesView {
    return this.viewValue;
  }

  /** Starts polling (a read as soon as a name is shown). */
  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    this.wake();
  }

  /**
   * Called whenever the page may show other names (every render): schedules a read unless one is
   * running or scheduled, no sooner than `periodMs` after the last one started. With `now` (the
   * failouts that name alarms changed), the read starts at once, or right after the one in flight.
   */
  wake(now = false): void {
    if (this.lifecycle !== 'running') return;
    if (now && this.busy) {
      this.urgent = true;
      return;
    }
    if (now && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.busy || this.timer !== undefined) return;
    if (this.options.names().length === 0) return;
    const delay = now ? 0 : Math.max(0, this.lastStart + this.periodMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, delay);
    this.timer.unref();
  }

  /** Stops the timer; a read in flight is dropped. */
  close(): void {
    this.lifecycle = 'closed';
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.lifecycle !== 'running') return;
    const names = [...new Set(this.options.names())].sort();
    if (names.length === 0) return; // idle until a card shows an alarm (the next render wakes us)
    this.busy = true;
    this.lastStart = Date.now();
    const source = this.options.source;
    let next: AlarmStatesView;
    try {
      const states = await withTimeout(source.reader.states(names), this.options.timeoutMs ?? 10_000);
      next = { kind: 'read', source: source.label, states, at: Date.now() };
      if (this.viewValue.kind === 'unreachable') this.options.logger.info({ source: source.label }, 'console: alarm states readable again');
    } catch (err) {
      const error = alarmErrorText(err);
      next = { kind: 'unreachable', source: source.label, error, at: Date.now() };
      // Once per outage, not on every read.
      if (this.viewValue.kind !== 'unreachable') this.options.logger.warn({ source: source.label, error }, 'console: alarm states could not be read');
    } finally {
      this.busy = false;
    }
    if (this.lifecycle !== 'running') return;
    this.viewValue = next;
    this.options.onChange();
    const urgent = this.urgent;
    this.urgent = false;
    this.wake(urgent);
  }
}

/** `promise`, or a rejection after `ms` (a read that hangs must not freeze the states). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
