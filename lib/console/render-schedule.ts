/**
 * When the console renders (issue 24, item 2): 50 ms after a change (a watch storm becomes one
 * render), and once at the next window or evacuation boundary (boundaries.ts): one timer, moved
 * whenever the next boundary moves, never a tick every second. A scrape of request rates asks for the
 * fabric table alone; any other change for everything.
 *
 * Lifecycle: running from construction → closed (`close`: no render after it). Concurrency: event loop
 * only; the callbacks run from timers, one at a time.
 */
import { boundaryDelay } from './boundaries';

/** Options of {@link RenderSchedule}. */
export interface RenderScheduleOptions {
  /** Renders everything and sends what changed (a change of anything, or a boundary passed). */
  readonly renderAll: () => void;
  /** Renders the fabric table alone (new request rates) and sends it if it changed. */
  readonly renderFabrics: () => void;
  /** How long changes are gathered before one render. Default 50 ms. */
  readonly coalesceMs?: number;
}

/** The console's two render timers: the coalescing one and the boundary one. */
export class RenderSchedule {
  private state: 'running' | 'closed' = 'running';
  /** A render is due: of everything, or only of the fabric table. */
  private due: { readonly timer: NodeJS.Timeout; all: boolean } | undefined;
  /** The timer for the next boundary, and the boundary it is for. */
  private boundary: { readonly timer: NodeJS.Timeout; readonly at: number } | undefined;

  constructor(private readonly options: RenderScheduleOptions) {}

  /** Asks for a render soon: `all` (default) for everything, false for the fabric table alone. */
  request(all = true): void {
    if (this.state !== 'running') return;
    if (this.due !== undefined) {
      this.due.all ||= all;
      return;
    }
    const timer = setTimeout(() => {
      const due = this.due;
      this.due = undefined;
      if (this.state !== 'running') return;
      if (due?.all ?? true) this.options.renderAll();
      else this.options.renderFabrics();
    }, this.options.coalesceMs ?? 50);
    this.due = { timer, all };
  }

  /**
   * Sets the one boundary timer for `at` (epoch ms; `Infinity`: none), replacing the one set before;
   * when it fires, everything is rendered (a card whose boundary passed is made again: card-cache.ts).
   */
  boundaryAt(at: number, now: number): void {
    if (this.state !== 'running' || this.boundary?.at === at) return;
    clearTimeout(this.boundary?.timer);
    this.boundary = undefined;
    if (at === Number.POSITIVE_INFINITY) return;
    const timer = setTimeout(() => {
      this.boundary = undefined;
      this.request();
    }, boundaryDelay(at, now));
    timer.unref();
    this.boundary = { timer, at };
  }

  /** The boundary the timer is set for (`Infinity`: none): for tests and diagnostics. */
  get nextBoundary(): number {
    return this.boundary?.at ?? Number.POSITIVE_INFINITY;
  }

  /** Stops both timers; nothing renders after this. */
  close(): void {
    this.state = 'closed';
    clearTimeout(this.due?.timer);
    clearTimeout(this.boundary?.timer);
    this.due = undefined;
    this.boundary = undefined;
  }
}
