import { exitCodeOf } from '../../../lib/cli';
import { encodeChangeRequest } from '../../../lib/requests';
import { OperatorError } from '../../../lib/operator';
import { buildEvacuateBody, buildRestoreFabricBody, type EvacuateOptions } from '../../../lib/operator/fabric-bodies';

/**
 * Issue 23, `failout evacuate <fabric>` and `failout restore --fabric`: the text flags become the
 * `evacuate` / `restoreFabric` bodies of the shared contract, every bad flag is a usage error naming
 * its field, and what is built passes the worker's own schema.
 */

const NOW = Date.parse('2026-11-30T16:00:00Z');
const CONTEXT = { requestId: '0195d5a8-7c00-7000-8000-000000000000', now: NOW, requestedBy: 'oncall@host' };

function usage(act: () => unknown): OperatorError {
  try {
    act();
  } catch (err) {
    if (err instanceof OperatorError) return err;
    throw err;
  }
  throw new Error('no usage error');
}

describe('buildEvacuateBody', () => {
  it('builds the whole body from every flag', () => {
    // Act
    const body = buildEvacuateBody(
      'lor1',
      {
        to: ['lva1:2,ltx1'],
        for: '2h',
        stages: 'frontend,midtier,storage',
        gateAlarm: ['frontend=fe-5xx', '3=storage-latency', 'frontend=fe-latency'],
        hold: '5m',
        restoreGap: '30s',
        ramp: '20%:5m,60%:5m,100%',
        stopAlarm: ['lor1-evac-errors'],
        exclude: ['legacy-batch,reports', 'audit'],
        reason: 'INC-4711',
      },
      CONTEXT,
    );

    // Assess
    expect(body).toEqual({
      version: 1,
      requestId: CONTEXT.requestId,
      action: 'evacuate',
      fabric: 'lor1',
      targets: [
        { fabric: 'lva1', weight: 2 },
        { fabric: 'ltx1', weight: 1 },
      ],
      duration: 'PT2H',
      stages: [{ tier: 'frontend', gateAlarms: ['fe-5xx', 'fe-latency'] }, { tier: 'midtier' }, { tier: 'storage', gateAlarms: ['storage-latency'] }],
      hold: 'PT5M',
      restoreGap: 'PT30S',
      ramp: [{ percent: 20, duration: 'PT5M' }, { percent: 60, duration: 'PT5M' }, { percent: 100 }],
      stopAlarms: ['lor1-evac-errors'],
      exclude: ['legacy-batch', 'reports', 'audit'],
      requestedBy: 'oncall@host',
      reason: 'INC-4711',
      force: false,
    });
  });

  it('leaves the targets out without --to (every other fabric, by capacity), and sends the window like failout out', () => {
    expect(buildEvacuateBody('lor1', { for: '90m' }, CONTEXT)).toEqual({ version: 1, requestId: CONTEXT.requestId, action: 'evacuate', fabric: 'lor1', duration: 'PT1H30M', requestedBy: 'oncall@host', force: false });
    expect(buildEvacuateBody('lor1', { at: '+15m', for: '1h', by: 'me', force: true }, CONTEXT)).toMatchObject({
      offlineAt: '2026-11-30T16:15:00.000Z',
      onlineAt: '2026-11-30T17:15:00.000Z',
      requestedBy: 'me',
      force: true,
    });
    expect(buildEvacuateBody('lor1', { until: '2026-11-30T18:00:00Z' }, CONTEXT)).toMatchObject({ onlineAt: '2026-11-30T18:00:00.000Z' });
  });

  it('reads repeated --stage as explicit cluster lists, gated by stage number', () => {
    const body = buildEvacuateBody('lor1', { for: '1h', stage: ['greetings-lor1', 'hello-lor1, legacy-a'], gateAlarm: ['2=hello-5xx'] }, CONTEXT);

    expect(body.stages).toEqual([{ clusters: ['greetings-lor1'] }, { clusters: ['hello-lor1', 'legacy-a'], gateAlarms: ['hello-5xx'] }]);
  });

  it('allows a zero hold and restore gap', () => {
    expect(buildEvacuateBody('lor1', { for: '1h', hold: '0s', restoreGap: '0' }, CONTEXT)).toMatchObject({ hold: 'PT0S', restoreGap: 'PT0S' });
  });

  it.each<[string, EvacuateOptions, string, RegExp]>([
    ['no end', {}, 'for', /--for <duration> .* or --until <time>/],
    ['both ends', { for: '2h', until: '+3h' }, 'for', /either --for .* or --until/],
    ['an end before the start', { at: '+2h', until: '+1h' }, 'until', /not after the start/],
    ['a bad --for', { for: 'soon' }, 'for', /--for "soon" is not a duration/],
    ['a time without a zone', { until: '2026-11-30T18:00:00' }, 'until', /--until .* is not a time with a zone/],
    ['a target equal to the fabric', { for: '1h', to: ['lva1,lor1'] }, 'targets', /--to lor1: that is the fabric being evacuated/],
    ['a weight of 0', { for: '1h', to: ['lva1:0'] }, 'targets', /--to "lva1:0": the weight must be a whole number from 1 to 100/],
    ['a weight of 101', { for: '1h', to: ['lva1:101'] }, 'targets', /from 1 to 100/],
    ['a weight that is no number', { for: '1h', to: ['lva1:two'] }, 'targets', /from 1 to 100/],
    ['a target without a name', { for: '1h', to: [':2'] }, 'targets', /the fabric name is missing/],
    ['a target given twice', { for: '1h', to: ['lva1:2', 'lva1'] }, 'targets', /--to lva1 is given twice/],
    ['an empty --to', { for: '1h', to: [','] }, 'targets', /--to names no fabric/],
    ['an empty tier', { for: '1h', stages: 'frontend,,storage' }, 'stages', /the tier "" is empty/],
    ['a tier with a space', { for: '1h', stages: 'front end' }, 'stages', /the tier "front end" has characters other than/],
    ['a tier twice', { for: '1h', stages: 'frontend,frontend' }, 'stages', /names the tier frontend twice/],
    ['an empty cluster in a stage', { for: '1h', stage: ['a,,b'] }, 'stages', /--stage "a,,b" \(stage 1\): expected a comma-separated list of clusters/],
    ['both --stages and --stage', { for: '1h', stages: 'frontend', stage: ['a'] }, 'stages', /either --stages .* or --stage/],
    ['a gate without stages', { for: '1h', gateAlarm: ['1=x'] }, 'gateAlarms', /--gate-alarm gates a stage: give the stages too/],
    ['a gate without =', { for: '1h', stages: 'frontend', gateAlarm: ['frontend'] }, 'gateAlarms', /expected <tier-or-stage-number>=<alarm>/],
    ['a gate on an unknown tier', { for: '1h', stages: 'frontend', gateAlarm: ['storage=x'] }, 'gateAlarms', /no stage "storage"; the stages are 1 or frontend/],
    ['a gate on stage 0', { for: '1h', stage: ['a'], gateAlarm: ['0=x'] }, 'gateAlarms', /no stage "0"; the stages are 1/],
    ['a gate past the last stage', { for: '1h', stages: 'frontend,storage', gateAlarm: ['3=x'] }, 'gateAlarms', /no stage "3"/],
    ['a bad --hold', { for: '1h', hold: 'a while' }, 'hold', /--hold "a while" is not a duration/],
    ['a bad --restore-gap', { for: '1h', restoreGap: '-5s' }, 'restore-gap', /--restore-gap "-5s" is not a duration/],
    ['a bad --ramp', { for: '1h', ramp: 'half,100%' }, 'ramp', /"half" is not <pct>%/],
  ])('refuses %s with a usage error naming the field', (_name, options, field, message) => {
    // Act
    const error = usage(() => buildEvacuateBody('lor1', options, CONTEXT));

    // Assess
    expect(exitCodeOf(error)).toBe(2);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it("builds bodies the worker's schema accepts", () => {
    const bodies = [
      buildEvacuateBody('lor1', { for: '2h' }, CONTEXT),
      buildEvacuateBody('lor1', { to: ['lva1:2,ltx1:100'], at: '+5m', for: '2h', stages: 'frontend,storage', gateAlarm: ['1=fe-5xx'], hold: '0s', restoreGap: '1m', ramp: '50%:5m,100%', stopAlarm: ['a'], exclude: ['legacy'], force: true }, CONTEXT),
      buildEvacuateBody('lor1', { until: '+3h', stage: ['greetings-lor1', 'hello-lor1'] }, CONTEXT),
    ];

    for (const body of bodies) expect(encodeChangeRequest('https://queue', body, { now: NOW })).toMatchObject({ ok: true, message: { MessageGroupId: 'failout/fabrics' } });
  });
});

describe('buildRestoreFabricBody', () => {
  it('names the fabric, who and why, and passes the schema', () => {
    // Act
    const body = buildRestoreFabricBody('lor1', { reason: 'INC-4711 resolved' }, CONTEXT);

    // Assess
    expect(body).toEqual({ version: 1, requestId: CONTEXT.requestId, action: 'restoreFabric', fabric: 'lor1', requestedBy: 'oncall@host', reason: 'INC-4711 resolved' });
    expect(encodeChangeRequest('https://queue', body, { now: NOW })).toMatchObject({ ok: true, message: { MessageGroupId: 'failout/fabrics' } });
  });
});
