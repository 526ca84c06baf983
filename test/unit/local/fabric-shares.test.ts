/**
 * Issue 23, the local stack's per-fabric shares: each service's requests counted by the fabric their
 * cluster is in (the fabric rule over the cluster's name), and the evacuation step's verdict over them.
 */
import { fabricOfCluster, fabricPercent, judgeEvacuatedShares, sharesByFabric, type FabricSample } from '../../../lib/local/fabric-shares';
import { fabricLine } from '../../../lib/local/view';

const TARGETS = [
  { fabric: 'lva1', weight: 2 },
  { fabric: 'ltx1', weight: 1 },
];

/** `count` ok samples of `service` landing on `cluster`. */
const on = (service: string, cluster: string | undefined, count: number, ok = true): FabricSample[] => Array.from({ length: count }, () => ({ service, cluster, ok }));

describe('fabricOfCluster', () => {
  it.each([
    ['greetings', 'greetings-lor1', 'lor1'],
    ['hello', 'hello-ltx1', 'ltx1'],
    ['greetings', 'hello-lor1', undefined],
    ['greetings', 'greetings', undefined],
    ['greetings-eu', 'greetings-eu-lva1', 'lva1'],
  ])('places %s cluster %s in fabric %s by the rule', (service, cluster, fabric) => {
    expect(fabricOfCluster(service, cluster)).toBe(fabric);
  });
});

describe('sharesByFabric', () => {
  it("counts each service's requests by fabric, in the order of the services asked for", () => {
    // Prepare
    const samples = [...on('hello', 'hello-lor1', 4), ...on('greetings', 'greetings-lva1', 2), ...on('greetings', 'greetings-ltx1', 1), ...on('greetings', 'greetings-lor1', 1)];

    // Act
    const shares = sharesByFabric(samples, ['greetings', 'hello']);

    // Assess
    expect(shares.map((s) => ({ service: s.service, total: s.total, byFabric: Object.fromEntries(s.byFabric) }))).toEqual([
      { service: 'greetings', total: 4, byFabric: { lva1: 2, ltx1: 1, lor1: 1 } },
      { service: 'hello', total: 4, byFabric: { lor1: 4 } },
    ]);
    expect(fabricPercent(shares[0]!, 'lva1')).toBe(50);
    expect(fabricPercent(shares[1]!, 'lor1')).toBe(100);
  });

  it('leaves out other services, counts errors and requests that reached no cluster, and gives 0 % with no request', () => {
    // Prepare
    const samples = [...on('other', 'other-lor1', 3), ...on('greetings', undefined, 1, false), ...on('greetings', 'greetings-lor1', 2, false), ...on('greetings', 'greetings-lor1', 1)];

    // Act
    const [greetings, hello] = sharesByFabric(samples, ['greetings', 'hello']);

    // Assess
    expect({ total: greetings!.total, errors: greetings!.errors, unrouted: greetings!.unrouted, lor1: greetings!.byFabric.get('lor1') }).toEqual({ total: 4, errors: 3, unrouted: 1, lor1: 3 });
    expect({ total: hello!.total, lor1: fabricPercent(hello!, 'lor1') }).toEqual({ total: 0, lor1: 0 });
  });

  it('counts a cluster the rule places in no fabric under its own name', () => {
    const [greetings] = sharesByFabric(on('greetings', 'legacy-greeter-a', 2), ['greetings']);
    expect(Object.fromEntries(greetings!.byFabric)).toEqual({ 'legacy-greeter-a': 2 });
  });
});

describe('judgeEvacuatedShares', () => {
  const judge = (samples: FabricSample[], tolerancePct = 5) => judgeEvacuatedShares(sharesByFabric(samples, ['greetings'])[0]!, 'lor1', TARGETS, tolerancePct);

  it('passes with nothing left in the evacuated fabric and the rest split by the weights', () => {
    // Act
    const verdict = judge([...on('greetings', 'greetings-lva1', 100), ...on('greetings', 'greetings-ltx1', 50)]);

    // Assess
    expect(verdict).toEqual({
      service: 'greetings',
      total: 150,
      leftPct: 0,
      split: [
        { fabric: 'lva1', pct: expect.closeTo(66.67, 1), plannedPct: expect.closeTo(66.67, 1) },
        { fabric: 'ltx1', pct: expect.closeTo(33.33, 1), plannedPct: expect.closeTo(33.33, 1) },
      ],
      elsewherePct: 0,
      errors: 0,
      passed: true,
    });
  });

  it.each([
    ['one request left in lor1', [...on('greetings', 'greetings-lva1', 100), ...on('greetings', 'greetings-ltx1', 50), ...on('greetings', 'greetings-lor1', 1)]],
    ['a split off by more than the tolerance (60:40)', [...on('greetings', 'greetings-lva1', 60), ...on('greetings', 'greetings-ltx1', 40)]],
    ['a failed request', [...on('greetings', 'greetings-lva1', 100), ...on('greetings', 'greetings-ltx1', 49), ...on('greetings', 'greetings-ltx1', 1, false)]],
    ['a request that reached no cluster', [...on('greetings', 'greetings-lva1', 100), ...on('greetings', 'greetings-ltx1', 50), ...on('greetings', undefined, 1, false)]],
    ['a request in a fabric that is no target', [...on('greetings', 'greetings-lva1', 100), ...on('greetings', 'greetings-ltx1', 50), ...on('greetings', 'greetings-lsg1', 1)]],
    ['no request at all', []],
  ])('fails with %s', (_what, samples) => {
    expect(judge(samples).passed).toBe(false);
  });

  it('accepts a split within the tolerance and reports how far off it is', () => {
    // 62:38 is 4.7 points off 2:1
    const verdict = judge([...on('greetings', 'greetings-lva1', 62), ...on('greetings', 'greetings-ltx1', 38)]);
    expect({ passed: verdict.passed, lva1: verdict.split[0]!.pct }).toEqual({ passed: true, lva1: 62 });
    expect(judge([...on('greetings', 'greetings-lva1', 62), ...on('greetings', 'greetings-ltx1', 38)], 4).passed).toBe(false);
  });
});

describe("the view's fabric line", () => {
  it("shows each service's share per fabric, fabrics in the order of the listed clusters", () => {
    // Prepare
    const clusters = ['greetings', 'hello'].flatMap((service) => ['lor1', 'lva1', 'ltx1'].map((f) => ({ name: `${service}-${f}`, service, hosts: 3, failout: undefined })));
    const samples = [...on('greetings', 'greetings-lva1', 2), ...on('greetings', 'greetings-ltx1', 1), ...on('hello', 'hello-lor1', 3)].map((s, i) => ({ ...s, at: i, host: undefined, latencyMs: 1 }));

    // Act
    const line = fabricLine(samples, ['greetings', 'hello'], clusters);

    // Assess
    expect(line).toBe("  fabrics (share of each service's traffic): lor1 greetings 0.0% hello 100.0% · lva1 greetings 66.7% hello 0.0% · ltx1 greetings 33.3% hello 0.0%");
  });
});
