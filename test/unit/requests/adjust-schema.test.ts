/**
 * Issue 24, item 6: the wire schema of the actions that adjust a running failout (`rampHold`,
 * `rampResume`, `rampAdvance`, `amend`): good bodies normalise, bad and hostile ones are rejected with
 * the project's reasons, naming the field.
 */
import { parseChangeRequest } from '../../../lib/requests';
import { NOW } from '../../helpers/requests';

function body(action: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, requestId: `adj-${action}`, action, cluster: 'greetings-lor1', ...overrides };
}

function parse(input: unknown) {
  return parseChangeRequest(typeof input === 'string' ? input : JSON.stringify(input), { now: NOW });
}

describe('ramp actions: parsing', () => {
  it.each(['rampHold', 'rampResume', 'rampAdvance'])('normalises %s with who and why', (action) => {
    expect(parse(body(action, { requestedBy: 'oncall@example.com', reason: 'INC-4711' }))).toEqual({
      ok: true,
      request: { version: 1, requestId: `adj-${action}`, action, cluster: 'greetings-lor1', requestedBy: 'oncall@example.com', reason: 'INC-4711', force: false },
    });
  });

  it.each([
    ['rampHold', 'a peer list', { peers: [{ cluster: 'greetings-lva1' }] }, 'badSchema', /peers/],
    ['rampResume', 'an end', { duration: 'PT1H' }, 'badSchema', /duration/],
    ['rampAdvance', 'stop alarms', { addStopAlarms: ['a'] }, 'badSchema', /addStopAlarms/],
    ['rampHold', 'no cluster', { cluster: undefined }, 'badSchema', /cluster/],
    ['rampHold', 'a path as cluster', { cluster: '../etc' }, 'badName', /cluster/],
    ['rampResume', 'a slash in the cluster', { cluster: 'a/b' }, 'badName', /cluster/],
    ['rampAdvance', 'a NUL in the request id', { requestId: 'a\u0000b' }, 'badName', /requestId/],
    ['rampHold', 'an escape sequence in the reason', { reason: '\u001b[2Jall clear' }, 'badSchema', /reason: must not contain control characters/],
    ['rampResume', 'a bidi control in who asks', { requestedBy: 'evil\u202egnp.exe' }, 'badSchema', /requestedBy/],
    ['rampAdvance', 'version 2', { version: 2 }, 'badSchema', /version/],
  ])('%s: rejects %s', (action, _name, overrides, reason, message) => {
    const result = parse(body(action, overrides));
    expect(result).toEqual({ ok: false, rejection: expect.objectContaining({ reason, message: expect.stringMatching(message) }) });
  });
});

describe('amend: parsing', () => {
  it('normalises the names to add and to remove, in the order given', () => {
    expect(parse(body('amend', { addStopAlarms: ['lor1-5xx', 'lva1-p99'], removeStopAlarms: ['old'], reason: 'INC-4711' }))).toEqual({
      ok: true,
      request: { version: 1, requestId: 'adj-amend', action: 'amend', cluster: 'greetings-lor1', reason: 'INC-4711', force: false, addStopAlarms: ['lor1-5xx', 'lva1-p99'], removeStopAlarms: ['old'] },
    });
  });

  it('defaults a missing list to none', () => {
    const result = parse(body('amend', { removeStopAlarms: ['old'] }));
    expect(result.ok && result.request).toMatchObject({ addStopAlarms: [], removeStopAlarms: ['old'] });
  });

  it.each([
    ['nothing to change', {}, 'badSchema', /give at least one alarm name/],
    ['two empty lists', { addStopAlarms: [], removeStopAlarms: [] }, 'badSchema', /give at least one alarm name/],
    ['a list that is no list', { addStopAlarms: 'lor1-5xx' }, 'badSchema', /addStopAlarms/],
    ['a name that is no string', { removeStopAlarms: [7] }, 'badSchema', /removeStopAlarms\[0\]/],
    ['an empty name', { addStopAlarms: [''] }, 'badStopAlarm', /addStopAlarms\[0\]: an alarm name must not be empty/],
    ['a name of 256 characters', { addStopAlarms: ['x'.repeat(256)] }, 'badStopAlarm', /addStopAlarms\[0\]: 256 characters/],
    ['an escape sequence in a name', { addStopAlarms: ['ok\u001b[31m'] }, 'badStopAlarm', /addStopAlarms\[0\]: must not contain control characters/],
    ['a newline in a removed name', { removeStopAlarms: ['a\nb'] }, 'badStopAlarm', /removeStopAlarms\[0\]: must not contain control characters/],
    ['a name added twice', { addStopAlarms: ['a', 'a'] }, 'badStopAlarm', /addStopAlarms\[1\]: "a" is given twice/],
    ['a name added and removed', { addStopAlarms: ['a'], removeStopAlarms: ['a'] }, 'badStopAlarm', /removeStopAlarms\[0\]: "a" is given twice/],
    ['six names to add', { addStopAlarms: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'badStopAlarm', /addStopAlarms: 6 given; at most 5/],
    ['six names to remove', { removeStopAlarms: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'badStopAlarm', /removeStopAlarms: 6 given; at most 5/],
    ['a peer list', { addStopAlarms: ['a'], peers: [] }, 'badSchema', /peers/],
  ])('rejects %s', (_name, overrides, reason, message) => {
    const result = parse(body('amend', overrides));
    expect(result).toEqual({ ok: false, rejection: expect.objectContaining({ reason, requestId: 'adj-amend', message: expect.stringMatching(message) }) });
  });

  it('names a hostile list of 10,000 names within the rejection bound', () => {
    const result = parse(body('amend', { removeStopAlarms: Array.from({ length: 10_000 }, () => '\u0007') }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rejection.reason).toBe('oversize');
  });

  it('keeps a hostile but small list within the rejection bound', () => {
    const result = parse(body('amend', { removeStopAlarms: Array.from({ length: 500 }, (_, i) => `\u0007${i}`) }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rejection.reason).toBe('badStopAlarm');
    expect(Buffer.byteLength(result.rejection.message, 'utf8')).toBeLessThanOrEqual(2048);
  });
});
