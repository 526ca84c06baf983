import { parseJsonText } from '../../../lib/d2/codecs/json-text';
import { JavaDouble, formatJavaDouble, writeJson } from '../../../lib/d2/codecs/json-writer';
import { catchD2Error } from './fixtures';

describe('formatJavaDouble', () => {
  it.each([
    [1, '1.0'],
    [0.3, '0.3'],
    [1e-4, '1.0E-4'],
    [12345678, '1.2345678E7'],
    [0, '0.0'],
    [-0, '-0.0'],
    [2, '2.0'],
    [-1.5, '-1.5'],
    [0.001, '0.001'],
    [0.0009, '9.0E-4'],
    [100, '100.0'],
    [1234567.5, '1234567.5'],
    [9999999, '9999999.0'],
    [1e7, '1.0E7'],
    [1.5e300, '1.5E300'],
    [5e-324, '4.9E-324'],
    [0.1 + 0.2, '0.30000000000000004'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
  ])('prints %s as Double.toString does: %s', (value, expected) => {
    // Act + Assess
    expect(formatJavaDouble(value)).toBe(expected);
  });

  it('prints text that reads back as the same double', () => {
    // Prepare
    const values = [0.1, 1 / 3, 2 ** 53, 1e21, 123.456e-10, Number.MIN_VALUE, Number.MAX_VALUE];

    // Act + Assess
    for (const value of values) {
      expect(Number(formatJavaDouble(value))).toBe(value);
    }
  });
});

describe('writeJson', () => {
  it('writes Maps in insertion order, compact, escaping only what JSON requires', () => {
    // Prepare
    const tree = new Map<string, unknown>([
      ['z', 'a/b "q" \\ é\n'],
      ['a', [1, true, null]],
      ['w', new JavaDouble(3)],
    ]);

    // Act
    const text = writeJson(tree, 'cluster');

    // Assess
    expect(text).toBe('{"z":"a/b \\"q\\" \\\\ é\\n","a":[1,true,null],"w":3.0}');
  });

  it('writes integers of opaque values without a fraction unless they were read as decimals', () => {
    // Prepare
    const parsed = parseJsonText('{"read":1.0,"int":1,"list":[2.0,2]}') as Record<string, unknown>;
    const built = { fresh: 1, fraction: 0.25 };

    // Act
    const text = writeJson(new Map<string, unknown>([['parsed', parsed], ['built', built]]), 'service');

    // Assess
    expect(text).toBe('{"parsed":{"read":1.0,"int":1,"list":[2.0,2]},"built":{"fresh":1,"fraction":0.25}}');
  });

  it('leaves out undefined object members and keeps "__proto__" keys', () => {
    // Prepare
    const tree = JSON.parse('{"__proto__":1}') as Record<string, unknown>;
    tree.gone = undefined;

    // Act
    const text = writeJson(tree, 'uri');

    // Assess
    expect(text).toBe('{"__proto__":1}');
  });

  it.each<[string, unknown, string]>([
    ['NaN in a Map', new Map([['a', Number.NaN]]), 'a'],
    ['an infinite JavaDouble', new Map([['m', { w: new JavaDouble(Number.NEGATIVE_INFINITY) }]]), 'm["w"]'],
    ['undefined in a list', new Map([['l', [1, undefined]]]), 'l[1]'],
    ['a function', { f: () => 0 }, '["f"]'],
    ['a bigint', [1n], '[0]'],
    ['a class instance', new Map([['d', new Date(0)]]), 'd'],
    ['a Map with a number key', new Map([[1, 'x']]), ''],
  ])('rejects %s as malformed, naming the path', (_name, tree, field) => {
    // Act
    const error = catchD2Error(() => writeJson(tree, 'cluster'));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'cluster', field });
  });

  it('rejects a cyclic tree instead of overflowing the stack', () => {
    // Prepare
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;

    // Act
    const error = catchD2Error(() => writeJson(cyclic, 'service'));

    // Assess
    expect(error.kind).toBe('malformed');
  });
});
