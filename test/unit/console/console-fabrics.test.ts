import type { FailoutBucketConfig, FailoutProperties } from '../../../lib/d2';
import { fabricAnswer, planRows } from '../../../lib/console/fabric-actions';
import { renderFabricForm, renderFabrics } from '../../../lib/console/fabric-page';
import { buildFabricTable, fabricFingerprint, type FabricTableInputs } from '../../../lib/console/fabric-view';
import type { ClusterEntry } from '../../../lib/console/zk-view';
import { describeFailout } from '../../../lib/operator/cluster-status';
import type { EvacuationNode, EvacuationPlan } from '../../../lib/requests';

// The console's fabric view (issue 23, item 6): fabrics × services with each cell's state and each
// fabric's share of a service's traffic, a fabric's open evacuation with absolute times the page counts
// down from, the buttons, and every name from ZooKeeper rendered as text.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MINUTE = 60_000;
const EVACUATION_ID = '0195d5a8-7c00-7000-8000-000000000000';
/** A name that would be markup if it reached the page as HTML (no space or slash: a valid znode and cluster name). */
const HOSTILE = '"><b>x<i>\'&';

function window(extra: Partial<FailoutBucketConfig> = {}): FailoutProperties {
  return { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: NOW - MINUTE, onlineAt: NOW + 60 * MINUTE, requestedBy: 'oncall', ...extra }] };
}

function entry(name: string, hosts: number, failout: FailoutProperties | null | undefined = null): ClusterEntry {
  return { name, hosts, failout, problem: undefined };
}

function plan(overrides: Partial<EvacuationPlan> = {}): EvacuationPlan {
  return {
    fabric: 'lor1',
    requestId: EVACUATION_ID,
    offlineAt: NOW - 10 * MINUTE,
    onlineAt: NOW + 90 * MINUTE,
    targets: 'capacity',
    stages: [
      { index: 0, name: 'frontend', clusters: ['greetings-lor1'], offlineAt: NOW - 10 * MINUTE, fullyOutAt: NOW - 5 * MINUTE, onlineAt: NOW + 90 * MINUTE, gateAlarms: [] },
      { index: 1, name: '(rest)', clusters: ['hello-lor1'], offlineAt: NOW + 5 * MINUTE, fullyOutAt: NOW + 5 * MINUTE, onlineAt: NOW + 89 * MINUTE, gateAlarms: [] },
    ],
    clusters: [
      { cluster: 'greetings-lor1', service: 'greetings', stage: 0, peers: [{ cluster: 'greetings-lva1', weight: 3 }], hosts: 3 },
      { cluster: 'hello-lor1', service: 'hello', stage: 1, peers: [{ cluster: 'hello-lva1', weight: 2 }], hosts: 1 },
    ],
    receivers: [{ cluster: 'greetings-lva1', service: 'greetings', fabric: 'lva1', hosts: 3, factorBefore: 1, factorAfter: 2.5 }],
    excluded: [],
    stopAlarms: [],
    maxPeerLoadFactor: 2,
    ...overrides,
  };
}

function node(overrides: Partial<EvacuationNode> = {}): EvacuationNode {
  return { version: 1, fabric: 'lor1', requestId: EVACUATION_ID, status: 'applied', mode: 'multi', createdAt: NOW - 10 * MINUTE, requestedBy: 'oncall@example.com', reason: 'INC-23', plan: plan(), written: 2, ...overrides };
}

/** greetings and hello in lor1 and lva1; greetings-lor1 evacuated, hello-lva1 failed out by hand. */
function inputs(overrides: Partial<FabricTableInputs> = {}): FabricTableInputs {
  return {
    services: ['greetings', 'hello'],
    clusters: [entry('greetings-lor1', 3, window({ evacuation: 'lor1', requestId: EVACUATION_ID })), entry('greetings-lva1', 3), entry('hello-lor1', 1), entry('hello-lva1', 2, window()), entry('stray', 1)],
    maps: [],
    evacuations: [node()],
    rates: undefined,
    describe: (cluster, properties) => describeFailout(cluster, properties, NOW),
    now: NOW,
    ...overrides,
  };
}

describe('the fabric table', () => {
  it('places each service cluster in its fabric with its hosts and state, evacuated apart from failed out', () => {
    // Act
    const table = buildFabricTable(inputs());

    // Assess
    expect(table.fabrics.map((f) => [f.name, f.clusters, f.hosts, f.movedOut])).toEqual([
      ['lor1', 2, 4, 1],
      ['lva1', 2, 5, 1],
    ]);
    expect(table.services.map((row) => [row.service, row.cells.map((cells) => cells.map((c) => `${c.cluster}:${c.state}`))])).toEqual([
      ['greetings', [['greetings-lor1:evacuated'], ['greetings-lva1:serving']]],
      ['hello', [['hello-lor1:serving'], ['hello-lva1:failed-out']]],
    ]);
    expect(table.unassigned).toEqual(['stray']);
  });

  it("shares each service's traffic by the request rates of its clusters when there are rates", () => {
    // Act
    const table = buildFabricTable(inputs({ rates: { byCluster: new Map([['greetings-lva1', 30], ['greetings-lor1', 10], ['hello-lor1', 5]]), source: "the console's last scrape of 1 endpoint" } }));

    // Assess
    expect(table.services.map((row) => [row.service, row.shareBy, row.shares])).toEqual([
      ['greetings', 'rates', [0.25, 0.75]],
      ['hello', 'rates', [1, 0]],
    ]);
    expect(table.ratesSource).toBe("the console's last scrape of 1 endpoint");
  });

  it('shares by hosts when there are no rates, and the page says so', () => {
    // Act
    const table = buildFabricTable(inputs());
    const page = renderFabrics(table, NOW, true).text;

    // Assess
    expect(table.services[0]).toEqual(expect.objectContaining({ shareBy: 'hosts', shares: [0.5, 0.5] }));
    expect(page).toContain('data-share-source="hosts"');
    expect(page).toContain('No request rates');
    expect(page).toContain('50% of the traffic (by hosts)');
  });

  it('describes the open evacuation of a fabric and leaves the others without one', () => {
    // Act
    const table = buildFabricTable(inputs());

    // Assess
    expect(table.fabrics[0]!.evacuation).toEqual(expect.objectContaining({ requestId: EVACUATION_ID, phase: 'out', stage: { number: 1, of: 2, name: 'frontend' }, nextStageAt: new Date(NOW + 5 * MINUTE).toISOString() }));
    expect(table.fabrics[1]!.evacuation).toBeUndefined();
  });

  it('marks a cluster malformed, not loading, when every read of it failed (a node the console may not read)', () => {
    // Act
    const table = buildFabricTable(inputs({ clusters: [...inputs().clusters.filter((c) => c.name !== 'greetings-lva1'), { name: 'greetings-lva1', hosts: 3, failout: undefined, problem: 'the node cannot be read: no READ permission for this session' }] }));

    // Assess
    const lva1 = table.fabrics.findIndex((f) => f.name === 'lva1');
    expect(table.services.find((r) => r.service === 'greetings')?.cells[lva1]).toEqual([{ cluster: 'greetings-lva1', hosts: 3, state: 'malformed' }]);
  });

  it('keeps an ended evacuation as the last one, not an open one', () => {
    // Act
    const table = buildFabricTable(inputs({ evacuations: [node({ status: 'restored', endedAt: NOW - MINUTE, endedBy: 'oncall' })] }));

    // Assess
    expect(table.fabrics[0]!.evacuation).toBeUndefined();
    expect(table.fabrics[0]!.lastEvacuation).toEqual(expect.objectContaining({ status: 'restored', open: false }));
  });
});

describe("what a fabric request's judgement is about", () => {
  const fingerprint = (overrides: Partial<FabricTableInputs>, action: 'evacuate' | 'restoreFabric' = 'evacuate'): string => {
    const all = inputs(overrides);
    return fabricFingerprint(all, buildFabricTable(all), { action, fabric: 'lor1' });
  };

  it('changes for an evacuation when a receiving cluster is failed out, not when hosts come and go', () => {
    // Prepare
    const before = fingerprint({});

    // Act
    const failedOut = fingerprint({ clusters: [...inputs().clusters.filter((c) => c.name !== 'greetings-lva1'), entry('greetings-lva1', 3, window())] });
    const moreHosts = fingerprint({ clusters: [...inputs().clusters.filter((c) => c.name !== 'greetings-lva1'), entry('greetings-lva1', 9)] });

    // Assess
    expect(failedOut).not.toBe(before);
    expect(moreHosts).toBe(before);
  });

  it('changes for a restore only with the evacuation node', () => {
    // Act
    const before = fingerprint({}, 'restoreFabric');
    const otherFailout = fingerprint({ clusters: [entry('greetings-lva1', 3, window())] }, 'restoreFabric');
    const restored = fingerprint({ evacuations: [node({ status: 'restored' })] }, 'restoreFabric');

    // Assess
    expect(otherFailout).toBe(before);
    expect(restored).not.toBe(before);
  });

  it('changes for a restore when the node stops decoding, though its last good read is still shown', () => {
    // Act
    const before = fingerprint({}, 'restoreFabric');
    const unreadable = fingerprint({ unreadableEvacuations: [{ fabric: 'lor1', problem: 'evacuation node is not JSON', lastGoodShown: true }] }, 'restoreFabric');

    // Assess
    expect(unreadable).not.toBe(before);
  });
});

describe('the fabric section', () => {
  it('shows the evacuation: request id, stage, the next stage and the end as absolute times counted down, and Restore instead of Evacuate', () => {
    // Act
    const text = renderFabrics(buildFabricTable(inputs()), NOW, true).text;
    const lor1 = text.slice(text.indexOf('<article class="card fabric evacuating" data-fabric="lor1"'), text.indexOf('<article class="card fabric" data-fabric="lva1"'));

    // Assess
    expect(lor1).toContain(`data-request="${EVACUATION_ID}"`);
    expect(lor1).toContain('stage 1 of 2 (frontend), out');
    expect(lor1).toContain(`next stage starts <time datetime="2026-12-01T12:05:00.000Z" data-clock="${NOW + 5 * MINUTE}">2026-12-01T12:05:00Z</time> (in <time datetime="2026-12-01T12:05:00.000Z" data-until="${NOW + 5 * MINUTE}">5m</time>)`);
    expect(lor1).toContain(`ends <time datetime="2026-12-01T13:30:00.000Z" data-clock="${NOW + 90 * MINUTE}">2026-12-01T13:30:00Z</time> (<time datetime="2026-12-01T13:30:00.000Z" data-until="${NOW + 90 * MINUTE}">1h 30m</time> left)`);
    expect(lor1).toContain('data-fabric-act="restoreFabric" data-fabric="lor1"');
    expect(lor1).not.toContain('data-fabric-act="evacuate"');
    expect(text).toContain('data-fabric-act="evacuate" data-fabric="lva1"');
    expect(text).toContain('<span class="badge" data-state="evacuated">EVACUATED</span>');
  });

  it('says of a restored evacuation whose stages are still coming home when the last is back, and offers Evacuate', () => {
    // Arrange: restored 10 s ago; its first stage comes home a restore gap (1 minute) after the restore
    const restored = node({ status: 'restored', endedAt: NOW - 10_000, endedBy: 'oncall' });

    // Act
    const text = renderFabrics(buildFabricTable(inputs({ evacuations: [restored] })), NOW, true).text;
    const lor1 = text.slice(text.indexOf('<article class="card fabric" data-fabric="lor1"'), text.indexOf('<article class="card fabric" data-fabric="lva1"'));

    // Assess
    expect(lor1).toContain('class="last-evacuation"');
    expect(lor1).toContain(`<span class="returning">Its stages still coming home, the last stage first: all back <time datetime="2026-12-01T12:00:50.000Z" data-clock="${NOW + 50_000}">2026-12-01T12:00:50Z</time> (in <time datetime="2026-12-01T12:00:50.000Z" data-until="${NOW + 50_000}">50s</time>)`);
    expect(lor1).toContain('data-fabric-act="evacuate" data-fabric="lor1"');
  });

  it('renders hostile cluster, fabric and map names from ZooKeeper as text', () => {
    // Prepare: a cluster whose rule-derived fabric is hostile, a map with a hostile name naming a hostile
    // cluster D2 does not have, and a map that does not decode with the problem quoting it
    const table = buildFabricTable(
      inputs({
        clusters: [entry(`greetings-${HOSTILE}`, 1), entry('greetings-lva1', 2)],
        maps: [{ fabric: `m${HOSTILE}`, map: { fabric: `m${HOSTILE}`, clusters: [{ cluster: `c${HOSTILE}`, service: 'greetings' }] } }, { fabric: `broken${HOSTILE}`, problem: `bad map <script>alert(1)</script>` }],
        evacuations: [],
      }),
    );

    // Act
    const text = renderFabrics(table, NOW, true).text;

    // Assess
    expect(table.fabrics.map((f) => f.name)).toEqual([HOSTILE, 'lva1', `m${HOSTILE}`]);
    expect(text).not.toMatch(/<b>|<i>|<script>/);
    expect(text).toContain('data-fabric="&quot;&gt;&lt;b&gt;x&lt;i&gt;&#39;&amp;"');
    expect(text).toContain('<span class="cluster-name">greetings-&quot;&gt;&lt;b&gt;x&lt;i&gt;&#39;&amp;</span>');
    expect(text).toContain('names <span class="cluster-name">c&quot;&gt;&lt;b&gt;x&lt;i&gt;&#39;&amp;</span>, which D2 does not have');
    expect(text).toContain('bad map &lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('names an evacuation node that does not decode, as text, saying whether its last good read is shown', () => {
    // Prepare: lor1's node unreadable since its last good read (kept), and one never read well
    const table = buildFabricTable(
      inputs({
        unreadableEvacuations: [
          { fabric: 'lor1', problem: 'evacuation node is malformed: <script>alert(1)</script>', lastGoodShown: true },
          { fabric: `x${HOSTILE}`, problem: 'evacuation node is not JSON', lastGoodShown: false },
        ],
      }),
    );

    // Act
    const text = renderFabrics(table, NOW, true).text;

    // Assess
    expect(table.unreadableEvacuations).toHaveLength(2);
    expect(text).not.toMatch(/<script>|<b>/);
    expect(text).toMatch(/The evacuation node of fabric <span class="fabric-name">lor1<\/span> does not decode: evacuation node is malformed: &lt;script&gt;alert\(1\)&lt;\/script&gt;\. Shown as last read; the worker treats it as open/);
    expect(text).toMatch(/The evacuation node of fabric <span class="fabric-name">x&quot;&gt;&lt;b&gt;x&lt;i&gt;&#39;&amp;<\/span> does not decode: evacuation node is not JSON\. The worker treats it as open/);
    // The last good read of lor1 still shows its open evacuation on its card.
    expect(table.fabrics.find((f) => f.name === 'lor1')?.evacuation?.requestId).toBe(EVACUATION_ID);
  });

  it('says it waits for ZooKeeper before the first read, and what to do without fabrics', () => {
    // Act
    const waiting = renderFabrics(buildFabricTable(inputs({ services: [], clusters: [], evacuations: [] })), NOW, false).text;
    const none = renderFabrics(buildFabricTable(inputs({ services: [], clusters: [], evacuations: [] })), NOW, true).text;

    // Assess
    expect(waiting).toContain('waiting for ZooKeeper');
    expect(none).toContain('No fabrics');
  });

  it('escapes the form defaults: the fabric names and the requester', () => {
    // Act
    const text = renderFabricForm([HOSTILE], `me${HOSTILE}`).text;

    // Assess
    expect(text).not.toMatch(/<b>|<i>/);
    expect(text).toContain('<option value="&quot;&gt;&lt;b&gt;x&lt;i&gt;&#39;&amp;"></option>');
  });
});

describe("a fabric check's answer for the page", () => {
  it('gives the plan as rows: stages, cluster → peers, the load on each receiving cluster against the limit', () => {
    // Act
    const rows = planRows(plan()) as { summary: string; stages: { label: string }[]; clusters: { cluster: string; peers: unknown[] }[]; receivers: { cluster: string; after: number; over: boolean }[]; limit: number };

    // Assess
    expect(rows.summary).toBe('2 clusters of 2 services in 2 stages, to every other fabric, by capacity (peers weighted by their hosts)');
    expect(rows.stages.map((s) => s.label)).toEqual(['1 (frontend)', '2 ((rest))']);
    expect(rows.clusters[0]).toEqual({ cluster: 'greetings-lor1', service: 'greetings', stage: '1 (frontend)', hosts: 3, peers: [{ cluster: 'greetings-lva1', weight: 3 }] });
    expect(rows.receivers).toEqual([expect.objectContaining({ cluster: 'greetings-lva1', after: 2.5, over: true })]);
    expect(rows.limit).toBe(2);
  });

  it('shows control and bidi characters of names as visible escapes, and keeps the body on the server', () => {
    // Prepare
    const body = { version: 1 as const, requestId: 'r-1', action: 'evacuate' as const, fabric: 'lor1\u202E', requestedBy: 'me', force: false };
    const hostilePlan = plan({ clusters: [{ cluster: 'greetings-lor1\u202E', service: 'greetings\u0000', stage: 0, peers: [{ cluster: 'x\u001b[2J', weight: 1 }], hosts: 1 }] });

    // Act
    const answer = fabricAnswer({ kind: 'ready', body, judged: true, judgement: 'plan\u202E\nline 2', plan: hostilePlan, notes: [] });

    // Assess
    expect(answer).toEqual(expect.objectContaining({ kind: 'ready', requestId: 'r-1', fabric: 'lor1\\u202e', judgement: 'plan\\u202e\nline 2' }));
    // eslint-disable-next-line no-control-regex
    expect(JSON.stringify(answer)).not.toMatch(/[\u0000\u001b\u202e]/);
    expect(answer).not.toHaveProperty('body');
  });
});
