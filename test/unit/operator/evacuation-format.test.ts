import type { EvacuationNode, EvacuationPlan } from '../../../lib/requests';
import { formatEvacuationPlan } from '../../../lib/operator/evacuation-format';
import { describeEvacuation, formatEvacuationLine } from '../../../lib/operator/evacuation-status';

/**
 * Issue 23, how an evacuation reads to an operator: the plan `failout evacuate` shows (stages, cluster
 * → peers, receiving clusters' load before → after against the limit) and the line `failout status`
 * gives an open evacuation (its stage now, the next stage, the end).
 */

const T0 = Date.parse('2026-11-30T16:00:00Z');
const MINUTE = 60_000;

/** Two stages: frontend (ramped over 10 minutes, held 5), then the rest; back at +2h, the rest first. */
function plan(overrides: Partial<EvacuationPlan> = {}): EvacuationPlan {
  return {
    fabric: 'lor1',
    requestId: '0195d5a8-7c00-7000-8000-000000000000',
    offlineAt: T0,
    onlineAt: T0 + 120 * MINUTE + 30_000,
    targets: [
      { fabric: 'lva1', weight: 2 },
      { fabric: 'ltx1', weight: 1 },
    ],
    stages: [
      { index: 0, name: 'frontend', clusters: ['web-lor1'], offlineAt: T0, fullyOutAt: T0 + 10 * MINUTE, onlineAt: T0 + 120 * MINUTE + 30_000, gateAlarms: ['fe-5xx'] },
      { index: 1, name: 'rest', clusters: ['db-lor1'], offlineAt: T0 + 15 * MINUTE, fullyOutAt: T0 + 25 * MINUTE, onlineAt: T0 + 120 * MINUTE, gateAlarms: [] },
    ],
    clusters: [
      { cluster: 'web-lor1', service: 'web', stage: 0, peers: [{ cluster: 'web-lva1', weight: 2 }, { cluster: 'web-ltx1', weight: 1 }], hosts: 3 },
      { cluster: 'db-lor1', service: 'db', stage: 1, peers: [{ cluster: 'db-lva1', weight: 2 }], hosts: 2, replaces: '0195d5a8-0000-7000-8000-000000000001' },
    ],
    receivers: [
      { cluster: 'web-lva1', service: 'web', fabric: 'lva1', hosts: 3, factorBefore: 1, factorAfter: 1.6667 },
      { cluster: 'db-lva1', service: 'db', fabric: 'lva1', hosts: 1, factorBefore: 1, factorAfter: 3 },
    ],
    excluded: ['legacy-batch'],
    stopAlarms: ['lor1-errors', 'fe-5xx'],
    maxPeerLoadFactor: 2,
    ...overrides,
  };
}

function node(overrides: Partial<EvacuationNode> = {}): EvacuationNode {
  return { version: 1, fabric: 'lor1', requestId: plan().requestId, status: 'applied', mode: 'multi', createdAt: T0, requestedBy: 'oncall@example.com', reason: 'INC-4711', plan: plan(), written: 2, ...overrides };
}

describe('formatEvacuationPlan', () => {
  it('shows the summary, the stages, cluster → peers and the receiving clusters against the limit', () => {
    // Act
    const text = formatEvacuationPlan(plan(), { now: T0 });

    // Assess
    expect(text).toBe(
      [
        'evacuation of lor1: 2 clusters of 2 services in 2 stages, to lva1 (weight 2), ltx1 (weight 1)',
        '  window   from 2026-11-30T16:00:00.000Z (in 0s) until 2026-11-30T18:00:30.000Z (in 2h 30s)',
        '  stage 1 (frontend): 1 cluster, out from 2026-11-30T16:00:00.000Z, fully out 2026-11-30T16:10:00.000Z, back at 2026-11-30T18:00:30.000Z; gate alarms: fe-5xx',
        '  stage 2 (rest): 1 cluster, out from 2026-11-30T16:15:00.000Z, fully out 2026-11-30T16:25:00.000Z, back at 2026-11-30T18:00:00.000Z',
        '  stops    when a stop or gate alarm fires (the whole evacuation returns): lor1-errors, fe-5xx',
        '  excluded legacy-batch (left in place)',
        '',
        '  CLUSTER   SERVICE  STAGE         HOSTS  PEERS (WEIGHT)',
        '  web-lor1  web      1 (frontend)  3      web-lva1 (2), web-ltx1 (1)',
        '  db-lor1   db       2 (rest)      2      db-lva1 (2); replaces the failout of request 0195d5a8-0000-7000-8000-000000000001',
        '',
        'receiving clusters: projected load per host, × their own load (limit ×2)',
        '  CLUSTER   FABRIC  SERVICE  HOSTS  BEFORE  AFTER',
        '  web-lva1  lva1    web      3      ×1      ×1.67',
        '  db-lva1   lva1    db       1      ×1      ×3 OVER THE LIMIT',
        '',
      ].join('\n'),
    );
  });

  it('says when the targets are every other fabric by capacity, and names stages of listed clusters by number', () => {
    const text = formatEvacuationPlan(plan({ targets: 'capacity', stages: plan().stages.map((s, i) => ({ ...s, name: `stage ${i + 1}` })) }));

    expect(text).toContain('to every other fabric, by capacity');
    expect(text).toMatch(/^ {2}stage 1: 1 cluster/m);
    expect(text).toMatch(/^ {2}web-lor1 +web +1 +3 /m);
  });

  it('escapes control characters from data', () => {
    const text = formatEvacuationPlan(plan({ excluded: ['bad\u001b[2Jname'] }));

    expect(text).not.toContain('\u001b');
  });
});

describe('describeEvacuation and formatEvacuationLine', () => {
  it.each([
    ['before the first stage', T0 - 5 * MINUTE, 'scheduled', undefined, /^evacuation of lor1 OPEN: scheduled; starts 2026-11-30T16:00:00.000Z \(in 5m\); ends /],
    ['while the first stage moves', T0 + MINUTE, 'moving', 1, /OPEN: stage 1 of 2 \(frontend\) moving out; next stage 2026-11-30T16:15:00.000Z \(in 14m\); ends 2026-11-30T18:00:30.000Z \(in 1h 59m\)/],
    ['when the first stage is out', T0 + 12 * MINUTE, 'out', 1, /OPEN: stage 1 of 2 \(frontend\) out; next stage/],
    ['once the last stage is out', T0 + 30 * MINUTE, 'out', 2, /OPEN: stage 2 of 2 \(rest\) out; ends .* {2}\[request 0195d5a8-7c00-7000-8000-000000000000\] by oncall@example\.com — INC-4711$/],
    ['while the stages return', T0 + 120 * MINUTE + 10_000, 'restoring', 2, /OPEN: stage 2 of 2 \(rest\) returning, last stage first; ends/],
  ])('says where it is %s', (_when, now, phase, stage, line) => {
    // Act
    const summary = describeEvacuation(node(), now);

    // Assess
    expect(summary).toMatchObject({ open: true, phase, offlineAt: '2026-11-30T16:00:00.000Z', onlineAt: '2026-11-30T18:00:30.000Z', clusters: 2 });
    expect(summary.stage?.number).toBe(stage);
    expect(formatEvacuationLine(summary, now)).toMatch(line);
  });

  it('says, once a restore ended it, which stages are still out until the last is back (the restore returns them a gap apart)', () => {
    // Arrange: restored at +60m with both stages out; the last stage is back at once, the first 30 s later
    const ended = node({ status: 'restored', endedAt: T0 + 60 * MINUTE, endedBy: 'oncall@example.com', endedByRequest: '0195d5a8-7c00-7000-8000-0000000000ff' });

    // Act
    const returning = describeEvacuation(ended, T0 + 60 * MINUTE + 10_000);
    const back = describeEvacuation(ended, T0 + 60 * MINUTE + 30_000);

    // Assess
    expect(returning).toMatchObject({ open: false, phase: 'restoring', stage: { number: 1, of: 2, name: 'frontend' }, backAt: '2026-11-30T17:00:30.000Z' });
    expect(formatEvacuationLine(returning, T0 + 60 * MINUTE + 10_000)).toMatch(
      /^evacuation of lor1 RETURNING \(restored by oncall@example\.com\): stage 1 of 2 \(frontend\) still out, the last stage first; all back 2026-11-30T17:00:30\.000Z \(in 20s\) {2}\[request 0195d5a8-7c00-7000-8000-000000000000\]/,
    );
    expect(back).toMatchObject({ open: false, phase: 'ended' });
    expect(back.backAt).toBeUndefined();
  });

  it('counts a stage that had not started when the restore ended it as never out, and a stop by an alarm as a restore', () => {
    // Arrange: stopped at +5m, before stage 2 (+15m) started: only stage 1 is out, back 30 s later
    const stopped = node({ status: 'stopped', endedAt: T0 + 5 * MINUTE, stoppedByAlarm: 'lor1-errors' });

    // Act
    const summary = describeEvacuation(stopped, T0 + 5 * MINUTE + 1000);

    // Assess
    expect(summary).toMatchObject({ open: false, phase: 'restoring', stage: { number: 1, of: 2 }, backAt: '2026-11-30T16:05:30.000Z' });
    expect(formatEvacuationLine(summary, T0 + 5 * MINUTE + 1000)).toMatch(/^evacuation of lor1 RETURNING \(stopped by alarm lor1-errors\): stage 1 of 2 \(frontend\) still out/);
    expect(describeEvacuation(stopped, T0 + 5 * MINUTE + 30_000)).toMatchObject({ phase: 'ended' });
  });

  it('is no longer open once restored or past its end', () => {
    expect(describeEvacuation(node({ status: 'restored', endedAt: T0 + 20 * MINUTE, endedBy: 'oncall' }), T0 + 21 * MINUTE)).toMatchObject({ open: false, phase: 'ended', endedAt: '2026-11-30T16:20:00.000Z' });
    expect(describeEvacuation(node(), T0 + 3 * 60 * MINUTE)).toMatchObject({ open: false, phase: 'ended' });
  });
});
