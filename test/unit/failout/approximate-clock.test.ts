import { approximateNow, APPROXIMATE_CLOCK_READS_PER_SAMPLE } from '../../../lib/failout/approximate-clock';

/** The clock behind the failout decision: Envoy's "approximate time", read at most once per loop turn and per N reads. */
describe('approximateNow', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('is never ahead of the wall clock and never behind it across an event-loop turn', async () => {
    const before = Date.now();
    const first = approximateNow();
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(Date.now());
    // A later turn re-reads the clock: a busy wait past the next millisecond shows it.
    await new Promise((resolve) => setImmediate(resolve));
    const target = Date.now() + 2;
    while (Date.now() < target) {
      /* spin into the next milliseconds */
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(approximateNow()).toBeGreaterThanOrEqual(target);
  });

  it('re-reads the clock after a bounded number of reads within one turn', () => {
    approximateNow();
    const target = Date.now() + 2;
    while (Date.now() < target) {
      /* the same turn: time moves on */
    }
    let seen = 0;
    for (let i = 0; i < APPROXIMATE_CLOCK_READS_PER_SAMPLE + 1; i++) seen = Math.max(seen, approximateNow());
    expect(seen).toBeGreaterThanOrEqual(target);
  });

  it('reads the real clock every time while only the timers are faked (a turn that never ends holds no sample)', () => {
    jest.useFakeTimers({ doNotFake: ['Date'] });
    approximateNow();
    const target = Date.now() + 2;
    while (Date.now() < target) {
      /* real time moves; the faked setImmediate never ends the turn */
    }
    expect(approximateNow()).toBeGreaterThanOrEqual(target);
    jest.useRealTimers();
    jest.useFakeTimers({ legacyFakeTimers: true });
    const later = Date.now() + 2;
    while (Date.now() < later) {
      /* the same with legacy fake timers */
    }
    expect(approximateNow()).toBeGreaterThanOrEqual(later);
  });

  it('reads a faked clock (jest fake timers, sinon) exactly, every time', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    expect(approximateNow()).toBe(1_000_000);
    jest.setSystemTime(2_000_000);
    expect(approximateNow()).toBe(2_000_000);
    jest.setSystemTime(3_000_000);
    expect(approximateNow()).toBe(3_000_000);
  });
});
