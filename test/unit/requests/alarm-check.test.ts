/**
 * Issue 21, "Alarms that can act": the one rule on the alarms a request names, shared by the worker,
 * the CLI's check before sending and `--dry-run` (lib/requests `alarm-check.ts`).
 */
import { AlarmStatesError, type AlarmReader, type AlarmReading } from '../../../lib/alarms';
import { alarmsNamedBy, parseChangeRequest, readRequestAlarms, type ChangeRequest } from '../../../lib/requests';
import { checkRequestAlarms } from '../../../lib/requests/alarm-check';
import { failoutInput, NOW, restoreInput } from '../../helpers/requests';

function parsed(input: Record<string, unknown>): ChangeRequest {
  const result = parseChangeRequest(input, { now: NOW });
  if (!result.ok) throw new Error(result.rejection.message);
  return result.request;
}

const readings = (entries: Record<string, AlarmReading>): ReadonlyMap<string, AlarmReading> => new Map(Object.entries(entries));

const putDrill = (overrides: Record<string, unknown> = {}): ChangeRequest =>
  parsed({
    version: 1,
    requestId: 'put-1',
    action: 'putDrill',
    cluster: 'greetings-lor1',
    drill: 'weekly',
    peers: [{ cluster: 'greetings-lva1' }],
    duration: 'PT30M',
    every: 'rate(7 days)',
    outcomeAlarm: 'lor1-errors',
    blockingAlarms: ['deploys'],
    ...overrides,
  });

describe('checkRequestAlarms', () => {
  it.each([
    ['a stop alarm that is OK', { 'lva1-errors': 'OK' }, []],
    ['a stop alarm without data', { 'lva1-errors': 'INSUFFICIENT_DATA' }, []],
    ['a stop alarm in ALARM', { 'lva1-errors': 'ALARM' }, ['stopAlarmFiring']],
    ['a stop alarm the source does not know', { 'lva1-errors': 'unknown' }, ['unknownAlarm']],
    ['a stop alarm missing from the readings', {}, ['unknownAlarm']],
  ] as const)('judges a failout naming %s', (_what, states, reasons) => {
    // Prepare
    const request = parsed(failoutInput({ stopAlarms: ['lva1-errors'] }));

    // Act
    const problems = checkRequestAlarms(request, readings(states));

    // Assess
    expect(problems.map((p) => p.reason)).toEqual(reasons);
  });

  it('names every problem with its field, in field order', () => {
    // Prepare
    const request = parsed(failoutInput({ stopAlarms: ['ok', 'typo', 'firing'] }));

    // Act
    const problems = checkRequestAlarms(request, readings({ ok: 'OK', typo: 'unknown', firing: 'ALARM' }));

    // Assess
    expect(problems).toEqual([
      { reason: 'unknownAlarm', message: expect.stringMatching(/^stopAlarms\[1\]: the alarm source has no alarm "typo"/) },
      { reason: 'stopAlarmFiring', message: expect.stringMatching(/^stopAlarms\[2\]: "firing" is in ALARM already/) },
    ]);
  });

  it("judges a drill's run by its stop alarms (outcome and blocking), as any failout", () => {
    // Prepare
    const request = parsed(failoutInput({ drill: 'weekly', stopAlarms: ['lor1-errors', 'deploys'] }));

    // Act
    const problems = checkRequestAlarms(request, readings({ 'lor1-errors': 'ALARM', deploys: 'OK' }));

    // Assess
    expect(problems.map((p) => p.reason)).toEqual(['stopAlarmFiring']);
  });

  it.each([
    ['both exist and are OK', { 'lor1-errors': 'OK', deploys: 'OK' }, []],
    ['the outcome alarm fires (runs are skipped meanwhile, the drill is fine)', { 'lor1-errors': 'ALARM', deploys: 'ALARM' }, []],
    ['the outcome alarm does not exist', { deploys: 'OK' }, ['outcomeAlarm']],
    ['a blocking alarm does not exist', { 'lor1-errors': 'OK' }, ['blockingAlarms[0]']],
  ] as const)("requires a putDrill's alarms to exist: %s", (_what, states, fields) => {
    // Act
    const problems = checkRequestAlarms(putDrill(), readings(states));

    // Assess
    expect(problems.map((p) => p.reason)).toEqual(fields.map(() => 'unknownAlarm'));
    expect(problems.map((p) => p.message.split(':')[0])).toEqual(fields);
  });

  it('names no alarm for a restore, an extend or a failout without stop alarms', () => {
    // Act
    const named = [parsed(restoreInput()), parsed({ version: 1, requestId: 'x-1', action: 'extend', cluster: 'greetings-lor1', duration: 'PT1H' }), parsed(failoutInput())].map(alarmsNamedBy);

    // Assess
    expect(named).toEqual([[], [], []]);
  });
});

describe('readRequestAlarms', () => {
  const request = parsed(failoutInput({ stopAlarms: ['lva1-errors', 'lva1-errors-typo'] }));

  it('reads only what the request names, once, and folds the problems into the rejection the worker records', async () => {
    // Prepare
    const asked: string[][] = [];
    const source: AlarmReader = {
      read: async (names) => {
        asked.push([...names]);
        return readings({ 'lva1-errors': 'OK', 'lva1-errors-typo': 'unknown' });
      },
    };

    // Act
    const check = await readRequestAlarms(source, request);

    // Assess
    expect(asked).toEqual([['lva1-errors', 'lva1-errors-typo']]);
    expect(check).toMatchObject({ status: 'checked', rejection: { reason: 'unknownAlarm', requestId: request.requestId } });
  });

  it('reads nothing without a source or without alarms', async () => {
    // Prepare
    const source: AlarmReader = { read: jest.fn() };

    // Act
    const checks = [await readRequestAlarms(undefined, request), await readRequestAlarms(source, parsed(restoreInput()))];

    // Assess
    expect(checks).toEqual([{ status: 'notChecked' }, { status: 'notChecked' }]);
    expect(source.read).not.toHaveBeenCalled();
  });

  it.each([
    ['an AlarmStatesError', new AlarmStatesError('could not read alarm states from http://127.0.0.1:1/alarms: ECONNREFUSED'), /ECONNREFUSED/],
    ['any other error', new Error('socket hang up'), /the alarm source failed: socket hang up/],
  ])('never throws for a source that fails (%s): unreadable, with the names and why', async (_what, error, message) => {
    // Prepare
    const source: AlarmReader = { read: async () => Promise.reject(error) };

    // Act
    const check = await readRequestAlarms(source, request);

    // Assess
    expect(check).toMatchObject({ status: 'unreadable', names: ['lva1-errors', 'lva1-errors-typo'], error: { name: 'AlarmStatesError', message: expect.stringMatching(message) } });
  });
});
