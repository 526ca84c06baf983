import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import pino from 'pino';
import { EventStreams } from '../../../lib/console/event-streams';

// The order a stream's frames reach a browser in (issue 24, item 4): patches in sequence while it
// reads; once it stops reading, no patch it could apply out of sequence, and the whole state when it
// reads again, after which the patches follow on from that state.

/** A response whose socket accepts writes until told it is full. */
class FakeResponse extends EventEmitter {
  readonly written: string[] = [];
  full = false;
  destroyed = false;
  writableLength = 0;
  socket = undefined;

  write(frame: string): boolean {
    this.written.push(frame);
    return !this.full;
  }

  end(): void {
    this.emit('close');
  }
}

describe('the event streams', () => {
  it('skips the patches of a client that stopped reading and gives it one catch-up from the version it has, then the next patches, when it reads again', () => {
    // Prepare
    let current = 'v0';
    const streams = new EventStreams({ catchUp: (since) => ({ frame: `catch-up ${since}→${current}`, version: current }), logger: pino({ level: 'silent' }), heartbeatMs: 60_000, stallMs: 60_000 });
    const raw = new FakeResponse();
    streams.add(raw as unknown as ServerResponse, 'first', 'v0');

    // Act: p1 read; p2 fills the buffers; p3 while paused; drained; p4
    streams.broadcastState('p1', 'v1');
    raw.full = true;
    streams.broadcastState('p2', 'v2');
    current = 'v3';
    streams.broadcastState('p3', 'v3');
    raw.full = false;
    raw.emit('drain');
    streams.broadcastState('p4', 'v4');
    streams.close();

    // Assess: p2 was written before the pause (the client has v2 once it reads it); p3 never was
    expect(raw.written).toEqual(['first', 'p1', 'p2', 'catch-up v2→v3', 'p4']);
  });

  it('gives a client that missed nothing no catch-up', () => {
    // Prepare
    const streams = new EventStreams({ catchUp: () => ({ frame: 'full', version: 'v9' }), logger: pino({ level: 'silent' }), heartbeatMs: 60_000, stallMs: 60_000 });
    const raw = new FakeResponse();
    streams.add(raw as unknown as ServerResponse, 'first');

    // Act: the buffers fill with p1 and drain before the next patch
    raw.full = true;
    streams.broadcastState('p1');
    raw.full = false;
    raw.emit('drain');
    streams.broadcastState('p2');
    streams.close();

    // Assess
    expect(raw.written).toEqual(['first', 'p1', 'p2']);
  });
});
