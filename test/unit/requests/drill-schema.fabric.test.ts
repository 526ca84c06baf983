import { parseChangeRequest } from '../../../lib/requests';
import { parseRequest, type ParsedRequestResult } from '../../../lib/requests/schema';
import { isFabricDrillRequest } from '../../../lib/requests/drill-schema';
import { decodeDrillNode, encodeDrillNode, type DrillNode } from '../../../lib/requests/drill-node';
import { changeRequestMessage, messageGroupOf } from '../../../lib/requests/request-message';
import { FABRIC_MESSAGE_GROUP } from '../../../lib/requests/fabric-schema';
import { NOW } from '../../helpers/requests';

// Issue 23, item 5 (drain tests): a drill may name a fabric in place of a cluster and its peers, with
// the options of an `evacuate`; its requests travel in the fabric actions' FIFO group.

function put(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    requestId: 'put-1',
    action: 'putDrill',
    fabric: 'lor1',
    drill: 'drain-lor1',
    duration: 'PT1H',
    every: 'cron(0 14 ? * WED *)',
    outcomeAlarm: 'lor1-drain-errors',
    ...overrides,
  };
}

function rejection(result: ParsedRequestResult): { reason: string; message: string } | undefined {
  return result.ok ? undefined : { reason: result.rejection.reason, message: result.rejection.message };
}

describe('a drill of a fabric (drain test) in the change request schema', () => {
  it('normalises a putDrill naming a fabric, with the evacuation options defaulted', () => {
    // Act
    const result = parseRequest(put({ blockingAlarms: ['deploys'], blockedDates: ['2026-12-24'], blockedWindows: ['Fri:16:00-Mon:08:00'] }), { now: NOW });

    // Assess
    expect(result).toEqual({
      ok: true,
      request: {
        version: 1,
        requestId: 'put-1',
        fabric: 'lor1',
        force: false,
        action: 'putDrill',
        drill: 'drain-lor1',
        evacuation: { holdMs: 300_000, restoreGapMs: 30_000, exclude: [] },
        durationMs: 3_600_000,
        every: 'cron(0 14 ? * WED *)',
        outcomeAlarm: 'lor1-drain-errors',
        blockingAlarms: ['deploys'],
        blockedDates: ['2026-12-24'],
        blockedWindows: ['Fri:16:00-Mon:08:00'],
      },
    });
    expect(result.ok && isFabricDrillRequest(result.request)).toBe(true);
  });

  it('keeps targets, stages with gate alarms, hold, restore gap, ramp and excluded services as evacuate reads them', () => {
    // Act
    const result = parseRequest(
      put({
        targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1' }],
        stages: [{ tier: 'frontend', gateAlarms: ['fe-5xx'] }, { clusters: ['hello-lor1'] }],
        hold: 'PT2M',
        restoreGap: '0',
        ramp: [{ percent: 50, duration: 'PT1M' }, { percent: 100 }],
        exclude: ['legacy', 'legacy'],
      }),
      { now: NOW },
    );

    // Assess
    expect(result).toMatchObject({
      ok: true,
      request: {
        evacuation: {
          targets: [
            { fabric: 'lva1', weight: 2 },
            { fabric: 'ltx1', weight: 1 },
          ],
          stages: [
            { tier: 'frontend', gateAlarms: ['fe-5xx'] },
            { clusters: ['hello-lor1'], gateAlarms: [] },
          ],
          holdMs: 120_000,
          restoreGapMs: 0,
          ramp: [{ percent: 50, duration: 'PT1M' }, { percent: 100 }],
          exclude: ['legacy'],
        },
      },
    });
  });

  it.each([
    ['a cluster and a fabric', { cluster: 'greetings-lor1' }, 'badSchema', /not both/],
    ['neither a cluster nor a fabric', { fabric: undefined }, 'badSchema', /a drill names its cluster, or its fabric/],
    ['peers', { peers: [{ cluster: 'greetings-lva1' }] }, 'badSchema', /peers: only for a drill of a cluster/],
    ['buckets', { buckets: { from: 0, to: 49 } }, 'badSchema', /buckets: only for a drill of a cluster/],
    ['a target that is the fabric', { targets: [{ fabric: 'lor1' }] }, 'badTargets', /is the fabric being evacuated/],
    ['a target weight out of range', { targets: [{ fabric: 'lva1', weight: 101 }] }, 'badTargets', /from 1 to 100/],
    ['a stage with a tier and clusters', { stages: [{ tier: 'frontend', clusters: ['a-1'] }] }, 'badStages', /not both/],
    ['a hold that is no duration', { hold: 'later' }, 'badSchema', /hold: "later"/],
    ['a ramp longer than a run', { duration: 'PT10M', ramp: [{ percent: 50, duration: 'PT20M' }, { percent: 100 }] }, 'badRamp', /not before the window ends/],
    ['a hostile fabric name', { fabric: '../\u001b[2J' }, 'badName', /fabric:/],
    ['a bad excluded service', { exclude: ['a/b'] }, 'badName', /exclude\[0\]/],
    ['a bad schedule', { every: 'tuesdays' }, 'badDrill', /every:/],
    ['a run too long', { duration: 'PT73H' }, 'windowTooLong', /maximum window/],
  ])('rejects a drain test with %s, naming it', (_what, overrides, reason, message) => {
    // Act
    const result = rejection(parseRequest(put(overrides), { now: NOW }));

    // Assess
    expect(result?.reason).toBe(reason);
    expect(result?.message).toMatch(message);
  });

  it("refuses a drain test's options on a cluster's drill", () => {
    // Act
    const result = rejection(parseRequest(put({ fabric: undefined, cluster: 'greetings-lor1', peers: [{ cluster: 'greetings-lva1' }], targets: [{ fabric: 'lva1' }], hold: 'PT1M' }), { now: NOW }));

    // Assess
    expect(result).toEqual({ reason: 'badSchema', message: expect.stringMatching(/targets, hold: only for a drill of a fabric/) });
  });

  it('reads deleteDrill and skipDrill naming a fabric; parseChangeRequest (cluster requests only) refuses them', () => {
    // Prepare
    const del = { version: 1, requestId: 'd-1', action: 'deleteDrill', fabric: 'lor1', drill: 'drain-lor1' };
    const skip = { version: 1, requestId: 's-1', action: 'skipDrill', fabric: 'lor1', drill: 'drain-lor1', skipReason: 'drillRunning', scheduledAt: NOW, detail: 'fabric lva1 is being evacuated' };

    // Act
    const deleted = parseRequest(del, { now: NOW });
    const skipped = parseRequest(skip, { now: NOW });

    // Assess
    expect(deleted).toEqual({ ok: true, request: { version: 1, requestId: 'd-1', fabric: 'lor1', force: false, action: 'deleteDrill', drill: 'drain-lor1' } });
    expect(skipped).toMatchObject({ ok: true, request: { fabric: 'lor1', action: 'skipDrill', skipReason: 'drillRunning', scheduledAt: NOW } });
    expect(rejection(parseChangeRequest(del, { now: NOW }))).toEqual({ reason: 'badSchema', message: expect.stringMatching(/acts on a fabric/) });
  });

  it("puts a drain test's requests in the fabric actions' FIFO group, and a cluster drill's in its cluster's", () => {
    expect(messageGroupOf({ action: 'putDrill', fabric: 'lor1' })).toBe(FABRIC_MESSAGE_GROUP);
    expect(messageGroupOf({ action: 'skipDrill', fabric: 'lor1' })).toBe(FABRIC_MESSAGE_GROUP);
    expect(changeRequestMessage('q', { requestId: 'd-1', action: 'deleteDrill', fabric: 'lor1' }).MessageGroupId).toBe(FABRIC_MESSAGE_GROUP);
    expect(messageGroupOf({ action: 'putDrill', cluster: 'greetings-lor1' })).toBe('greetings-lor1');
    expect(messageGroupOf({ action: 'evacuate', fabric: 'lor1' })).toBe(FABRIC_MESSAGE_GROUP);
  });

  it("reads a restoreFabric's drill only with stoppedByAlarm (the verdict it carries)", () => {
    // Prepare
    const restore = { version: 1, requestId: 'r-1', action: 'restoreFabric', fabric: 'lor1', drill: 'drain-lor1' };

    // Act
    const alone = rejection(parseRequest(restore, { now: NOW }));
    const verdict = parseRequest({ ...restore, stoppedByAlarm: 'lor1-drain-errors', alarmAt: NOW }, { now: NOW });

    // Assess
    expect(alone).toEqual({ reason: 'badSchema', message: expect.stringMatching(/only with stoppedByAlarm/) });
    expect(verdict).toMatchObject({ ok: true, request: { action: 'restoreFabric', stoppedByAlarm: 'lor1-drain-errors', alarmAt: NOW, drill: 'drain-lor1' } });
  });
});

describe('the drill node of a drain test', () => {
  const node: DrillNode = {
    version: 1,
    definition: {
      name: 'drain-lor1',
      fabric: 'lor1',
      evacuation: { targets: [{ fabric: 'lva1', weight: 2 }], stages: [{ tier: 'frontend', gateAlarms: [] }], holdMs: 0, restoreGapMs: 30_000, ramp: [{ percent: 100 }], exclude: ['legacy'] },
      durationMs: 3_600_000,
      every: 'rate(7 days)',
      outcomeAlarm: 'lor1-drain-errors',
      blockingAlarms: [],
      blockedDates: [],
      blockedWindows: [],
      definedAt: NOW,
      requestId: 'put-1',
    },
    runs: [{ runId: 'drill-drain-lor1-1', status: 'running', at: NOW, endsAt: NOW + 3_600_000, clusters: 2 }],
  };

  it('round-trips through the codec', () => {
    expect(decodeDrillNode(encodeDrillNode(node, NOW))).toEqual(node);
  });

  it('refuses a definition with both targets, or neither', () => {
    // Prepare
    const both = { ...node, definition: { ...node.definition, cluster: 'greetings-lor1', peers: [{ cluster: 'greetings-lva1', weight: 1 }], buckets: { from: 0, to: 99 } } };
    const neither = { ...node, definition: { ...node.definition, fabric: undefined } };

    // Act / Assess
    expect(() => decodeDrillNode(JSON.stringify(both))).toThrow(/a drill names a cluster .* or a fabric/);
    expect(() => decodeDrillNode(JSON.stringify(neither))).toThrow(/drill node is malformed/);
  });
});
