/**
 * Issue 24, item 6, applied (pure): `rampHold`, `rampResume`, `rampAdvance` and `amend` on ramps in
 * every state, read back through the failout codec and the client runtime (what routes), and on many
 * clusters at once (holding one cluster's ramp leaves another's alone).
 */
import { parseClusterProperties, serializeClusterProperties, type ClusterProperties } from '../../../lib/d2';
import { createFailoutConfig } from '../../../lib/failout';
import { parseChangeRequest, type ChangeRequest } from '../../../lib/requests';
import { applyRequest, type PeerState } from '../../../lib/requests/apply-request';
import { restoredFailout } from '../../../lib/requests/evacuation-plan';
import { failoutInput, HOUR, NOW, restoreInput } from '../../helpers/requests';

const MINUTE = 60_000;
const healthy: PeerState = { exists: true, hostCount: 3, failoutProperties: null };
/** 10 % now, 50 % at +5 m, 100 % at +15 m; two hours. */
const RAMP = [{ percent: 10, duration: 'PT5M' }, { percent: 50, duration: 'PT10M' }, { percent: 100 }];

let ids = 0;
function accepted(body: object, now = NOW): ChangeRequest {
  const result = parseChangeRequest(JSON.stringify(body), { now });
  if (!result.ok) throw new Error(`rejected: ${result.rejection.reason}: ${result.rejection.message}`);
  return result.request;
}

const adjust = (action: string, overrides: Record<string, unknown> = {}) => ({ version: 1, requestId: `adj-${++ids}`, action, cluster: 'greetings-lor1', requestedBy: 'oncall@example.com', reason: 'INC-4711', ...overrides });

/** Applies `body` at `now` to `props`, read back as every client reads it (the codec's round trip). */
function apply(props: ClusterProperties, body: object, now: number): ClusterProperties {
  const result = applyRequest(props, accepted(body, now), { now, peers: () => healthy });
  if (!result.ok) throw new Error(`rejected: ${result.rejection.reason}: ${result.rejection.message}`);
  return parseClusterProperties(serializeClusterProperties(result.props));
}

function rejection(props: ClusterProperties, body: object, now: number) {
  const result = applyRequest(props, accepted(body, now), { now, peers: () => healthy });
  if (result.ok) throw new Error('applied');
  return result.rejection;
}

/** A ramping failout of `cluster` applied at NOW. */
function ramping(cluster = 'greetings-lor1', ramp: object[] = RAMP): ClusterProperties {
  return apply(parseClusterProperties({ clusterName: cluster, keep: 'me' }), failoutInput({ cluster, ramp }), NOW);
}

/** Percentage of the 100 buckets a client redirects at `at`. */
function shareAt(props: ClusterProperties, at: number): number {
  const config = createFailoutConfig(props.clusterName, props.failoutProperties);
  if (config === undefined) return 0;
  let moved = 0;
  for (let bucket = 0; bucket < 100; bucket++) if (config.isBucketFailedOut(bucket, at)) moved++;
  return moved;
}

describe('rampHold', () => {
  it('keeps the current share: the steps not started never start, at any time until the end', () => {
    const held = apply(ramping(), adjust('rampHold'), NOW + 6 * MINUTE);
    for (const at of [NOW + 6 * MINUTE, NOW + 15 * MINUTE, NOW + HOUR, NOW + 2 * HOUR - 1]) expect(shareAt(held, at)).toBe(50);
    expect(shareAt(held, NOW + 2 * HOUR)).toBe(0);
  });

  it('moves the steps not started, as they were, under rampHold with when and who', () => {
    const before = ramping();
    const held = apply(before, adjust('rampHold', { requestId: 'hold-1' }), NOW + 2 * MINUTE);
    const f = held.failoutProperties!;
    expect(f.buckets).toEqual([before.failoutProperties!.buckets[0]]);
    expect(f.rampHold).toEqual({ heldAt: NOW + 2 * MINUTE, buckets: before.failoutProperties!.buckets.slice(1), requestId: 'hold-1', requestedBy: 'oncall@example.com', reason: 'INC-4711' });
    expect(held).toMatchObject({ clusterName: 'greetings-lor1' });
    expect(serializeClusterProperties(held)).toContain('"keep":"me"');
  });

  it.each([
    ['no failout', () => parseClusterProperties({ clusterName: 'greetings-lor1' }), NOW, 'notFailedOut', /no active failout/],
    ['a failout that ended', () => ramping(), NOW + 3 * HOUR, 'notFailedOut', /no active failout/],
    [
      'a ramp scheduled, not started',
      () => apply(parseClusterProperties({ clusterName: 'greetings-lor1' }), failoutInput({ offlineAt: NOW + HOUR, duration: undefined, onlineAt: NOW + 3 * HOUR, ramp: RAMP }), NOW),
      NOW,
      'notFailedOut',
      /has not started/,
    ],
    ['a failout that is no ramp', () => apply(parseClusterProperties({ clusterName: 'greetings-lor1' }), failoutInput(), NOW), NOW + MINUTE, 'noRamp', /no ramp/],
    ['a ramp whose steps all started', () => ramping(), NOW + 20 * MINUTE, 'rampComplete', /nothing is left to hold/],
    ['a ramp held already', () => apply(ramping(), adjust('rampHold'), NOW + MINUTE), NOW + 2 * MINUTE, 'rampHeld', /held already \(since 2026-11-30T16:01:00.000Z\)/],
  ])('rejects a hold of %s', (_name, props, now, reason, message) => {
    expect(rejection(props(), adjust('rampHold'), now)).toEqual(expect.objectContaining({ reason, message: expect.stringMatching(message) }));
  });

  it("holds one cluster's ramp and leaves another cluster's alone", () => {
    const clusters = ['greetings-lor1', 'greetings-lva2', 'hello-lor1'].map((c) => ramping(c));
    const after = clusters.map((props) => (props.clusterName === 'greetings-lva2' ? apply(props, adjust('rampHold', { cluster: 'greetings-lva2' }), NOW + MINUTE) : props));
    expect(after.map((p) => shareAt(p, NOW + 20 * MINUTE))).toEqual([100, 10, 100]);
    expect(after.filter((p) => p.failoutProperties?.rampHold !== undefined).map((p) => p.clusterName)).toEqual(['greetings-lva2']);
  });
});

describe('rampResume', () => {
  it('schedules the held steps again, each as far from now as it was from the hold', () => {
    const held = apply(ramping(), adjust('rampHold'), NOW + 2 * MINUTE);
    const resumed = apply(held, adjust('rampResume'), NOW + 32 * MINUTE);
    expect(resumed.failoutProperties!.rampHold).toBeUndefined();
    expect(resumed.failoutProperties!.buckets.map((b) => b.offlineAt)).toEqual([NOW, NOW + 35 * MINUTE, NOW + 45 * MINUTE]);
    expect([NOW + 34 * MINUTE, NOW + 35 * MINUTE, NOW + 45 * MINUTE].map((at) => shareAt(resumed, at))).toEqual([10, 50, 100]);
  });

  it('never schedules a step past the failout end: one the shift would start after it is dropped', () => {
    const held = apply(ramping(), adjust('rampHold'), NOW + 2 * MINUTE);
    const resumed = apply(held, adjust('rampResume'), NOW + 2 * HOUR - 8 * MINUTE);
    expect(resumed.failoutProperties!.buckets.map((b) => b.offlineAt)).toEqual([NOW, NOW + 2 * HOUR - 5 * MINUTE]);
    expect(shareAt(resumed, NOW + 2 * HOUR - MINUTE)).toBe(50);
  });

  it('resumes the held steps with the end an extend moved them to', () => {
    const held = apply(ramping(), adjust('rampHold'), NOW + 2 * MINUTE);
    const extended = apply(held, { version: 1, requestId: 'ext', action: 'extend', cluster: 'greetings-lor1', duration: 'PT5H' }, NOW + HOUR);
    expect(extended.failoutProperties!.rampHold!.buckets.map((b) => b.onlineAt)).toEqual([NOW + 6 * HOUR, NOW + 6 * HOUR]);
    const resumed = apply(extended, adjust('rampResume'), NOW + 3 * HOUR);
    expect(shareAt(resumed, NOW + 5 * HOUR)).toBe(100);
  });

  it('drops a held step an extend ends before its start', () => {
    const held = apply(ramping('greetings-lor1', [{ percent: 10, duration: 'PT5M' }, { percent: 50, duration: 'PT60M' }, { percent: 100 }]), adjust('rampHold'), NOW + 2 * MINUTE);
    const extended = apply(held, { version: 1, requestId: 'ext2', action: 'extend', cluster: 'greetings-lor1', duration: 'PT30M' }, NOW + 3 * MINUTE);
    expect(extended.failoutProperties!.rampHold!.buckets.map((b) => b.offlineAt)).toEqual([NOW + 5 * MINUTE]);
  });

  it.each([
    ['no failout', () => parseClusterProperties({ clusterName: 'greetings-lor1' }), NOW, 'notFailedOut'],
    ['a held ramp whose failout ended', () => apply(ramping(), adjust('rampHold'), NOW + MINUTE), NOW + 3 * HOUR, 'notFailedOut'],
    ['a ramp that is not held', () => ramping(), NOW + MINUTE, 'rampNotHeld'],
    ['a held ramp resumed already', () => apply(apply(ramping(), adjust('rampHold'), NOW + MINUTE), adjust('rampResume'), NOW + 2 * MINUTE), NOW + 3 * MINUTE, 'rampNotHeld'],
  ])('rejects a resume of %s', (_name, props, now, reason) => {
    expect(rejection(props(), adjust('rampResume'), now).reason).toBe(reason);
  });

  it('is gone with a restore and replaced by a new failout', () => {
    const held = apply(ramping(), adjust('rampHold'), NOW + MINUTE);
    expect(apply(held, restoreInput(), NOW + 2 * MINUTE).failoutProperties).toBeNull();
    expect(apply(held, failoutInput(), NOW + 2 * MINUTE).failoutProperties!.rampHold).toBeUndefined();
  });
});

describe('rampAdvance', () => {
  it('starts the next step now, and the steps after it keep their times', () => {
    const advanced = apply(ramping(), adjust('rampAdvance'), NOW + MINUTE);
    expect(advanced.failoutProperties!.buckets.map((b) => b.offlineAt)).toEqual([NOW, NOW + MINUTE, NOW + 15 * MINUTE]);
    expect(shareAt(advanced, NOW + MINUTE)).toBe(50);
  });

  it('starts the first step of a ramp that is scheduled', () => {
    const scheduled = apply(parseClusterProperties({ clusterName: 'greetings-lor1' }), failoutInput({ offlineAt: NOW + HOUR, duration: undefined, onlineAt: NOW + 3 * HOUR, ramp: RAMP }), NOW);
    const advanced = apply(scheduled, adjust('rampAdvance'), NOW);
    expect(shareAt(advanced, NOW)).toBe(10);
    expect(shareAt(advanced, NOW + HOUR)).toBe(10);
    expect(shareAt(advanced, NOW + HOUR + 5 * MINUTE)).toBe(50);
  });

  it('on a held ramp starts the next held step now and leaves the rest held', () => {
    const held = apply(ramping(), adjust('rampHold'), NOW + MINUTE);
    const advanced = apply(held, adjust('rampAdvance'), NOW + 30 * MINUTE);
    expect(shareAt(advanced, NOW + 30 * MINUTE)).toBe(50);
    expect(shareAt(advanced, NOW + HOUR)).toBe(50);
    expect(advanced.failoutProperties!.rampHold!.buckets.map((b) => b.bucketOfflineRange)).toEqual([{ from: 50, to: 99 }]);
    const last = apply(advanced, adjust('rampAdvance'), NOW + 40 * MINUTE);
    expect(last.failoutProperties!.rampHold).toBeUndefined();
    expect(shareAt(last, NOW + 40 * MINUTE)).toBe(100);
  });

  it.each([
    ['no failout', () => parseClusterProperties({ clusterName: 'greetings-lor1' }), NOW, 'notFailedOut'],
    ['a failout that is no ramp', () => apply(parseClusterProperties({ clusterName: 'greetings-lor1' }), failoutInput(), NOW), NOW, 'noRamp'],
    ['a ramp whose steps all started', () => ramping(), NOW + 15 * MINUTE, 'rampComplete'],
  ])('rejects an advance of %s', (_name, props, now, reason) => {
    expect(rejection(props(), adjust('rampAdvance'), now).reason).toBe(reason);
  });
});

describe('amend', () => {
  const withAlarms = (alarms: string[] = ['lor1-5xx']) => apply(parseClusterProperties({ clusterName: 'greetings-lor1' }), failoutInput({ ramp: RAMP, stopAlarms: alarms }), NOW);

  it('adds and removes stop alarms on every window that has not ended, held ones included', () => {
    const held = apply(withAlarms(['lor1-5xx', 'old']), adjust('rampHold'), NOW + MINUTE);
    const amended = apply(held, adjust('amend', { addStopAlarms: ['lva1-p99'], removeStopAlarms: ['old'] }), NOW + 2 * MINUTE);
    expect(amended.failoutProperties!.buckets.map((b) => b.stopAlarms)).toEqual([['lor1-5xx', 'lva1-p99']]);
    expect(amended.failoutProperties!.rampHold!.buckets.map((b) => b.stopAlarms)).toEqual([['lor1-5xx', 'lva1-p99'], ['lor1-5xx', 'lva1-p99']]);
  });

  it('adds stop alarms to a scheduled failout, and leaves no empty list when the last is removed', () => {
    const scheduled = apply(parseClusterProperties({ clusterName: 'greetings-lor1' }), failoutInput({ offlineAt: NOW + HOUR, duration: undefined, onlineAt: NOW + 2 * HOUR }), NOW);
    const added = apply(scheduled, adjust('amend', { addStopAlarms: ['lor1-5xx'] }), NOW);
    expect(added.failoutProperties!.buckets[0]!.stopAlarms).toEqual(['lor1-5xx']);
    const removed = apply(added, adjust('amend', { removeStopAlarms: ['lor1-5xx'] }), NOW);
    expect(removed.failoutProperties!.buckets[0]).not.toHaveProperty('stopAlarms');
  });

  it.each([
    ['no failout', () => parseClusterProperties({ clusterName: 'greetings-lor1' }), { addStopAlarms: ['a'] }, NOW, 'notFailedOut'],
    ['a failout that ended', () => withAlarms(), { addStopAlarms: ['a'] }, NOW + 3 * HOUR, 'notFailedOut'],
    ['an alarm named already', () => withAlarms(), { addStopAlarms: ['lor1-5xx'] }, NOW, 'amendsNothing'],
    ['an alarm no window names', () => withAlarms(), { removeStopAlarms: ['nope'] }, NOW, 'amendsNothing'],
    ['a sixth alarm', () => withAlarms(['a', 'b', 'c', 'd', 'e']), { addStopAlarms: ['f'] }, NOW, 'badStopAlarm'],
  ])('rejects an amend of %s', (_name, props, fields, now, reason) => {
    expect(rejection(props(), adjust('amend', fields), now).reason).toBe(reason);
  });
});

describe("amend of an evacuated cluster's windows (stop and gate alarms: more than 5 each)", () => {
  // An evacuation's windows carry its stop alarms (at most 5) and its stages' gate alarms (at most 10).
  const seven = ['s1', 's2', 's3', 's4', 's5', 'g1', 'g2'];
  const evacuated = () =>
    parseClusterProperties({
      clusterName: 'greetings-lor1',
      failoutProperties: {
        failoutRedirectConfigs: [{ peer: 'greetings-lva1', weight: 1 }],
        failoutBucketConfigs: [{ bucketOfflineRange: { from: 0, to: 99 }, offlineAt: NOW, onlineAt: NOW + HOUR, requestId: 'evac-1', evacuation: 'lor1', stopAlarms: seven }],
      },
    });

  it('removes a stop alarm though more than 5 are left: a removal never makes a window name more', () => {
    const amended = apply(evacuated(), adjust('amend', { removeStopAlarms: ['g2'] }), NOW + MINUTE);
    expect(amended.failoutProperties!.buckets[0]!.stopAlarms).toEqual(['s1', 's2', 's3', 's4', 's5', 'g1']);
  });

  it('swaps stop alarms when the window names no more than before', () => {
    const amended = apply(evacuated(), adjust('amend', { removeStopAlarms: ['g1', 'g2'], addStopAlarms: ['lva1-p99'] }), NOW + MINUTE);
    expect(amended.failoutProperties!.buckets[0]!.stopAlarms).toEqual(['s1', 's2', 's3', 's4', 's5', 'lva1-p99']);
  });

  it('refuses an amend that makes such a window name more (badStopAlarm)', () => {
    expect(rejection(evacuated(), adjust('amend', { addStopAlarms: ['lva1-p99'] }), NOW + MINUTE).reason).toBe('badStopAlarm');
  });
});

describe("a held ramp of a fabric's evacuation", () => {
  it('goes with the evacuation: its held steps are dropped when the fabric is restored', () => {
    const window = (from: number, to: number, offlineAt: number) => ({ bucketOfflineRange: { from, to }, offlineAt, onlineAt: NOW + HOUR, requestId: 'evac-1', evacuation: 'lor1' });
    const props = parseClusterProperties({
      clusterName: 'greetings-lor1',
      failoutProperties: {
        failoutRedirectConfigs: [{ peer: 'greetings-lva1' }],
        failoutBucketConfigs: [window(0, 9, NOW - MINUTE)],
        rampHold: { heldAt: NOW, requestId: 'hold-1', failoutBucketConfigs: [window(10, 99, NOW + MINUTE)] },
      },
    }).failoutProperties!;
    const restored = restoredFailout(props, 'lor1', 'evac-1', NOW + MINUTE, NOW);
    expect(restored).not.toBe('unchanged');
    expect(restored !== 'unchanged' && restored?.rampHold).toBeUndefined();
    expect(restored !== 'unchanged' && restored?.buckets.map((b) => b.onlineAt)).toEqual([NOW + MINUTE]);
  });
});
