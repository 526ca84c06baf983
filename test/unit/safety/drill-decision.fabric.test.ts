import type { FailoutProperties } from '../../../lib/d2/data';
import type { DrillDefinition } from '../../../lib/requests/drills';
import { evacuationPrecedence } from '../../../lib/requests/evacuation-judge';
import type { EvacuationNode, StoredEvacuation } from '../../../lib/requests/evacuation-node';
import { decideRun, type AlarmState } from '../../../lib/safety';

// Issue 23, item 5: a drain test's run is decided as a cluster drill's, over its fabric: the clusters
// of the fabric and the evacuations open anywhere; an operator always takes precedence.

const AT = Date.parse('2026-12-02T14:00:00Z'); // a Wednesday
const drain: DrillDefinition = {
  name: 'drain-lor1',
  fabric: 'lor1',
  evacuation: { holdMs: 300_000, restoreGapMs: 30_000, exclude: [] },
  durationMs: 3_600_000,
  every: 'cron(0 14 ? * WED *)',
  outcomeAlarm: 'errors',
  blockingAlarms: ['deploys'],
  blockedDates: [],
  blockedWindows: [],
  definedAt: 0,
  requestId: 'put-1',
};
const ok = new Map<string, AlarmState>([
  ['errors', 'OK'],
  ['deploys', 'OK'],
]);

function failout(bucket: Partial<FailoutProperties['buckets'][number]>): FailoutProperties {
  return { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: AT - 60_000, onlineAt: AT + 3_600_000, requestId: 'op-1', ...bucket }] };
}

const members = (hello: FailoutProperties | null) =>
  new Map<string, FailoutProperties | null>([
    ['greetings-lor1', null],
    ['hello-lor1', hello],
  ]);

describe('decideRun for a drain test', () => {
  it('starts when no evacuation is open and no cluster of the fabric is taken', () => {
    expect(decideRun(drain, { scheduledAt: AT, members: members(null), evacuations: [], alarms: ok, now: AT })).toEqual({ start: true });
  });

  it.each([
    ['a blocked date', { ...drain, blockedDates: ['2026-12-02'] }, members(null), [], ok, 'blockedDate', /2026-12-02/],
    ['a blocked window overlapping the run', { ...drain, blockedWindows: ['Wed:14:30-Wed:16:00'] }, members(null), [], ok, 'blockedWindow', /Wed:14:30/],
    ["an operator's evacuation of another fabric", drain, members(null), [{ fabric: 'lva1', requestId: 'ev-1' }], ok, 'operatorFailoutActive', /fabric lva1 is being evacuated by an operator \(request ev-1\)/],
    ["another drain test's evacuation", drain, members(null), [{ fabric: 'ltx1', requestId: 'drill-x-1', drill: 'x' }], ok, 'drillRunning', /run of drill x/],
    ["an operator's failout of a cluster of the fabric", drain, members(failout({ requestedBy: 'oncall' })), [], ok, 'operatorFailoutActive', /hello-lor1 is failed out by oncall/],
    ["an operator's scheduled failout of one", drain, members(failout({ offlineAt: AT + 3_600_000, onlineAt: AT + 7_200_000 })), [], ok, 'operatorFailoutActive', /hello-lor1/],
    ["a cluster drill's run on one", drain, members(failout({ drill: 'weekly' })), [], ok, 'drillRunning', /hello-lor1 is in a run of drill weekly/],
    ['a blocking alarm', drain, members(null), [], new Map<string, AlarmState>([['errors', 'OK'], ['deploys', 'ALARM']]), 'blockingAlarm', /deploys/],
    ['the outcome alarm', drain, members(null), [], new Map<string, AlarmState>([['errors', 'ALARM'], ['deploys', 'OK']]), 'outcomeAlarm', /errors/],
  ] as const)('skips for %s', (_what, d, m, evacuations, alarms, skipReason, detail) => {
    // Act
    const decision = decideRun(d, { scheduledAt: AT, members: m, evacuations, alarms, now: AT });

    // Assess
    expect(decision).toMatchObject({ start: false, skipReason });
    expect(decision.start ? '' : decision.detail).toMatch(detail);
  });

  it("names an operator's failout before another drain test's evacuation: the operator's is the clearer reason", () => {
    expect(decideRun(drain, { scheduledAt: AT, members: members(failout({})), evacuations: [{ fabric: 'ltx1', requestId: 'drill-x-1', drill: 'x' }], alarms: ok, now: AT })).toMatchObject({ skipReason: 'operatorFailoutActive' });
  });
});

describe('evacuationPrecedence', () => {
  function stored(fabric: string, drill?: string, until = AT + 3_600_000): StoredEvacuation {
    const node = {
      version: 1,
      fabric,
      requestId: `ev-${fabric}`,
      status: 'applied',
      mode: 'multi',
      createdAt: AT,
      plan: { fabric, requestId: `ev-${fabric}`, offlineAt: AT, onlineAt: until, targets: 'capacity', stages: [{ index: 0, name: 'all', clusters: [], offlineAt: AT, fullyOutAt: AT, onlineAt: until, gateAlarms: [] }], clusters: [], receivers: [], excluded: [], stopAlarms: [], maxPeerLoadFactor: 2, ...(drill === undefined ? {} : { drill }) },
      written: 0,
    } satisfies EvacuationNode;
    return { fabric, path: `/failout/evacuations/${fabric}`, version: 3, node };
  }

  it.each([
    ["an operator's evacuation, another operator's open", {}, [stored('lva1')], 'evacuationOpen'],
    ["a drain test's run, an operator's open", { drill: 'drain-lor1' }, [stored('lva1')], 'operatorFailoutActive'],
    ["a drain test's run, another drain test's open", { drill: 'drain-lor1' }, [stored('lva1', 'drain-lva1')], 'drillRunning'],
    ['an unreadable evacuation node', {}, [{ fabric: 'lva1', path: '/x', version: 0, node: undefined, problem: 'not JSON' }], 'evacuationOpen'],
  ] as const)('refuses %s', (_what, request, evacuations, reason) => {
    expect(evacuationPrecedence(evacuations, request, AT)).toMatchObject({ problem: { reason } });
  });

  it("makes a drain test's open evacuation give way to an operator's, and ignores ended ones", () => {
    // Act
    const operator = evacuationPrecedence([stored('ltx1', undefined, AT - 1), stored('lva1', 'drain-lva1')], {}, AT);
    const none = evacuationPrecedence([stored('ltx1', 'drain-ltx1', AT - 1)], { drill: 'drain-lor1' }, AT);

    // Assess
    expect(operator).toMatchObject({ yielding: { fabric: 'lva1', node: { plan: { drill: 'drain-lva1' } } } });
    expect(none).toEqual({});
  });
});
