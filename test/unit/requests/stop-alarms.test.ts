/**
 * Issue 16, stop conditions: `stopAlarms` on a failout and `stoppedByAlarm` on a restore. Bad input is
 * a clear rejection (`badStopAlarm`, or `badSchema` for the wrong type) naming the field; good input is
 * written into every bucket config, and a guard's restore removes only a failout that names its alarm.
 */
import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import { namesStopAlarm, parseChangeRequest, type ChangeRequest } from '../../../lib/requests';
import { applyRequest, type PeerState } from '../../../lib/requests/apply-request';
import { MAX_STOP_ALARMS } from '../../../lib/requests/stop-alarms';
import { failoutInput, HOUR, NOW, restoreInput } from '../../helpers/requests';

const healthy: PeerState = { exists: true, hostCount: 3, failoutProperties: null };

function accepted(body: object): ChangeRequest {
  const result = parseChangeRequest(JSON.stringify(body), { now: NOW });
  if (!result.ok) throw new Error(`rejected: ${result.rejection.reason}: ${result.rejection.message}`);
  return result.request;
}

function rejected(body: object) {
  const result = parseChangeRequest(JSON.stringify(body), { now: NOW });
  if (result.ok) throw new Error('accepted');
  return result.rejection;
}

/** The cluster after applying `request` to `before`, read back as every client reads it. */
function applied(request: ChangeRequest, before = parseClusterProperties({ clusterName: 'greetings-lor1' }), now = NOW) {
  const result = applyRequest(before, request, { now, peers: () => healthy });
  if (!result.ok) throw new Error(result.rejection.message);
  return { props: parseClusterProperties(serializeClusterProperties(result.props)), unchanged: result.unchanged === true };
}

describe('stopAlarms on a failout', () => {
  it('is normalised as given and written into every bucket config, a ramp\'s included', () => {
    // Prepare
    const request = accepted(failoutInput({ stopAlarms: ['lva1-errors', 'lva1 p99 latency'], ramp: [{ percent: 50, duration: 'PT5M' }, { percent: 100 }] }));

    // Act
    const { props } = applied(request);

    // Assess
    expect(request).toMatchObject({ action: 'failout', stopAlarms: ['lva1-errors', 'lva1 p99 latency'] });
    expect(props.failoutProperties?.buckets).toHaveLength(2);
    expect(props.failoutProperties?.buckets.map((b) => b.stopAlarms)).toEqual([
      ['lva1-errors', 'lva1 p99 latency'],
      ['lva1-errors', 'lva1 p99 latency'],
    ]);
  });

  it('is absent from the request and the bucket configs when none or an empty list is given', () => {
    // Act
    const none = accepted(failoutInput());
    const empty = accepted(failoutInput({ stopAlarms: [] }));

    // Assess
    expect(none).not.toHaveProperty('stopAlarms');
    expect(empty).not.toHaveProperty('stopAlarms');
    expect(applied(empty).props.failoutProperties?.buckets[0]).not.toHaveProperty('stopAlarms');
  });

  it.each([
    ['a string instead of a list', 'lva1-errors', 'badSchema', /stopAlarms/],
    ['a number in the list', ['ok', 7], 'badSchema', /stopAlarms\[1\]/],
    ['an object', { name: 'x' }, 'badSchema', /stopAlarms/],
    ['null', null, 'badSchema', /stopAlarms/],
    ['an empty name', [''], 'badStopAlarm', /stopAlarms\[0\]: an alarm name must not be empty/],
    ['a name of 256 characters', ['a'.repeat(256)], 'badStopAlarm', /stopAlarms\[0\]: 256 characters; an alarm name has at most 255/],
    ['an ESC in a name', ['ok', 'fake\u001b[2Jall clear'], 'badStopAlarm', /stopAlarms\[1\]: must not contain control characters/],
    ['a newline in a name', ['a\nb'], 'badStopAlarm', /stopAlarms\[0\]: must not contain control characters/],
    ['a bidi override in a name', ['a\u202eb'], 'badStopAlarm', /stopAlarms\[0\]: must not contain control characters/],
    ['a name listed twice', ['x', 'y', 'x'], 'badStopAlarm', /stopAlarms\[2\]: "x" is listed twice/],
    ['too many names', Array.from({ length: MAX_STOP_ALARMS + 1 }, (_, i) => `alarm-${i}`), 'badStopAlarm', /stopAlarms: 6 given; at most 5 are accepted/],
  ])('rejects %s', (_what, stopAlarms, reason, message) => {
    // Act
    const rejection = rejected(failoutInput({ stopAlarms }));

    // Assess
    expect(rejection.reason).toBe(reason);
    expect(rejection.message).toMatch(message);
  });

  it('accepts a name of 255 characters and exactly five names', () => {
    // Act
    const long = accepted(failoutInput({ stopAlarms: ['a'.repeat(255)] }));
    const five = accepted(failoutInput({ stopAlarms: ['a', 'b', 'c', 'd', 'e'] }));

    // Assess
    expect(long).toMatchObject({ stopAlarms: ['a'.repeat(255)] });
    expect(five).toMatchObject({ stopAlarms: ['a', 'b', 'c', 'd', 'e'] });
  });

  it('is not accepted on a restore or an extend (a strict schema)', () => {
    // Act
    const restore = rejected(restoreInput({ stopAlarms: ['x'] }));
    const extend = rejected({ version: 1, requestId: 'r-1', action: 'extend', cluster: 'greetings-lor1', duration: 'PT1H', stopAlarms: ['x'] });

    // Assess
    expect(restore.reason).toBe('badSchema');
    expect(extend.reason).toBe('badSchema');
  });
});

describe('stoppedByAlarm on a restore', () => {
  const failout = (stopAlarms: string[] | undefined, overrides: Record<string, unknown> = {}) =>
    applied(accepted(failoutInput({ ...(stopAlarms ? { stopAlarms } : {}), ...overrides }))).props;

  it.each([
    ['an empty name', '', /stoppedByAlarm: an alarm name must not be empty/],
    ['a name of 256 characters', 'x'.repeat(256), /stoppedByAlarm: 256 characters/],
    ['a control character', 'a\u0007b', /stoppedByAlarm: must not contain control characters/],
  ])('rejects %s as badStopAlarm', (_what, stoppedByAlarm, message) => {
    // Act
    const rejection = rejected(restoreInput({ stoppedByAlarm }));

    // Assess
    expect(rejection.reason).toBe('badStopAlarm');
    expect(rejection.message).toMatch(message);
  });

  it('rejects the wrong type as badSchema', () => {
    expect(rejected(restoreInput({ stoppedByAlarm: ['x'] })).reason).toBe('badSchema');
  });

  it('removes a failout whose open window names the alarm', () => {
    // Prepare
    const before = failout(['lva1-errors', 'other']);

    // Act
    const after = applied(accepted(restoreInput({ stoppedByAlarm: 'lva1-errors' })), before);

    // Assess
    expect(after.unchanged).toBe(false);
    expect(after.props.failoutProperties).toBeNull();
  });

  it.each([
    ['names other alarms', ['other'], {}, NOW],
    ['names no alarm', undefined, {}, NOW],
    ['named the alarm but has ended', ['lva1-errors'], {}, NOW + 3 * HOUR],
  ])('leaves unchanged a failout that %s', (_what, stopAlarms, overrides, now) => {
    // Prepare
    const before = failout(stopAlarms, overrides);

    // Act
    const after = applied(accepted(restoreInput({ stoppedByAlarm: 'lva1-errors' })), before, now);

    // Assess
    expect(after.unchanged).toBe(true);
    expect(after.props.failoutProperties).toEqual(before.failoutProperties);
  });

  it('removes a scheduled failout that names the alarm (it has not ended)', () => {
    // Prepare
    const before = failout(['lva1-errors'], { offlineAt: new Date(NOW + HOUR).toISOString() });

    // Act
    const after = applied(accepted(restoreInput({ stoppedByAlarm: 'lva1-errors' })), before);

    // Assess
    expect(namesStopAlarm(before.failoutProperties!, 'lva1-errors', NOW)).toBe(true);
    expect(after.props.failoutProperties).toBeNull();
  });

  it('is kept in the normalised restore', () => {
    expect(accepted(restoreInput({ stoppedByAlarm: 'lva1-errors', requestedBy: 'failout-guard' }))).toMatchObject({ action: 'restore', stoppedByAlarm: 'lva1-errors', requestedBy: 'failout-guard' });
  });
});
