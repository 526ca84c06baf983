import { describeCluster } from '../../../lib/operator/cluster-status';
import { renderCard } from '../../../lib/console/page';
import { renderRamp } from '../../../lib/console/ramp-view';

// Issue 24, item 6: a ramp on its card as one progress bar with the steps as the operator typed them,
// where it stands, what comes next, and the buttons that steer it (each fills the Act form).

const MINUTE = 60_000;
const NOW = Date.parse('2026-12-02T12:00:00Z');
const end = NOW + 120 * MINUTE;
const window = (from: number, to: number, offlineAt: number) => ({ partition: 'main', bucketOfflineRange: { from, to }, offlineAt, onlineAt: end, requestId: 'r-ramp' });

function rampOf(failoutProperties: object, at: number) {
  const status = describeCluster('greetings-lor1', JSON.stringify({ clusterName: 'greetings-lor1', failoutProperties }), at);
  return status.ramp!;
}

const typed = { failoutRedirectConfigs: [{ peer: 'greetings-lva1', weight: 1 }], failoutBucketConfigs: [window(0, 19, NOW), window(20, 59, NOW + 5 * MINUTE), window(60, 99, NOW + 15 * MINUTE)] };

describe('a ramp on its card', () => {
  it('shows 20 → 60 → 100 % as typed, the bar at the current share, the next step and its countdown', () => {
    // Act
    const text = renderRamp('greetings-lor1', rampOf(typed, NOW + MINUTE), NOW + MINUTE).text;

    // Assess
    expect(text).toContain('<progress max="100" value="20" aria-label="ramp of greetings-lor1: 20% moved, step 1 of 3">20%</progress>');
    expect(text).toMatch(/<li data-state="done">20%<\/li><li data-state="next">60%<\/li><li data-state="later">100%<\/li>/);
    expect(text).toContain(`next 60% in <time datetime="${new Date(NOW + 5 * MINUTE).toISOString()}" data-until="${NOW + 5 * MINUTE}">4m</time>`);
    expect(text).toContain('data-act="rampHold" data-cluster="greetings-lor1"');
    expect(text).toContain('data-act="rampAdvance" data-cluster="greetings-lor1"');
    expect(text).toContain('data-act="restore" data-cluster="greetings-lor1">Abort (restore)…');
    expect(text).not.toContain('rampResume');
  });

  it('at the last step offers only the abort', () => {
    const text = renderRamp('greetings-lor1', rampOf(typed, NOW + 20 * MINUTE), NOW + 20 * MINUTE).text;
    expect(text).toContain('last step on');
    expect(text).not.toContain('rampHold');
    expect(text).not.toContain('rampAdvance');
    expect(text).toContain('Abort (restore)');
  });

  it('shows a held ramp with its held steps, who held it and why (escaped), and offers resume and advance', () => {
    // Prepare: held at 20 %, 60 and 100 % waiting
    const held = {
      failoutRedirectConfigs: [{ peer: 'greetings-lva1' }],
      failoutBucketConfigs: [window(0, 19, NOW - 10 * MINUTE)],
      rampHold: { heldAt: NOW - 5 * MINUTE, requestedBy: 'oncall@example.com', reason: '<b>INC-1</b>', failoutBucketConfigs: [window(20, 59, NOW), window(60, 99, NOW + 10 * MINUTE)] },
    };

    // Act
    const text = renderRamp('greetings-lor1', rampOf(held, NOW), NOW).text;

    // Assess
    expect(text).toMatch(/<li data-state="done">20%<\/li><li data-state="held">60%<\/li><li data-state="held">100%<\/li>/);
    expect(text).toContain('held at 20% since');
    expect(text).toContain('&lt;b&gt;INC-1&lt;/b&gt;');
    expect(text).not.toContain('<b>INC-1');
    expect(text).toContain('data-act="rampResume"');
    expect(text).toContain('data-act="rampAdvance"');
    expect(text).not.toContain('data-act="rampHold"');
  });
});

describe("a ramp's card", () => {
  it('lists the ramp as one failout (when, by whom, why) and not its steps as windows with their shares', () => {
    // Prepare
    const status = describeCluster('greetings-lor1', JSON.stringify({ clusterName: 'greetings-lor1', failoutProperties: typed }), NOW + MINUTE);
    const card = { name: 'greetings-lor1', hosts: 3, status, safety: status.windows.map(() => ({ stopAlarms: [], drill: undefined, forced: undefined })), problem: undefined };

    // Act
    const text = renderCard(card, true, NOW + MINUTE, { kind: 'off' }).text;

    // Assess
    expect(text.match(/<li class="window/g)).toHaveLength(1);
    expect(text).not.toMatch(/buckets \d+–\d+ \(\d+%\)/);
    expect(text).toContain('<progress max="100" value="20"');
  });
});
