import fc from 'fast-check';
import { deriveFabrics, fabricNameProblem, targetsOf, type FabricInputs, type FabricMap } from '../../../lib/fabrics';

// Properties of deriveFabrics over generated D2 trees: services × fabrics with the rule's names, names
// that follow no rule, services that prefix one another (`a` and `a-b`), and maps that name existing,
// missing and already-named clusters.

const word = fc.constantFrom('a', 'b', 'ab', 'lor1', 'lva1', 'x-y', 'a-b', 'b-c');

/** D2 names and maps, with enough overlap between them that prefixes, maps and clashes happen. */
const inputs: fc.Arbitrary<FabricInputs> = fc
  .record({
    services: fc.uniqueArray(word, { maxLength: 5 }),
    fabrics: fc.uniqueArray(word, { maxLength: 4 }),
    extra: fc.array(fc.oneof(word, fc.string({ maxLength: 6 })), { maxLength: 4 }),
  })
  .chain(({ services, fabrics, extra }) => {
    const ruled = services.flatMap((s) => fabrics.map((f) => `${s}-${f}`));
    const clusters = [...ruled, ...extra];
    const named = fc.oneof(fc.constantFrom(...clusters, 'ghost'), word);
    const map: fc.Arbitrary<FabricMap> = fc.record({
      fabric: word,
      clusters: fc.uniqueArray(fc.record({ cluster: named, service: word, tier: fc.option(fc.constantFrom('frontend', 'storage'), { nil: undefined }) }), { maxLength: 4, selector: (e) => e.cluster }),
    });
    return fc.record({
      services: fc.constant(services),
      clusters: fc.shuffledSubarray(clusters, { minLength: clusters.length }).map((c) => [...c, ...c.slice(0, 1)]),
      maps: fc.uniqueArray(map, { maxLength: 3, selector: (m) => m.fabric }),
    });
  });

/** The fabric each input cluster ends in (undefined: unassigned), and how often it is listed. */
function placements(inputs: FabricInputs): Map<string, string[]> {
  const derived = deriveFabrics(inputs);
  const seen = new Map<string, string[]>();
  for (const fabric of derived.fabrics) for (const m of fabric.clusters) seen.set(m.cluster, [...(seen.get(m.cluster) ?? []), fabric.name]);
  for (const cluster of derived.unassigned) seen.set(cluster, [...(seen.get(cluster) ?? []), '(unassigned)']);
  return seen;
}

describe('deriveFabrics properties', () => {
  it('lists every cluster exactly once, in a fabric or unassigned, and nothing else', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const seen = placements(given);
        expect([...seen.keys()].sort()).toEqual([...new Set(given.clusters)].sort());
        for (const [, where] of seen) expect(where).toHaveLength(1);
      }),
      { numRuns: 500 },
    );
  });

  it("never offers a target in the cluster's own fabric, nor the cluster itself; targets serve the same service", () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const { fabrics } = deriveFabrics(given);
        for (const fabric of fabrics) {
          for (const member of fabric.clusters) {
            const targets = targetsOf(fabrics, member.cluster);
            expect(targets.filter((t) => t.fabric === fabric.name || t.cluster === member.cluster)).toEqual([]);
            expect(targets.every((t) => t.service === member.service)).toBe(true);
            // Every other fabric's cluster of the service is offered.
            const expected = fabrics.filter((f) => f.name !== fabric.name).flatMap((f) => f.clusters.filter((c) => c.service === member.service).map((c) => c.cluster));
            expect(targets.map((t) => t.cluster).sort()).toEqual(expected.sort());
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('lets a map win over the rule for every cluster it names (the first map by fabric name when several do)', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const derived = deriveFabrics(given);
        const present = new Set(given.clusters);
        const firstMap = new Map<string, { fabric: string; service: string }>();
        for (const map of [...given.maps].sort((a, b) => (a.fabric < b.fabric ? -1 : 1))) {
          for (const e of map.clusters) if (present.has(e.cluster) && !firstMap.has(e.cluster)) firstMap.set(e.cluster, { fabric: map.fabric, service: e.service });
        }
        for (const [cluster, { fabric, service }] of firstMap) {
          const member = derived.fabrics.find((f) => f.name === fabric)?.clusters.find((c) => c.cluster === cluster);
          expect(member).toMatchObject({ cluster, service, source: 'map' });
        }
        const mappedMembers = derived.fabrics.flatMap((f) => f.clusters.filter((c) => c.source === 'map'));
        expect(mappedMembers.length).toBe(firstMap.size);
      }),
      { numRuns: 500 },
    );
  });

  it('places by the rule only `<service>-<fabric>` of a known service, with the longest such service', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const derived = deriveFabrics(given);
        for (const fabric of derived.fabrics) {
          for (const m of fabric.clusters.filter((c) => c.source === 'rule')) {
            expect(m.cluster).toBe(`${m.service}-${fabric.name}`);
            expect(given.services).toContain(m.service);
            const longer = given.services.filter((s) => s.length > m.service.length && m.cluster.startsWith(`${s}-`) && m.cluster.length > s.length + 1);
            expect(longer).toEqual([]);
          }
        }
        for (const cluster of derived.unassigned) {
          expect(given.services.filter((s) => cluster.startsWith(`${s}-`) && fabricNameProblem(cluster.slice(s.length + 1)) === undefined)).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('does not depend on the order of its inputs', () => {
    fc.assert(
      fc.property(
        inputs.chain((given) =>
          fc.record({ given: fc.constant(given), services: fc.shuffledSubarray([...given.services], { minLength: given.services.length }), clusters: fc.shuffledSubarray([...given.clusters], { minLength: given.clusters.length }), maps: fc.shuffledSubarray([...given.maps], { minLength: given.maps.length }) }),
        ),
        ({ given, services, clusters, maps }) => {
          expect(deriveFabrics({ services, clusters, maps })).toEqual(deriveFabrics(given));
        },
      ),
      { numRuns: 300 },
    );
  });
});
