import { parseChangeRequest } from '../../../lib/requests';
import { type ParseResult } from '../../../lib/requests/schema';
import { decodeDrillNode, encodeDrillNode, MAX_DRILL_RUNS, runStatusAt, type DrillNode } from '../../../lib/requests/drill-node';
import { NOW } from '../../helpers/requests';

function put(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    requestId: 'put-1',
    action: 'putDrill',
    cluster: 'greetings-lor1',
    drill: 'weekly',
    peers: [{ cluster: 'greetings-lva1', weight: 2 }],
    duration: 'PT30M',
    every: 'cron(0 14 ? * TUE *)',
    outcomeAlarm: 'greetings-errors',
    ...overrides,
  };
}

function rejection(result: ParseResult): { reason: string; message: string } | undefined {
  return result.ok ? undefined : { reason: result.rejection.reason, message: result.rejection.message };
}

describe('drill actions in the change request schema', () => {
  it('normalises a putDrill', () => {
    const result = parseChangeRequest(put({ blockingAlarms: ['deploys'], blockedDates: ['2026-12-24'], blockedWindows: ['Mon:09:00-Mon:10:00'], buckets: { from: 0, to: 49 } }), { now: NOW });
    expect(result).toEqual({
      ok: true,
      request: {
        version: 1,
        requestId: 'put-1',
        cluster: 'greetings-lor1',
        force: false,
        action: 'putDrill',
        drill: 'weekly',
        peers: [{ cluster: 'greetings-lva1', weight: 2 }],
        durationMs: 1_800_000,
        buckets: { from: 0, to: 49 },
        every: 'cron(0 14 ? * TUE *)',
        outcomeAlarm: 'greetings-errors',
        blockingAlarms: ['deploys'],
        blockedDates: ['2026-12-24'],
        blockedWindows: ['Mon:09:00-Mon:10:00'],
      },
    });
  });

  it.each([
    ['every', { every: 'cron(0 14 * * TUE *)' }, 'badDrill', /every: cron: exactly one/],
    ['every (not cron)', { every: 'tuesdays' }, 'badDrill', /every: .*neither cron/],
    ['duration', { duration: 'soon' }, 'badDrill', /duration: "soon" is not a positive duration/],
    ['duration too long', { duration: 'PT73H' }, 'windowTooLong', /longer than the maximum window 72h/],
    ['outcomeAlarm empty', { outcomeAlarm: '' }, 'badStopAlarm', /outcomeAlarm: an alarm name must not be empty/],
    ['outcomeAlarm control char', { outcomeAlarm: 'a\u001b[2Jb' }, 'badStopAlarm', /control characters/],
    ['blockingAlarms too many', { blockingAlarms: ['a', 'b', 'c', 'd', 'e'] }, 'badDrill', /at most 4/],
    ['blockingAlarms duplicate of outcome', { blockingAlarms: ['greetings-errors'] }, 'badDrill', /listed twice \(or is the outcome alarm\)/],
    ['blockedDates', { blockedDates: ['2026-13-01'] }, 'badDrill', /blockedDates\[0\]: "2026-13-01" is not a calendar date/],
    ['blockedDates too many', { blockedDates: Array.from({ length: 16 }, (_, i) => `2026-12-${String(i + 1).padStart(2, '0')}`) }, 'badDrill', /at most 15/],
    ['blockedWindows', { blockedWindows: ['Mon:9:00-Mon:10:00'] }, 'badDrill', /blockedWindows\[0\]: .*Day:HH:MM-Day:HH:MM/],
    ['drill name', { drill: 'a/b' }, 'badName', /drill: "a\/b"/],
    ['peer is the cluster', { peers: [{ cluster: 'greetings-lor1' }] }, 'peerIsCluster', /is the drill's cluster/],
    ['peer twice', { peers: [{ cluster: 'x-1' }, { cluster: 'x-1' }] }, 'duplicatePeer', /listed twice/],
    ['unknown field', { surprise: true }, 'badSchema', /surprise/],
    ['no outcome alarm', { outcomeAlarm: undefined }, 'badSchema', /outcomeAlarm/],
  ])('rejects a putDrill with a bad %s, naming the field', (_what, overrides, reason, message) => {
    const result = rejection(parseChangeRequest(put(overrides), { now: NOW }));
    expect(result?.reason).toBe(reason);
    expect(result?.message).toMatch(message);
  });

  it('rejects bad deleteDrill and skipDrill bodies, and a bad drill on a failout', () => {
    expect(rejection(parseChangeRequest({ version: 1, requestId: 'd', action: 'deleteDrill', cluster: 'c-1', drill: '..' }, { now: NOW }))?.reason).toBe('badName');
    expect(rejection(parseChangeRequest({ version: 1, requestId: 'd', action: 'deleteDrill', cluster: 'c-1' }, { now: NOW }))?.reason).toBe('badSchema');
    const skip = { version: 1, requestId: 's', action: 'skipDrill', cluster: 'c-1', drill: 'w' };
    expect(rejection(parseChangeRequest({ ...skip, skipReason: 'bored' }, { now: NOW }))?.reason).toBe('badSchema');
    expect(rejection(parseChangeRequest({ ...skip, skipReason: 'blockedDate', detail: 'x'.repeat(513) }, { now: NOW }))?.reason).toBe('badSchema');
    expect(rejection(parseChangeRequest({ ...skip, skipReason: 'blockedDate', scheduledAt: -1 }, { now: NOW }))?.reason).toBe('badSchema');
    expect(parseChangeRequest({ ...skip, skipReason: 'blockedDate', scheduledAt: NOW, detail: '2026-12-24' }, { now: NOW }).ok).toBe(true);
    const failout = { version: 1, requestId: 'f', action: 'failout', cluster: 'c-1', peers: [{ cluster: 'c-2' }], duration: 'PT1H' };
    expect(rejection(parseChangeRequest({ ...failout, drill: 'a/b' }, { now: NOW }))?.reason).toBe('badName');
    expect(rejection(parseChangeRequest({ ...failout, drill: 7 }, { now: NOW }))?.reason).toBe('badSchema');
    expect(parseChangeRequest({ ...failout, drill: 'weekly' }, { now: NOW })).toMatchObject({ ok: true, request: { drill: 'weekly' } });
  });
});

describe('the drill node', () => {
  const node: DrillNode = {
    version: 1,
    definition: {
      name: 'weekly',
      cluster: 'c-1',
      peers: [{ cluster: 'c-2', weight: 1 }],
      durationMs: 60_000,
      buckets: { from: 0, to: 99 },
      every: 'rate(7 days)',
      outcomeAlarm: 'o',
      blockingAlarms: [],
      blockedDates: [],
      blockedWindows: [],
      definedAt: NOW,
      requestId: 'put-1',
    },
    runs: Array.from({ length: MAX_DRILL_RUNS + 5 }, (_, i) => ({ runId: `r-${i}`, status: 'skipped' as const, at: NOW - i, skipReason: 'blockedDate' as const, detail: 'd'.repeat(600) })),
  };

  it('keeps the newest runs and cuts long details when encoded', () => {
    const decoded = decodeDrillNode(encodeDrillNode(node, NOW));
    expect(decoded.runs).toHaveLength(MAX_DRILL_RUNS);
    expect(decoded.runs[0]?.runId).toBe('r-0');
    expect(decoded.runs[0]?.detail).toMatch(/characters cut\)$/);
  });

  it('keeps a run still running however many newer runs there are', () => {
    const running = { runId: 'old-running', status: 'running' as const, at: NOW - 1000, endsAt: NOW + 1000 };
    const decoded = decodeDrillNode(encodeDrillNode({ ...node, runs: [...node.runs, running] }, NOW));
    expect(decoded.runs).toHaveLength(MAX_DRILL_RUNS + 1);
    expect(decoded.runs[MAX_DRILL_RUNS]?.runId).toBe('old-running');
  });

    it('refuses a node that is not a drill', () => {
    expect(() => decodeDrillNode('{"version":1}')).toThrow(/drill node is malformed/);
    expect(() => decodeDrillNode('nope')).toThrow(/not JSON/);
  });

  it('derives passed for a running run whose window ended', () => {
    const run = { runId: 'r', status: 'running' as const, at: NOW, endsAt: NOW + 1000 };
    expect(runStatusAt(run, NOW + 999)).toBe('running');
    expect(runStatusAt(run, NOW + 1000)).toBe('passed');
    expect(runStatusAt({ ...run, status: 'failed' }, NOW + 5000)).toBe('failed');
  });
});
