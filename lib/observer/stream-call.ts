/**
 * The grpc-js side of one observer ADS stream, SotW (`ads-stream.ts`) or delta
 * (`delta-ads-stream.ts`): the events that end the call (once), failing it, and writing responses
 * with flow control. The protocol lives in the stream; this is only the call.
 *
 * Flow control: changes are coalesced until the next turn of the event loop ({@link scheduleFlush});
 * while grpc-js still buffers a response for a slow client, no flush runs, and after `drain` one
 * does, so the client gets the latest state once, not every step (bounded memory).
 *
 * Concurrency: event loop only.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Lifecycle } from '../lifecycle';

/** What the stream does when the call asks. */
export interface StreamCallHandler<Req> {
  /** A request came in (never after the call ended). */
  request(req: Req): void;
  /** Time to send what changed (never while blocked or after the call ended). */
  flush(): void;
  /** The call ended (once). */
  closed(): void;
}

/** One ADS call with its lifecycle and flow control. */
export class StreamCall<Req> {
  /** `running` until the call ends, then `closed`. */
  lifecycle: Lifecycle = 'running';
  private flushScheduled = false;
  private blockedOnDrain = false;

  constructor(
    private readonly call: grpc.ServerDuplexStream<Req, unknown>,
    private readonly handler: StreamCallHandler<Req>,
  ) {
    call.on('data', (req: Req) => {
      if (this.lifecycle !== 'closed') handler.request(req);
    });
    call.on('end', () => {
      call.end();
      this.markClosed();
    });
    call.on('error', () => this.markClosed());
    call.on('cancelled', () => this.markClosed());
    call.on('close', () => this.markClosed());
  }

  /** True while grpc-js buffers a response the client has not taken yet: hold further ones. */
  get blocked(): boolean {
    return this.blockedOnDrain;
  }

  /** Ends the call with an error status (the observer closing). */
  fail(code: grpc.status, details: string): void {
    if (this.lifecycle === 'closed') return;
    this.call.emit('error', Object.assign(new Error(details), { code, details }));
    this.markClosed();
  }

  /** Runs the handler's flush on the next turn of the event loop (once however often asked), unless blocked or ended. */
  scheduleFlush(): void {
    if (this.flushScheduled || this.blockedOnDrain || this.lifecycle === 'closed') return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (this.lifecycle !== 'closed' && !this.blockedOnDrain) this.handler.flush();
    });
  }

  /** Writes an encoded response; when grpc-js buffers it, blocks flushes until `drain`, then schedules one. */
  write(bytes: Buffer): void {
    if (this.call.write(bytes)) return;
    this.blockedOnDrain = true;
    this.call.once('drain', () => {
      this.blockedOnDrain = false;
      this.scheduleFlush();
    });
  }

  private markClosed(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.handler.closed();
  }
}
