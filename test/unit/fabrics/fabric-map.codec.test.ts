import fc from 'fast-check';
import { DEFAULT_FABRICS_PATH, FabricError, MAX_FABRIC_MAP_BYTES, MAX_FABRIC_MAP_CLUSTERS, decodeFabricMap, encodeFabricMap, fabricMapPath, isFabricError, type FabricMap } from '../../../lib/fabrics';

// The fabric map node /failout/fabrics/<fabric>: one codec, zod-validated, bounded, hostile names refused.

const MAP: FabricMap = {
  fabric: 'lor1',
  clusters: [
    { cluster: 'legacy-greeter-a', service: 'greetings', tier: 'frontend' },
    { cluster: 'payments-east-7', service: 'payments' },
  ],
};

function nodeText(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ version: 1, fabric: 'lor1', clusters: MAP.clusters, ...overrides });
}

/** The FabricError `fn` throws (fails the test when it throws none or another error). */
function errorOf(fn: () => unknown): FabricError {
  try {
    fn();
  } catch (err) {
    if (isFabricError(err)) return err;
    throw err;
  }
  throw new Error('no error thrown');
}

describe('the fabric map codec', () => {
  it('round-trips a map through its node', () => {
    // Act
    const data = encodeFabricMap(MAP);

    // Assess
    expect(JSON.parse(data.toString('utf8'))).toEqual({ version: 1, ...MAP });
    expect(decodeFabricMap('lor1', data)).toEqual(MAP);
    expect(decodeFabricMap('lor1', data.toString('utf8'))).toEqual(MAP);
  });

  it('ignores keys it does not know', () => {
    expect(decodeFabricMap('lor1', nodeText({ owner: 'team-x' }))).toEqual(MAP);
  });

  it('places the node under the configured parent', () => {
    expect(fabricMapPath(undefined, 'lor1')).toBe(`${DEFAULT_FABRICS_PATH}/lor1`);
    expect(fabricMapPath('/t-1/fabrics/', 'lor1')).toBe('/t-1/fabrics/lor1');
  });

  it.each([
    ['not JSON', '{"version":1,', 'malformed', /is not JSON/],
    ['another version', nodeText({ version: 2 }), 'malformed', /version/],
    ['clusters not a list', nodeText({ clusters: { a: 1 } }), 'malformed', /clusters/],
    ['an entry without service', nodeText({ clusters: [{ cluster: 'a' }] }), 'malformed', /clusters\.0\.service/],
    ['another fabric than its node', nodeText({ fabric: 'lva1' }), 'malformed', /names fabric "lva1": a map's fabric is its node's name/],
    ['a cluster named twice', nodeText({ clusters: [{ cluster: 'a', service: 's' }, { cluster: 'a', service: 't' }] }), 'malformed', /"a" is named twice/],
    ['the JSON null', 'null', 'malformed', /\(node\)/],
  ])('refuses %s as malformed', (_what, text, kind, message) => {
    // Act
    const err = errorOf(() => decodeFabricMap('lor1', text));

    // Assess
    expect(err.kind).toBe(kind);
    expect(err.message).toMatch(message);
  });

  it.each([
    ['a slash', 'a/b'],
    ['a parent step', '..'],
    ['a control character', 'lor\u0001'],
    ['an escape sequence', '\u001b[31mred'],
    ['a C1 control', 'x\u009by'],
    ['a space', 'lor 1'],
    ['non-ASCII', 'lör1'],
    ['the empty name', ''],
    ['a name of 129 characters', 'x'.repeat(129)],
  ])('refuses %s in a fabric, cluster or service name', (_what, name) => {
    // Act
    const asNode = errorOf(() => decodeFabricMap(name, nodeText({ fabric: name })));
    const asCluster = errorOf(() => decodeFabricMap('lor1', nodeText({ clusters: [{ cluster: name, service: 'greetings' }] })));
    const asService = errorOf(() => decodeFabricMap('lor1', nodeText({ clusters: [{ cluster: 'greetings-x', service: name }] })));
    const encoded = errorOf(() => encodeFabricMap({ fabric: name, clusters: [] }));

    // Assess
    expect([asNode.kind, asCluster.kind, asService.kind, encoded.kind]).toEqual(['badName', 'badName', 'badName', 'badName']);
    expect(asCluster.message).toContain('clusters[0].cluster');
    expect(asService.message).toContain('clusters[0].service');
    expect(() => fabricMapPath(undefined, name)).toThrow(FabricError);
  });

  it.each([['front,end'], ['-front'], ['x'.repeat(65)], ['tier one']])('refuses the tier %j (tiers will be listed comma-separated)', (tier) => {
    expect(errorOf(() => decodeFabricMap('lor1', nodeText({ clusters: [{ cluster: 'a', service: 's', tier }] }))).kind).toBe('badName');
  });

  it('quotes at most 80 characters of a hostile name and the first 5 problems', () => {
    // Prepare
    const clusters = Array.from({ length: 8 }, (_, i) => ({ cluster: `${'y'.repeat(120)}/${i}`, service: 's' }));

    // Act
    const err = errorOf(() => decodeFabricMap('lor1', nodeText({ clusters })));

    // Assess
    expect(err.message).toContain(`"${'y'.repeat(80)}…"`);
    expect(err.message).not.toContain('y'.repeat(81));
    expect(err.message).toMatch(/; and 3 more$/);
  });

  it(`refuses a node over ${MAX_FABRIC_MAP_BYTES} bytes before parsing it`, () => {
    // Prepare: valid JSON, but too long; and text that is not even JSON past the bound.
    const big = nodeText({ padding: 'x'.repeat(MAX_FABRIC_MAP_BYTES) });
    const garbage = Buffer.alloc(MAX_FABRIC_MAP_BYTES + 1, 0x7b);

    // Act
    const errors = [errorOf(() => decodeFabricMap('lor1', big)), errorOf(() => decodeFabricMap('lor1', garbage))];

    // Assess
    expect(errors.map((e) => e.kind)).toEqual(['tooLarge', 'tooLarge']);
  });

  it(`refuses more than ${MAX_FABRIC_MAP_CLUSTERS} clusters, and an encoding over the byte bound`, () => {
    // Prepare
    const many = Array.from({ length: MAX_FABRIC_MAP_CLUSTERS + 1 }, (_, i) => ({ cluster: `c${i}`, service: 's' }));
    const long = Array.from({ length: MAX_FABRIC_MAP_CLUSTERS }, (_, i) => ({ cluster: `${'c'.repeat(120)}${i}`, service: 's'.repeat(128) }));

    // Act
    const decoded = errorOf(() => decodeFabricMap('lor1', nodeText({ clusters: many })));
    const encoded = errorOf(() => encodeFabricMap({ fabric: 'lor1', clusters: long }));

    // Assess
    expect([decoded.kind, encoded.kind]).toEqual(['tooLarge', 'tooLarge']);
  });

  it('throws nothing but a FabricError for any text, and what it accepts round-trips (fuzz)', () => {
    const entry = fc.record({ cluster: fc.string({ maxLength: 12 }), service: fc.string({ maxLength: 12 }), tier: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }) });
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.record({ version: fc.constantFrom(1, 2, '1'), fabric: fc.constantFrom('lor1', 'lva1', ''), clusters: fc.array(entry, { maxLength: 5 }) }).map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('lor1', 'lva1'), fc.string({ maxLength: 10 })), text, (name, data) => {
        let map: FabricMap;
        try {
          map = decodeFabricMap(name, data);
        } catch (err) {
          expect(isFabricError(err)).toBe(true);
          return;
        }
        expect(decodeFabricMap(name, encodeFabricMap(map))).toEqual(map);
      }),
      { numRuns: 2000 },
    );
  });
});
