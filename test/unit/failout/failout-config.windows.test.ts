import { configOf } from './config-factories';

// isFailedOut / isBucketFailedOut: scheduled starts and ends take effect with no further write.

describe('FailoutConfig windows', () => {
  const start = 1_000_000;
  const end = 2_000_000;

  it.each([
    ['before a scheduled start', { offlineAt: start, onlineAt: end }, start - 1, false],
    ['at the scheduled start', { offlineAt: start, onlineAt: end }, start, true],
    ['inside the window', { offlineAt: start, onlineAt: end }, start + 500, true],
    ['one millisecond before the scheduled end', { offlineAt: start, onlineAt: end }, end - 1, true],
    ['at the scheduled end', { offlineAt: start, onlineAt: end }, end, false],
    ['after the scheduled end', { offlineAt: start, onlineAt: end }, end + 1, false],
    ['long after a start with no end', { offlineAt: start }, start + 1e12, true],
    ['before a start with no end', { offlineAt: start }, start - 1, false],
  ])('is failed out %s: %p at %p → %p', (_name, window, now, expected) => {
    // Prepare
    const config = configOf('c1', ['p1'], [window]);

    // Act
    const failedOut = config.isFailedOut(now);

    // Assess
    expect(failedOut).toBe(expected);
  });

  it('is failed out when any one of several windows is active', () => {
    // Prepare
    const config = configOf('c1', ['p1'], [
      { offlineAt: 10, onlineAt: 20 },
      { offlineAt: 30, onlineAt: 40 },
    ]);

    // Act
    const states = [5, 15, 25, 35, 45].map((now) => config.isFailedOut(now));

    // Assess
    expect(states).toEqual([false, true, false, true, false]);
  });

  it.each([
    [0, true],
    [49, true],
    [50, false],
    [99, false],
  ])('takes bucket %p offline = %p under a 0–49 window', (bucket, expected) => {
    // Prepare
    const config = configOf('c1', ['p1'], [{ from: 0, to: 49, offlineAt: 0 }]);

    // Act
    const offline = config.isBucketFailedOut(bucket, 1);

    // Assess
    expect(offline).toBe(expected);
  });

  it('takes no bucket offline outside the window', () => {
    // Prepare
    const config = configOf('c1', ['p1'], [{ from: 0, to: 99, offlineAt: 100, onlineAt: 200 }]);

    // Act
    const offline = [0, 50, 99].some((bucket) => config.isBucketFailedOut(bucket, 50));

    // Assess
    expect(offline).toBe(false);
  });

  it('defaults the clock to now', () => {
    // Prepare
    const config = configOf('c1', ['p1'], [{ offlineAt: Date.now() - 1000, onlineAt: Date.now() + 60_000 }]);

    // Act / Assess
    expect(config.isFailedOut()).toBe(true);
    expect(config.isBucketFailedOut(7)).toBe(true);
  });
});
