import fc from 'fast-check';
import { isDecimalLiteral, parseJsonText } from '../../../lib/d2/codecs/json-text';

describe('parseJsonText', () => {
  it.each([
    '{"a":[1,2.5,"x",true,false,null,{}]}',
    '  {"nested":{"deep":[[],[{}]]}}\n',
    '"\\u00e9\\n\\"\\\\/"',
    '-0.5e-3',
    '[]',
    '{"emoji":"😀","escaped":"\\ud83d\\ude00"}',
  ])('reads %s as JSON.parse does', (text) => {
    // Act + Assess
    expect(parseJsonText(text)).toEqual(JSON.parse(text));
  });

  it('records which numbers were written with a fraction or an exponent', () => {
    // Act
    const doc = parseJsonText('{"int":5,"dec":5.0,"exp":5e0,"list":[1,1.0],"neg":-2.50}') as {
      list: unknown[];
    };

    // Assess
    expect(isDecimalLiteral(doc, 'int')).toBe(false);
    expect(isDecimalLiteral(doc, 'dec')).toBe(true);
    expect(isDecimalLiteral(doc, 'exp')).toBe(true);
    expect(isDecimalLiteral(doc, 'neg')).toBe(true);
    expect(isDecimalLiteral(doc.list, 0)).toBe(false);
    expect(isDecimalLiteral(doc.list, 1)).toBe(true);
  });

  it('lets the last duplicate key win, literal kind included', () => {
    // Act
    const doc = parseJsonText('{"a":1.0,"a":2}') as Record<string, unknown>;

    // Assess
    expect(doc).toEqual({ a: 2 });
    expect(isDecimalLiteral(doc, 'a')).toBe(false);
  });

  it('keeps a "__proto__" key as an own property and leaves the prototype alone', () => {
    // Act
    const doc = parseJsonText('{"__proto__":{"polluted":true}}') as Record<string, unknown>;

    // Assess
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.keys(doc)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['empty text', ''],
    ['a bare word', 'nope'],
    ['a trailing comma', '[1,]'],
    ['a leading zero', '01'],
    ['a lone minus', '-'],
    ['a fraction without digits', '1.'],
    ['NaN', 'NaN'],
    ['a number out of double range', '1e400'],
    ['single quotes', "{'a':1}"],
    ['an unquoted key', '{a:1}'],
    ['an unterminated string', '"abc'],
    ['a raw newline in a string', '"a\nb"'],
    ['a bad escape', '"\\x"'],
    ['a comment', '{} // c'],
    ['two values', '{} {}'],
    ['a byte-order mark', '\ufeff{}'],
    ['a missing colon', '{"a" 1}'],
    ['nesting beyond 1000 levels', '['.repeat(1001) + ']'.repeat(1001)],
  ])('rejects %s with a SyntaxError', (_name, text) => {
    // Act + Assess
    expect(() => parseJsonText(text)).toThrow(SyntaxError);
  });

  it('rejects an integer too long for a double, in its own words', () => {
    // Act + Assess
    expect(() => parseJsonText(`[${'9'.repeat(400)}]`)).toThrow(/number out of range/);
  });

  it('says where and what is wrong in its own words, whichever reader saw the text first', () => {
    // Act + Assess: '[1,]' has no decimal, so JSON.parse sees it first and fails.
    expect(() => parseJsonText('[1,]')).toThrow(/^invalid JSON at offset 3: /);
  });

  it.each([
    ['quotes, dots and brackets inside strings', '{"a":"x\\"1.5[[{","b":2}', false],
    ['an escaped backslash before the closing quote', '{"a":"\\\\","b":1.5}', true],
    ['an exponent after a digit', '{"a":"e","b":2E3}', true],
    ['a key that looks like a number', '{"1.5":1,"b":2}', false],
  ])('tells decimal literals apart around %s', (_name, text, decimal) => {
    // Act
    const doc = parseJsonText(text) as Record<string, unknown>;

    // Assess
    expect(doc).toEqual(JSON.parse(text));
    expect(isDecimalLiteral(doc, 'b')).toBe(decimal);
  });

  it('reads any JSON text as JSON.parse does, and marks exactly the decimal literals', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        // Act
        const doc = parseJsonText(text);

        // Assess
        expect(doc).toEqual(JSON.parse(text));
        if (!/[.eE]/.test(text) && doc !== null && typeof doc === 'object') {
          for (const key of Object.keys(doc)) expect(isDecimalLiteral(doc, key)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('accepts nesting of exactly 1000 levels', () => {
    // Act + Assess
    expect(() => parseJsonText('['.repeat(1000) + ']'.repeat(1000))).not.toThrow();
  });
});
