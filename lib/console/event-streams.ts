/**
 * The console's server-sent event streams, with back-pressure per client (issue 21, item 8). Every
 * browser gets the same frames; a client that stops reading must not make the server hold an
 * ever-growing queue of them (five stalled clients once grew the console from 161 to 224 MiB in 90 s).
 *
 * Per client, by its socket's own signal:
 * - `flowing`: frames are written. When a write reports a full buffer (`write` returns false: the
 *   kernel's socket buffers are full and Node's holds more than its high-water mark), the client is
 *   `paused`.
 * - `paused`: nothing more is written to it (neither frames nor heartbeats), so what the server holds
 *   for it stays at the high-water mark plus the one frame that filled it. The patches (issue 24) only
 *   make sense in sequence, so a client that missed one must not get the next: on `drain`, a client
 *   that missed a state frame gets one frame from the version it has to the current one (`catchUp`:
 *   live-state.ts's `patchSince`, only the latest of what changed per piece, or its `full` state when
 *   too much changed), after which the patches apply on top, and flows again; the traffic points it
 *   missed are a gap in its chart. All it holds meanwhile is the version it has: what changed is
 *   kept once for every client (patch-log.ts), within bounds.
 * - A client paused for longer than `stallMs` is dropped: its socket is reset (the unsent bytes are
 *   freed at once, the kernel's included). A browser's EventSource reconnects by itself and gets the
 *   full state, so dropping costs a live browser nothing; a client that never reads again is gone.
 *
 * Concurrency: event loop only.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../logging';

/** Options of {@link EventStreams}. */
export interface EventStreamsOptions {
  /** How long a client may stay paused (not reading) before it is dropped. Default 30 s. */
  readonly stallMs?: number | undefined;
  /** Period of the keep-alive comment. Default 15 s. */
  readonly heartbeatMs?: number | undefined;
  /**
   * One frame that takes a client from the state version `since` (undefined: none known) to the
   * current one, for a client that catches up after a pause; with the version it leads to.
   */
  readonly catchUp: (since: string | undefined) => { readonly frame: string; readonly version: string };
  readonly logger: Logger;
}

/** One client as {@link EventStreams.clients} reports it. */
export interface StreamClientView {
  /** Bytes written to the client and not yet handed to the kernel (Node's buffers). */
  readonly unsentBytes: number;
  /** Since when it is paused (epoch ms), undefined while flowing. */
  readonly pausedSince: number | undefined;
}

/** A client's state: flowing, or paused since a time (with the timer that drops it). */
interface Client {
  readonly raw: ServerResponse;
  /** The version of the last state frame written to it (what it shows once it has read it). */
  version: string | undefined;
  /** Paused: since when, the timer that drops it, and whether a state frame was skipped meanwhile. */
  state: { readonly kind: 'flowing' } | { readonly kind: 'paused'; readonly since: number; readonly timer: NodeJS.Timeout; missedState: boolean };
  readonly heartbeat: NodeJS.Timeout;
}

/** The open event streams of one console server. */
export class EventStreams {
  private readonly clientSet = new Set<Client>();
  private droppedCount = 0;

  constructor(private readonly options: EventStreamsOptions) {}

  /**
   * Adopts a response whose headers are written: `first` (the retry hint and the full state, at
   * `version`) goes out at once, and the client is forgotten when its connection closes.
   */
  add(raw: ServerResponse, first: string, version?: string): void {
    const heartbeat = setInterval(() => this.write(client, ': keep-alive\n\n'), this.options.heartbeatMs ?? 15_000);
    heartbeat.unref();
    const client: Client = { raw, version, state: { kind: 'flowing' }, heartbeat };
    this.clientSet.add(client);
    raw.on('drain', () => this.resume(client));
    raw.on('close', () => this.forget(client));
    this.write(client, first);
  }

  /** Writes a state frame (a patch, to state `version`) to every flowing client; a paused one catches up on drain. */
  broadcastState(frame: string, version?: string): void {
    for (const client of this.clientSet) {
      if (client.state.kind === 'paused') {
        client.state.missedState = true;
      } else {
        this.write(client, frame);
        client.version = version;
      }
    }
  }

  /** Writes a point (traffic) to every flowing client; a paused one misses it (a gap in its chart). */
  broadcastPoint(frame: string): void {
    for (const client of this.clientSet) this.write(client, frame);
  }

  /** The clients now, for the console's diagnostics and tests. */
  clients(): StreamClientView[] {
    return [...this.clientSet].map((c) => ({ unsentBytes: c.raw.writableLength, pausedSince: c.state.kind === 'paused' ? c.state.since : undefined }));
  }

  /** Clients dropped so far for not reading. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    for (const client of [...this.clientSet]) {
      this.forget(client);
      client.raw.end();
    }
  }

  private write(client: Client, frame: string): void {
    if (client.state.kind === 'paused' || client.raw.destroyed) return;
    if (client.raw.write(frame)) return;
    const since = Date.now();
    const timer = setTimeout(() => this.drop(client, since), this.options.stallMs ?? 30_000);
    timer.unref();
    client.state = { kind: 'paused', since, timer, missedState: false };
  }

  /** The client read what was buffered: what it missed of the state if any, then every frame again. */
  private resume(client: Client): void {
    if (client.state.kind !== 'paused') return;
    const missed = client.state.missedState;
    clearTimeout(client.state.timer);
    client.state = { kind: 'flowing' };
    if (!missed) return;
    const { frame, version } = this.options.catchUp(client.version);
    this.write(client, frame);
    client.version = version;
  }

  private drop(client: Client, since: number): void {
    if (!this.clientSet.has(client)) return;
    const unsentBytes = client.raw.writableLength;
    this.forget(client);
    this.droppedCount++;
    this.options.logger.warn({ pausedMs: Date.now() - since, unsentBytes, remote: client.raw.socket?.remoteAddress }, 'console: dropped an event-stream client that stopped reading');
    // A reset, not an orderly close: the bytes queued for a client that does not read are freed now.
    const socket = client.raw.socket;
    try {
      if (socket) socket.resetAndDestroy();
      else client.raw.destroy();
    } catch {
      // Only a plain TCP socket can be reset (not a TLS one): closed the ordinary way instead.
      socket?.destroy();
    }
  }

  private forget(client: Client): void {
    if (!this.clientSet.delete(client)) return;
    clearInterval(client.heartbeat);
    if (client.state.kind === 'paused') clearTimeout(client.state.timer);
  }
}
