import { deriveFabrics, ruleMatch, targetsOf, type FabricMap } from '../../../lib/fabrics';

// The documented rule (docs/operators.md "Fabrics"): a cluster `<service>-<fabric>` of a service under
// /d2/services is in fabric `<fabric>`; the longest service name wins; clusters no service prefixes are
// unassigned; a map places the clusters it names, over the rule.

const SERVICES = ['greetings', 'hello'];
const CLUSTERS = ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1', 'hello-lor1', 'hello-lva1'];

describe('the naming rule', () => {
  it.each([
    ['greetings-lor1', ['greetings'], { service: 'greetings', fabric: 'lor1' }],
    ['greetings-eu-lor1', ['greetings', 'greetings-eu'], { service: 'greetings-eu', fabric: 'lor1' }],
    ['greetings-eu-lor1', ['greetings'], { service: 'greetings', fabric: 'eu-lor1' }],
    // The longest service whose rest is a fabric name: `greetings-lor1-` leaves an empty fabric, so `greetings` wins.
    ['greetings-lor1-', ['greetings', 'greetings-lor1'], { service: 'greetings', fabric: 'lor1-' }],
    ['greetings', ['greetings'], undefined],
    ['greetings-', ['greetings'], undefined],
    ['greetingslor1', ['greetings'], undefined],
    ['odd-cluster', ['greetings'], undefined],
    ['-lor1', ['', 'greetings'], undefined],
    ['greetings-..', ['greetings'], undefined],
    ['greetings-lor 1', ['greetings'], undefined],
  ])('%s with services %j → %j', (cluster, services, expected) => {
    // Act
    const match = ruleMatch(new Set(services), cluster);

    // Assess
    expect(match).toEqual(expected);
  });

  it('puts each service cluster in its fabric, sorted, with the services each fabric serves', () => {
    // Act
    const derived = deriveFabrics({ services: SERVICES, clusters: [...CLUSTERS, 'odd-cluster'], maps: [] });

    // Assess
    expect(derived.fabrics.map((f) => [f.name, f.clusters.map((c) => c.cluster), f.services])).toEqual([
      ['lor1', ['greetings-lor1', 'hello-lor1'], ['greetings', 'hello']],
      ['ltx1', ['greetings-ltx1'], ['greetings']],
      ['lva1', ['greetings-lva1', 'hello-lva1'], ['greetings', 'hello']],
    ]);
    expect(derived.fabrics[0]?.clusters[0]).toEqual({ cluster: 'greetings-lor1', service: 'greetings', source: 'rule' });
    expect(derived).toMatchObject({ unassigned: ['odd-cluster'], conflicts: [], missing: [] });
  });

  it('lists clusters that match no service as unassigned, never drops them', () => {
    // Act
    const derived = deriveFabrics({ services: [], clusters: ['b', 'a', 'greetings-lor1'], maps: [] });

    // Assess
    expect(derived).toEqual({ fabrics: [], unassigned: ['a', 'b', 'greetings-lor1'], conflicts: [], missing: [] });
  });

  it("gives a cluster's candidate targets: the same service's clusters in the other fabrics", () => {
    // Prepare
    const { fabrics } = deriveFabrics({ services: SERVICES, clusters: CLUSTERS, maps: [] });

    // Act
    const greetings = targetsOf(fabrics, 'greetings-lor1');
    const hello = targetsOf(fabrics, 'hello-lva1');
    const unknown = targetsOf(fabrics, 'odd-cluster');

    // Assess
    expect(greetings).toEqual([
      { cluster: 'greetings-ltx1', fabric: 'ltx1', service: 'greetings' },
      { cluster: 'greetings-lva1', fabric: 'lva1', service: 'greetings' },
    ]);
    expect(hello).toEqual([{ cluster: 'hello-lor1', fabric: 'lor1', service: 'hello' }]);
    expect(unknown).toEqual([]);
  });
});

describe('explicit maps', () => {
  const legacy: FabricMap = {
    fabric: 'lor1',
    clusters: [
      { cluster: 'legacy-greeter-a', service: 'greetings', tier: 'frontend' },
      { cluster: 'hello-lva1', service: 'hello' },
    ],
  };

  it('place the clusters they name, over the rule, and the rule places the rest', () => {
    // Act
    const derived = deriveFabrics({ services: SERVICES, clusters: [...CLUSTERS, 'legacy-greeter-a'], maps: [legacy] });

    // Assess
    const lor1 = derived.fabrics.find((f) => f.name === 'lor1');
    const lva1 = derived.fabrics.find((f) => f.name === 'lva1');
    expect(lor1?.clusters).toEqual([
      { cluster: 'greetings-lor1', service: 'greetings', source: 'rule' },
      { cluster: 'hello-lor1', service: 'hello', source: 'rule' },
      { cluster: 'hello-lva1', service: 'hello', source: 'map' },
      { cluster: 'legacy-greeter-a', service: 'greetings', tier: 'frontend', source: 'map' },
    ]);
    expect(lva1?.clusters.map((c) => c.cluster)).toEqual(['greetings-lva1']);
    expect(derived.unassigned).toEqual([]);
    expect(targetsOf(derived.fabrics, 'legacy-greeter-a').map((t) => t.cluster)).toEqual(['greetings-ltx1', 'greetings-lva1']);
  });

  it('report clusters D2 does not have, and still define their fabric', () => {
    // Act
    const derived = deriveFabrics({ services: SERVICES, clusters: CLUSTERS, maps: [{ fabric: 'dr9', clusters: [{ cluster: 'ghost', service: 'greetings' }] }] });

    // Assess
    expect(derived.missing).toEqual([{ fabric: 'dr9', cluster: 'ghost' }]);
    expect(derived.fabrics.find((f) => f.name === 'dr9')).toEqual({ name: 'dr9', clusters: [], services: [] });
  });

  it('keep a cluster several maps name in the first fabric by name, and report the clash', () => {
    // Prepare
    const maps: FabricMap[] = [
      { fabric: 'lva1', clusters: [{ cluster: 'legacy-greeter-a', service: 'greetings' }] },
      { fabric: 'lor1', clusters: [{ cluster: 'legacy-greeter-a', service: 'greetings' }] },
    ];

    // Act
    const derived = deriveFabrics({ services: SERVICES, clusters: [...CLUSTERS, 'legacy-greeter-a'], maps });

    // Assess
    expect(derived.conflicts).toEqual([{ cluster: 'legacy-greeter-a', fabrics: ['lor1', 'lva1'], kept: 'lor1' }]);
    expect(derived.fabrics.find((f) => f.name === 'lor1')?.clusters.map((c) => c.cluster)).toContain('legacy-greeter-a');
    expect(derived.fabrics.find((f) => f.name === 'lva1')?.clusters.map((c) => c.cluster)).not.toContain('legacy-greeter-a');
  });
});
