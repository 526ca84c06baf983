/**
 * Issue 21, item 3: a restore that stops a failout for an alarm (the guard's, the drill runner's) may
 * say when the alarm was seen in ALARM (`alarmAt`) and which drill's run it judges (`drill`); both only
 * with `stoppedByAlarm`, so an operator's restore never carries a verdict.
 */
import { parseChangeRequest } from '../../../lib/requests';
import { NOW, restoreInput } from '../../helpers/requests';

function parse(overrides: Record<string, unknown>) {
  return parseChangeRequest(JSON.stringify(restoreInput({ requestId: 'r-1', ...overrides })), { now: NOW });
}

it('accepts and keeps alarmAt and drill beside stoppedByAlarm', () => {
  const result = parse({ stoppedByAlarm: 'errors', alarmAt: NOW - 1000, drill: 'weekly' });

  expect(result).toMatchObject({ ok: true, request: { action: 'restore', stoppedByAlarm: 'errors', alarmAt: NOW - 1000, drill: 'weekly' } });
});

it.each([
  ['alarmAt without stoppedByAlarm', { alarmAt: NOW }, 'badSchema', /only with stoppedByAlarm/],
  ['drill without stoppedByAlarm', { drill: 'weekly' }, 'badSchema', /only with stoppedByAlarm/],
  ['a drill name that is no node name', { stoppedByAlarm: 'errors', drill: 'a/b' }, 'badName', /drill: "a\/b"/],
  ['a negative alarmAt', { stoppedByAlarm: 'errors', alarmAt: -1 }, 'badSchema', /alarmAt/],
  ['a fractional alarmAt', { stoppedByAlarm: 'errors', alarmAt: 1.5 }, 'badSchema', /alarmAt/],
])('rejects %s', (_what, overrides, reason, message) => {
  expect(parse(overrides)).toMatchObject({ ok: false, rejection: { reason, message: expect.stringMatching(message) } });
});
