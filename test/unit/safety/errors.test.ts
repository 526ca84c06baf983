import { isSafetyError, loadGuardConfig, parseAlarmEvent, SafetyError } from '../../../lib/safety';

// lib/safety's one error class: every failure it reports is a SafetyError, told apart by `kind`.

describe('SafetyError', () => {
  it.each<[string, () => unknown, string, RegExp]>([
    [
      'a malformed alarm event',
      () => {
        const result = parseAlarmEvent('{');
        return result.ok ? undefined : result.error;
      },
      'malformedEvent',
      /the event is not JSON/,
    ],
    [
      "the guard's configuration without a queue",
      () => {
        try {
          loadGuardConfig({ ZK_CONNECT: 'zk1:2181' });
        } catch (err) {
          return err;
        }
        return undefined;
      },
      'invalidConfig',
      /FAILOUT_QUEUE_URL/,
    ],
  ])('reports %s as kind %s', (_what, act, kind, message) => {
    // Act
    const error = act();

    // Assess
    expect(error).toBeInstanceOf(SafetyError);
    expect(error).toMatchObject({ name: 'SafetyError', kind, message: expect.stringMatching(message) });
    expect(isSafetyError(error, kind as SafetyError['kind'])).toBe(true);
    expect(isSafetyError(error, 'restoreNotSent')).toBe(false);
  });

  it('carries the clusters a restore was not sent for, and the cause', () => {
    // Prepare
    const cause = new Error('throttled');

    // Act
    const error = new SafetyError('restoreNotSent', 'could not send', { clusters: ['b'], cause });

    // Assess
    expect(error).toMatchObject({ kind: 'restoreNotSent', clusters: ['b'], cause });
    expect(new SafetyError('invalidConfig', 'x').clusters).toBeUndefined();
  });
});
