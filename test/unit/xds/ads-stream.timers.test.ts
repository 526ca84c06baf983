/**
 * AdsStream does-not-exist timer and restart backoff (fake timers).
 */
import { CDS_TYPE_URL, fakeAny } from '../../helpers/xds-fakes';
import { streamFixture, tick } from './ads-stream-setup';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('AdsStream does-not-exist timer', () => {
  it('fires 15 s after the name was written on a ready transport', () => {
    const { stream, doesNotExist } = streamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('started');
    tick();
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('requested');
    jest.advanceTimersByTime(14_999);
    expect(doesNotExist).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(doesNotExist).toEqual(['c1']);
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('timeout');
    stream.close();
  });

  it('honours a configured timeout', () => {
    const { stream, doesNotExist } = streamFixture(500);
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    jest.advanceTimersByTime(500);
    expect(doesNotExist).toEqual(['c1']);
    stream.close();
  });

  it('does not start before the transport is ready, and starts when it becomes ready', () => {
    const { stream, transport, doesNotExist } = streamFixture();
    transport.ready = false;
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    jest.advanceTimersByTime(20_000);
    expect(doesNotExist).toEqual([]);
    transport.ready = true;
    stream.onTransportReady();
    jest.advanceTimersByTime(15_000);
    expect(doesNotExist).toEqual(['c1']);
    stream.close();
  });

  it('never starts for a resource the owner has cached', () => {
    const { stream, cached, doesNotExist } = streamFixture();
    cached.add('c1');
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    jest.advanceTimersByTime(60_000);
    expect(doesNotExist).toEqual([]);
    stream.close();
  });

  it('runs for a cached name a response left out when the owner asks it to await it, and stops when a response carries it', () => {
    const { stream, transport, cached, doesNotExist } = streamFixture(500);
    cached.add('c1').add('c2');
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(CDS_TYPE_URL, 'c2');
    tick();
    stream.awaitFromServer(CDS_TYPE_URL, 'c1');
    stream.awaitFromServer(CDS_TYPE_URL, 'c2');
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('requested');
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n', resources: [fakeAny(CDS_TYPE_URL, 'c2', 1)] });
    jest.advanceTimersByTime(500);
    expect(doesNotExist).toEqual(['c1']);
    stream.close();
  });

  it('stops when the resource arrives', () => {
    const { stream, transport, doesNotExist } = streamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    jest.advanceTimersByTime(10_000);
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n', resources: [fakeAny(CDS_TYPE_URL, 'c1', 1)] });
    jest.advanceTimersByTime(60_000);
    expect(doesNotExist).toEqual([]);
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('received');
    stream.close();
  });

  it('stops on stream failure and restarts 15 s after the resend', () => {
    const { stream, transport, doesNotExist } = streamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    jest.advanceTimersByTime(10_000);
    transport.current.close(new Error('unavailable'));
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('started');
    jest.advanceTimersByTime(1000); // retry 0 after 1 s
    jest.advanceTimersByTime(1); // the resend (sinon delays 0-ms timers set during a tick by 1 ms)
    expect(transport.calls).toHaveLength(2);
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('requested');
    jest.advanceTimersByTime(14_999);
    expect(doesNotExist).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(doesNotExist).toEqual(['c1']);
    stream.close();
  });

  it('does not start for a name subscribed while no call is open', () => {
    const { stream, transport, doesNotExist } = streamFixture();
    stream.start();
    tick();
    transport.current.close(new Error('refused'));
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    jest.advanceTimersByTime(900);
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('started');
    expect(doesNotExist).toEqual([]);
    stream.close();
  });
});

describe('AdsStream restart', () => {
  it('reports a failure before the first response as a connectivity failure and backs off 1 s, 1.6 s, 2.56 s', () => {
    const { stream, transport, errors } = streamFixture();
    stream.start();
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      transport.current.close(new Error('refused'));
      const calls = transport.calls.length;
      let waited = 0;
      while (transport.calls.length === calls) {
        jest.advanceTimersByTime(10);
        waited += 10;
      }
      delays.push(waited);
    }
    expect(delays).toEqual([1000, 1600, 2560]);
    expect(errors.map((e) => [e.beforeFirstResponse, e.error.kind])).toEqual([
      [true, 'connection'],
      [true, 'connection'],
      [true, 'connection'],
    ]);
    expect(errors[0]?.error.message).toContain('primary:1');
    stream.close();
  });

  it('reports a failure after a response as not a connectivity failure, retries at once and resets the backoff', () => {
    const { stream, transport, errors } = streamFixture();
    stream.start();
    transport.current.close(new Error('refused'));
    jest.advanceTimersByTime(1000);
    transport.current.close(new Error('refused'));
    jest.advanceTimersByTime(1600);
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n', resources: [] });
    transport.current.close(undefined);
    expect(errors.at(-1)).toMatchObject({ beforeFirstResponse: false });
    expect(errors.at(-1)?.error.kind).toBe('streamFailedAfterRecv');
    jest.advanceTimersByTime(0);
    expect(transport.calls).toHaveLength(4);
    transport.current.close(new Error('refused'));
    jest.advanceTimersByTime(999);
    expect(transport.calls).toHaveLength(4);
    jest.advanceTimersByTime(1);
    expect(transport.calls).toHaveLength(5);
    stream.close();
  });

  it('brings a pending retry forward when the cap is lowered', () => {
    const { stream, transport } = streamFixture();
    stream.start();
    for (let i = 0; i < 8; i++) {
      transport.current.close(new Error('refused'));
      jest.advanceTimersByTime(200_000);
    }
    transport.current.close(new Error('refused')); // next delay 1000 × 1.6^8 ≈ 43 s
    const calls = transport.calls.length;
    stream.rescheduleRetry(5000);
    jest.advanceTimersByTime(5000);
    expect(transport.calls).toHaveLength(calls + 1);
    stream.close();
  });

  it('retries at once when the transport becomes ready during a backoff, not when a call is open', () => {
    const { stream, transport } = streamFixture();
    stream.start();
    for (let i = 0; i < 4; i++) {
      transport.current.close(new Error('refused'));
      jest.advanceTimersByTime(200_000);
    }
    transport.current.close(new Error('refused')); // next delay 1000 × 1.6^4 ≈ 6.6 s
    const calls = transport.calls.length;
    jest.advanceTimersByTime(100);
    stream.onTransportReady();
    expect(transport.calls).toHaveLength(calls + 1);
    stream.onTransportReady();
    jest.advanceTimersByTime(10_000);
    expect(transport.calls).toHaveLength(calls + 1);
    stream.close();
  });

  it('cancels the call and reports nothing after close', () => {
    const { stream, transport, errors, doesNotExist } = streamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    const call = transport.current;
    stream.close();
    expect(call.cancelled).toBe(true);
    call.close(new Error('cancelled'));
    jest.advanceTimersByTime(60_000);
    expect(errors).toEqual([]);
    expect(doesNotExist).toEqual([]);
    expect(transport.calls).toHaveLength(1);
    expect(stream.state).toBe('closed');
  });
});
