/**
 * Issue 16, stop conditions: the CloudWatch "Alarm State Change" event codec. Every malformed input is
 * a clear error naming the field, never a throw; the event the local evaluator emits reads back.
 */
import { alarmStateChangeEvent, guardRequestId, parseAlarmEvent } from '../../../lib/safety';
import { isValidRequestId, requestIdTime } from '../../../lib/requests';

const AT = Date.parse('2026-11-30T16:00:00Z');

/** An event as EventBridge delivers it (from the AWS documentation's example, trimmed). */
function awsEvent(overrides: Record<string, unknown> = {}, detail: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: '0',
    id: 'c4c1c1c9-6542-e61b-6ef0-8c4d36933a92',
    'detail-type': 'CloudWatch Alarm State Change',
    source: 'aws.cloudwatch',
    account: '123456789012',
    time: '2026-11-30T16:00:00Z',
    region: 'us-east-1',
    resources: ['arn:aws:cloudwatch:us-east-1:123456789012:alarm:greetings-lva1-errors'],
    detail: {
      alarmName: 'greetings-lva1-errors',
      state: { value: 'ALARM', reason: 'Threshold Crossed', reasonData: '{}', timestamp: '2026-11-30T16:00:00.123+0000' },
      previousState: { value: 'OK', reason: '', timestamp: '2026-11-30T15:00:00.000+0000' },
      configuration: { metrics: [{ id: 'm1' }] },
      ...detail,
    },
    ...overrides,
  };
}

describe('parseAlarmEvent', () => {
  it('reads an ALARM event, unknown keys ignored', () => {
    // Act
    const result = parseAlarmEvent(awsEvent());

    // Assess
    expect(result).toEqual({
      ok: true,
      event: {
        id: 'c4c1c1c9-6542-e61b-6ef0-8c4d36933a92',
        alarmName: 'greetings-lva1-errors',
        state: 'ALARM',
        previousState: 'OK',
        reason: 'Threshold Crossed',
        changedAt: '2026-11-30T16:00:00.123+0000',
      },
    });
  });

  it('reads its JSON text the same', () => {
    expect(parseAlarmEvent(JSON.stringify(awsEvent()))).toEqual(parseAlarmEvent(awsEvent()));
  });

  it('reads back the event the local evaluator emits', () => {
    // Prepare
    const emitted = alarmStateChangeEvent({ id: 'e-1', alarmName: 'greetings-lor1-errors', state: 'OK', previousState: 'ALARM', at: AT, reason: 'error rate 1 % < 20 %' });

    // Act
    const result = parseAlarmEvent(JSON.parse(JSON.stringify(emitted)));

    // Assess
    expect(result).toMatchObject({ ok: true, event: { id: 'e-1', alarmName: 'greetings-lor1-errors', state: 'OK', previousState: 'ALARM', reason: 'error rate 1 % < 20 %' } });
    expect(result.ok && Date.parse(result.event.changedAt!)).toBe(AT);
  });

  it.each([
    ['null', null, /\(event\)/],
    ['a number', 42, /\(event\)/],
    ['an array', [], /\(event\)/],
    ['text that is not JSON', '{"id":', /the event is not JSON/],
    ['another source', awsEvent({ source: 'aws.ec2' }), /source/],
    ['another detail type', awsEvent({ 'detail-type': 'EC2 Instance State-change Notification' }), /detail-type/],
    ['no id', awsEvent({ id: undefined }), /^.*id: /],
    ['no detail', awsEvent({ detail: undefined }), /detail/],
    ['no alarm name', awsEvent({}, { alarmName: undefined }), /detail\.alarmName/],
    ['an empty alarm name', awsEvent({}, { alarmName: '' }), /detail\.alarmName/],
    ['an alarm name that is a number', awsEvent({}, { alarmName: 7 }), /detail\.alarmName/],
    ['an unknown state', awsEvent({}, { state: { value: 'ON_FIRE' } }), /detail\.state\.value/],
    ['no state', awsEvent({}, { state: undefined }), /detail\.state/],
    ['a bad previous state', awsEvent({}, { previousState: { value: 3 } }), /detail\.previousState\.value/],
  ])('rejects %s with a clear error, without throwing', (_what, input, message) => {
    // Act
    const result = parseAlarmEvent(input);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('malformedEvent');
    expect(result.error.message).toMatch(/not a CloudWatch alarm state change event|the event is not JSON/);
    expect(result.error.message).toMatch(message);
  });
});

describe('guardRequestId', () => {
  const event = { alarmName: 'greetings-lva1-errors', id: 'e-1', changedAt: '2026-11-30T16:00:00.123+0000' };

  it('is the same for the same cluster and event, a valid request id carrying the change time', () => {
    // Act
    const a = guardRequestId('greetings-lor1', event);
    const b = guardRequestId('greetings-lor1', { ...event });

    // Assess
    expect(a).toBe(b);
    expect(isValidRequestId(a)).toBe(true);
    expect(requestIdTime(a)).toBe(Date.parse('2026-11-30T16:00:00.123Z'));
  });

  it.each([
    ['another cluster', 'greetings-ltx1', event],
    ['another alarm', 'greetings-lor1', { ...event, alarmName: 'other' }],
    ['another event id', 'greetings-lor1', { ...event, id: 'e-2' }],
    ['another change time', 'greetings-lor1', { ...event, changedAt: '2026-11-30T17:00:00.000+0000' }],
  ])('differs for %s', (_what, cluster, other) => {
    expect(guardRequestId(cluster, other)).not.toBe(guardRequestId('greetings-lor1', event));
  });
});
