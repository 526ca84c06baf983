/**
 * Issue 24, item 6, the operator's half: the bodies of `failout ramp hold|resume|advance` and
 * `failout amend` (what the CLI and the console send), checked by the worker's own schema, and how
 * `failout status` shows a held ramp.
 */
import { adjust, describeCluster, formatClusterStatus, isOperatorError, validateLocally } from '../../../lib/operator';

const NOW = Date.parse('2026-11-30T16:30:00Z');
const MINUTE = 60_000;
const context = { requestId: 'req-adj', requestedBy: 'me@host' };

describe('adjust bodies', () => {
  it.each([
    ['hold', 'rampHold'],
    ['resume', 'rampResume'],
    ['advance', 'rampAdvance'],
  ] as const)('ramp %s builds a %s body the worker accepts', (word, action) => {
    const body = adjust.buildRampBody(word, 'greetings-lor1', { reason: 'INC-4711' }, context);
    expect(body).toEqual({ version: 1, requestId: 'req-adj', action, cluster: 'greetings-lor1', requestedBy: 'me@host', reason: 'INC-4711' });
    expect(validateLocally(body, NOW, {})).toMatchObject({ action, cluster: 'greetings-lor1', requestedBy: 'me@host' });
  });

  it('amend sends the names to add and to remove, --by over the default requester', () => {
    const body = adjust.buildAmendBody('greetings-lor1', { stopAlarm: ['a', 'b'], removeStopAlarm: ['c'], by: 'oncall' }, context);
    expect(body).toEqual({ version: 1, requestId: 'req-adj', action: 'amend', cluster: 'greetings-lor1', requestedBy: 'oncall', addStopAlarms: ['a', 'b'], removeStopAlarms: ['c'] });
    expect(validateLocally(body, NOW, {})).toMatchObject({ addStopAlarms: ['a', 'b'], removeStopAlarms: ['c'] });
  });

  it('amend with nothing to change is an input error naming the flag', () => {
    let error: unknown;
    try {
      adjust.buildAmendBody('greetings-lor1', {}, context);
    } catch (e) {
      error = e;
    }
    expect(isOperatorError(error, 'input') && error.field).toBe('stopAlarm');
  });

  it('a hostile alarm name is refused locally with the worker reason', () => {
    const body = adjust.buildAmendBody('greetings-lor1', { stopAlarm: ['\u001b[2Jall clear'] }, context);
    expect(() => validateLocally(body, NOW, {})).toThrow(/badStopAlarm.*addStopAlarms\[0\]/);
  });
});

describe('status of a held ramp', () => {
  const held = {
    failoutRedirectConfigs: [{ peer: 'greetings-lva1' }],
    failoutBucketConfigs: [{ bucketOfflineRange: { from: 0, to: 19 }, offlineAt: NOW - 10 * MINUTE, onlineAt: NOW + 110 * MINUTE }],
    rampHold: {
      heldAt: NOW - 5 * MINUTE,
      requestId: 'hold-1',
      requestedBy: 'oncall@example.com',
      failoutBucketConfigs: [
        { bucketOfflineRange: { from: 20, to: 59 }, offlineAt: NOW, onlineAt: NOW + 110 * MINUTE },
        { bucketOfflineRange: { from: 60, to: 99 }, offlineAt: NOW + 10 * MINUTE, onlineAt: NOW + 110 * MINUTE },
      ],
    },
  };
  const text = JSON.stringify({ clusterName: 'greetings-lor1', failoutProperties: held });

  it('describes the held steps with their shares, since when and by whom', () => {
    expect(describeCluster('greetings-lor1', text, NOW).ramp).toEqual({
      step: 1,
      steps: 3,
      sharePct: 20,
      nextAt: null,
      nextSharePct: null,
      scheduled: [{ at: new Date(NOW - 10 * MINUTE).toISOString(), sharePct: 20 }],
      held: { since: new Date(NOW - 5 * MINUTE).toISOString(), heldSharePcts: [60, 100], requestId: 'hold-1', requestedBy: 'oncall@example.com', reason: null },
    });
  });

  it('says "held at 20% since …; 60%, 100% held"', () => {
    expect(formatClusterStatus(describeCluster('greetings-lor1', text, NOW), NOW)).toContain(
      `  ramp     held at 20% since ${new Date(NOW - 5 * MINUTE).toISOString()} (5m ago by oncall@example.com); 60%, 100% held (failout ramp resume|advance)`,
    );
  });
});
