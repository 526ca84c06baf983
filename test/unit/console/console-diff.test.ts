import type { FailoutBucketConfig, FailoutProperties } from '../../../lib/d2';
import { failoutChanges } from '../../../lib/console/diff';
import { describeFailout } from '../../../lib/operator/cluster-status';

// The confirm step's "what changes" lines: the state after a request against the failout the
// cluster has now, as the operator reads them before sending (issue 21, item 7).

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

function window(from: number, to: number, offlineAt: number, onlineAt: number, requestId = 'r-old', extra: Partial<FailoutBucketConfig> = {}): FailoutBucketConfig {
  return { bucketOfflineRange: { from, to }, offlineAt, onlineAt, requestId, ...extra };
}

function props(peers: [string, number][], buckets: FailoutBucketConfig[]): FailoutProperties {
  return { redirects: peers.map(([peer, weight]) => ({ peer, weight })), ignoredRedirectEntries: 0, buckets };
}

const status = (p: FailoutProperties | null) => describeFailout('greetings-lor1', p, NOW);

/** A 2 h failout that started 8 minutes ago, 100 % to lva1 ×2 and ltx1 ×1, stopped by an alarm. */
const ACTIVE = props(
  [
    ['greetings-lva1', 2],
    ['greetings-ltx1', 1],
  ],
  [window(0, 99, NOW - 8 * MIN, NOW + 112 * MIN, 'r-old', { stopAlarms: ['greetings-5xx'] })],
);

describe('the confirm step shows what a request changes against the active failout', () => {
  it('a failout over an active one: the window it replaces, the peers, the share and the stop alarms', () => {
    // Prepare: 30 minutes, half the traffic, to lva1 alone, no stop alarm
    const after = props([['greetings-lva1', 1]], [window(0, 49, NOW, NOW + 30 * MIN, 'r-new')]);

    // Act
    const lines = failoutChanges(status(ACTIVE), status(after), NOW);

    // Assess
    expect(lines).toEqual([
      'replaces the active 2h window (1h 52m left) → 30m (ends 2026-12-01T12:30:00Z)',
      'peers: greetings-lva1 ×2, greetings-ltx1 ×1 → greetings-lva1 ×1',
      'share: 100% → 50%',
      'stop alarms: greetings-5xx → none',
    ]);
  });

  it('an extend: where the end moves, and nothing else', () => {
    // Prepare: the same window, ending in 45 minutes
    const after = props(
      [
        ['greetings-lva1', 2],
        ['greetings-ltx1', 1],
      ],
      [window(0, 99, NOW - 8 * MIN, NOW + 45 * MIN, 'r-old', { stopAlarms: ['greetings-5xx'] })],
    );

    // Act
    const lines = failoutChanges(status(ACTIVE), status(after), NOW);

    // Assess
    expect(lines).toEqual(['window end: in 1h 52m (2026-12-01T13:52:00Z) → in 45m (2026-12-01T12:45:00Z), 1h 7m earlier']);
  });

  it('a restore: the failout it ends and where the traffic goes', () => {
    // Act
    const lines = failoutChanges(status(ACTIVE), status(null), NOW);

    // Assess
    expect(lines).toEqual(['ends the active 2h window (1h 52m left; 100% moved to greetings-lva1 ×2, greetings-ltx1 ×1): all traffic returns to greetings-lor1']);
  });

  it('a failout of a serving cluster, and a ramp replacing a scheduled window', () => {
    // Prepare
    const ramp = props([['greetings-lva1', 1]], [window(0, 9, NOW, NOW + HOUR, 'r-new'), window(10, 99, NOW + 5 * MIN, NOW + HOUR, 'r-new')]);
    const scheduled = props([['greetings-lva1', 1]], [window(0, 99, NOW + 10 * MIN, NOW + 70 * MIN)]);
    const ended = props([['greetings-lva1', 1]], [window(0, 99, NOW - 2 * HOUR, NOW - HOUR)]);

    // Act
    const fresh = failoutChanges(status(null), status(ramp), NOW);
    const overEnded = failoutChanges(status(ended), status(ramp), NOW);
    const overScheduled = failoutChanges(status(scheduled), status(ramp), NOW);

    // Assess
    expect(fresh).toEqual(['greetings-lor1 has no active or scheduled failout: this starts one (1h, 100% moved in 2 ramp steps to greetings-lva1 ×1)']);
    expect(overEnded).toEqual(fresh);
    expect(overScheduled).toEqual(['replaces the scheduled 1h window (starts in 10m) → 1h (ends 2026-12-01T13:00:00Z)', 'ramp: none → 2 steps']);
  });

  it('says what force overrides: a forced failout over an unforced one, and one of a serving cluster', () => {
    // Prepare: the judge marks a forced request's windows with what force overrode
    const forced = props([['greetings-ltx1', 1]], [window(0, 99, NOW, NOW + 2 * HOUR, 'r-new', { forced: ['capacity', 'stranding'] })]);

    // Act
    const over = failoutChanges(status(ACTIVE), status(forced), NOW);
    const fresh = failoutChanges(status(null), status(forced), NOW);

    // Assess
    expect(over).toContain('force: not forced → overrides capacity, stranding');
    expect(fresh).toEqual(['greetings-lor1 has no active or scheduled failout: this starts one (2h, 100% moved to greetings-ltx1 ×1)', 'force: overrides capacity, stranding']);
  });

  it('a restore of a serving cluster changes nothing, and says so', () => {
    expect(failoutChanges(status(null), status(null), NOW)).toEqual(['greetings-lor1 has no active or scheduled failout: nothing changes']);
  });
});

describe('the confirm step of a ramp steered (hold, resume, advance)', () => {
  // 20 % since 5 minutes ago, 60 % in 10 minutes, 100 % in 20, for an hour.
  const step = (from: number, to: number, at: number): FailoutBucketConfig => window(from, to, at, NOW + HOUR, 'r-ramp');
  const RAMP = props([['greetings-lva1', 1]], [step(0, 19, NOW - 5 * MIN), step(20, 59, NOW + 10 * MIN), step(60, 99, NOW + 20 * MIN)]);
  const HELD: FailoutProperties = { ...RAMP, buckets: [step(0, 19, NOW - 5 * MIN)], rampHold: { heldAt: NOW, buckets: [step(20, 59, NOW + 10 * MIN), step(60, 99, NOW + 20 * MIN)], requestId: 'r-hold' } };

  it.each([
    ['a hold: the ramp stays at its share, its later steps held (not the ramp dropped)', RAMP, HELD, ['ramp: step 1 of 3 (20% now; 60% in 10m) → held at 20% (60%, 100% held)']],
    ['a resume: the held steps scheduled again', HELD, { ...RAMP, buckets: [step(0, 19, NOW - 5 * MIN), step(20, 59, NOW + 20 * MIN), step(60, 99, NOW + 30 * MIN)] }, ['ramp: held at 20% (60%, 100% held) → step 1 of 3 (20% now; 60% in 20m)']],
    ['an advance: the next step starts now', RAMP, { ...RAMP, buckets: [step(0, 19, NOW - 5 * MIN), step(20, 59, NOW), step(60, 99, NOW + 20 * MIN)] }, ['ramp: step 1 of 3 (20% now; 60% in 10m) → step 2 of 3 (60% now; 100% in 20m)']],
    [
      'an advance of a ramp not started yet: its first step starts now (the same windows, not a replacement)',
      { ...RAMP, buckets: [step(0, 19, NOW + 5 * MIN), step(20, 59, NOW + 10 * MIN), step(60, 99, NOW + 20 * MIN)] },
      { ...RAMP, buckets: [step(0, 19, NOW), step(20, 59, NOW + 10 * MIN), step(60, 99, NOW + 20 * MIN)] },
      ['ramp: not started (20% in 5m) → step 1 of 3 (20% now; 60% in 10m)'],
    ],
  ])('%s', (_name, before, after, expected) => {
    // Act
    const lines = failoutChanges(status(before), status(after), NOW);

    // Assess
    expect(lines).toEqual(expected);
  });

  it('an extend of a ramp says only where the end moves', () => {
    const extended = { ...RAMP, buckets: RAMP.buckets.map((b) => ({ ...b, onlineAt: NOW + 2 * HOUR })) };
    expect(failoutChanges(status(RAMP), status(extended), NOW)).toEqual(['window end: in 1h (2026-12-01T13:00:00Z) → in 2h (2026-12-01T14:00:00Z), 1h later']);
  });
});
