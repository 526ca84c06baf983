import fc from 'fast-check';
import { parseClusterProperties } from '../../../lib/d2/codecs/cluster';
import { parseServiceProperties } from '../../../lib/d2/codecs/service';
import { parseUriProperties } from '../../../lib/d2/codecs/uri';
import { D2Error, type D2Entity } from '../../../lib/d2/errors';
import { QUICKSTART } from './fixtures';

const PARSERS: ReadonlyArray<[D2Entity, (input: unknown) => unknown, string]> = [
  ['cluster', parseClusterProperties, QUICKSTART.rangeCluster],
  ['service', parseServiceProperties, QUICKSTART.service],
  ['uri', parseUriProperties, QUICKSTART.partitionedUri],
];

/** Runs `parse` and checks that it either succeeds or throws a malformed D2Error for `entity`. */
function expectOnlyMalformed(entity: D2Entity, parse: (input: unknown) => unknown, input: unknown): void {
  try {
    parse(input);
  } catch (e) {
    expect(e).toBeInstanceOf(D2Error);
    expect(e).toMatchObject({ kind: 'malformed', entity });
    expect(typeof (e as D2Error).field).toBe('string');
  }
}

describe.each(PARSERS)('%s parser input forms', (entity, parse, document) => {
  it('reads UTF-8 bytes, a Uint8Array view, text and a parsed object alike', () => {
    // Prepare
    const bytes = Buffer.from(`xx${document}`, 'utf8');
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset + 2, bytes.byteLength - 2);

    // Act
    const fromText = parse(document);

    // Assess
    expect(parse(bytes.subarray(2))).toEqual(fromText);
    expect(parse(view)).toEqual(fromText);
    expect(parse(JSON.parse(document))).toEqual(fromText);
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a number', 5],
    ['an array', []],
    ['a Map', new Map()],
    ['empty bytes', Buffer.alloc(0)],
    ['invalid UTF-8 bytes', Buffer.from([0xff, 0xfe, 0x7b])],
  ])('rejects %s as a malformed document', (_name, input) => {
    // Act + Assess
    expect(() => parse(input)).toThrow(expect.objectContaining({ kind: 'malformed', entity, field: '' }));
  });

  it('throws nothing but malformed D2Errors for random text, bytes and values', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.uint8Array(), fc.jsonValue(), fc.anything()), (input) => {
        expectOnlyMalformed(entity, parse, input);
      }),
    );
  });

  it('throws nothing but malformed D2Errors when any key of a valid document gets a random value', () => {
    const base = JSON.parse(document) as Record<string, unknown>;
    const keys = Object.keys(base);
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 3 }), fc.boolean(), (key, value, asText) => {
        const mutated = { ...base, [key]: value };
        expectOnlyMalformed(entity, parse, asText ? JSON.stringify(mutated) : mutated);
      }),
    );
  });
});
