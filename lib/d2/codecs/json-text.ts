/**
 * A strict JSON reader that remembers which numbers were written with a fraction or an exponent.
 *
 * Why not `JSON.parse`: rest.li reads with Jackson's untyped parser, where `5` becomes an Integer and
 * `5.0` a Double, and then casts. So `"minClusterSubsetSize":5.0` and `"aggression":1` are errors there,
 * and a Java reader of an opaque map may cast a value to Double. `JSON.parse` loses that distinction, and
 * Node 20 has no `context.source` in revivers. Matching raw text with a regular expression is not safe
 * either: the same keys occur inside `canaryConfigs` and inside strings.
 *
 * So this reader produces ordinary JS values and, on the side, records in a WeakMap which object keys and
 * array indexes held a decimal literal (`1.0`, `1e5`). The codecs ask {@link isDecimalLiteral} for the
 * few fields the spec types precisely, and the writer asks it for opaque values, so that `"scope":1.0`
 * in an untouched map is written back as `1.0`. Objects built elsewhere simply have no record.
 *
 * It also keeps the text of an integer literal a double cannot hold exactly (beyond 2^53,
 * {@link integerLiteralText}): Jackson reads it as a Long or BigInteger and writes it back digit for
 * digit, so a read-modify-write of a document must not round it in a key it does not own.
 *
 * Strings are delimited here and decoded by `JSON.parse` only when they contain escapes.
 *
 * Most documents hold no decimal literal at all (a failout is integers and strings). For them a cheap
 * scan ({@link needsOwnParser}) hands the text to `JSON.parse`, which builds the same values several
 * times faster; every document the scan is unsure of, and every error, goes through this reader.
 */

import { assertIsError } from '../errors';

const decimalLiterals = new WeakMap<object, Set<string>>();
/** Per container, the text of the integer literals beyond 2^53 (see {@link integerLiteralText}). */
const integerLiterals = new WeakMap<object, Map<string, string>>();

/** The JSON number grammar (RFC 8259 §6); groups 1 and 2 are the fraction and the exponent. */
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/** Jackson's default maximum nesting depth (`StreamReadConstraints`), which also bounds our recursion. */
export const MAX_JSON_DEPTH = 1000;

interface Cursor {
  readonly text: string;
  pos: number;
  depth: number;
  /** Whether the value just parsed was a decimal number literal. */
  decimal: boolean;
  /** The text of the value just parsed when it was an integer literal a double cannot hold exactly. */
  integerText: string | undefined;
}

/**
 * Parses one JSON document. Objects get own properties even for the key `__proto__`; with duplicate keys
 * the last one wins, as in Jackson's HashMap and in `JSON.parse`.
 * @throws SyntaxError with the character offset, for anything that is not exactly one JSON value.
 */
export function parseJsonText(text: string): unknown {
  if (!needsOwnParser(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Fall through: this reader says where and what is wrong, in its own words.
    }
  }
  const c: Cursor = { text, pos: 0, depth: 0, decimal: false, integerText: undefined };
  const value = parseValue(c);
  skipWhitespace(c);
  if (c.pos < text.length) {
    throw syntaxError(c, 'unexpected data after the JSON value');
  }
  return value;
}

/**
 * Longest run of digits outside strings that `JSON.parse` is left: an integer of 16 digits or more may
 * lie beyond 2^53, whose text this reader keeps ({@link integerLiteralText}).
 */
const MAX_PLAIN_DIGITS = 15;

/**
 * False only when `JSON.parse` gives exactly what {@link parseJsonText}'s own reader would: outside
 * strings no `.`, no exponent after a digit, no integer of more than {@link MAX_PLAIN_DIGITS} digits (which
 * could be one whose text must be kept)
 * and no nesting deeper than {@link MAX_JSON_DEPTH}. Both readers keep the last of duplicate keys and
 * make `__proto__` an own property; text that is not JSON is judged by whichever reader throws.
 */
function needsOwnParser(text: string): boolean {
  let depth = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // Jump over the string (most of a document's text) with indexOf; an escaped quote does not end it.
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return true; // unterminated: the reader says so
      i = end;
      digits = 0;
    } else if (code >= 0x30 && code <= 0x39) {
      if (++digits > MAX_PLAIN_DIGITS) return true;
    } else {
      if (code === 0x2e || ((code === 0x65 || code === 0x45) && digits > 0)) return true;
      if (code === 0x7b || code === 0x5b) {
        if (++depth > MAX_JSON_DEPTH) return true;
      } else if (code === 0x7d || code === 0x5d) {
        depth--;
      }
      digits = 0;
    }
  }
  return false;
}

/** Whether the character at `at` follows an odd number of backslashes (is escaped). */
function escapedAt(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

/** Whether `container[key]` was read from a number literal with a fraction or an exponent. */
export function isDecimalLiteral(container: object, key: string | number): boolean {
  return decimalLiterals.get(container)?.has(String(key)) ?? false;
}

/**
 * The literal text of `container[key]` when it was read from an integer literal beyond 2^53, which the
 * number itself holds only approximately (`9007199254740993` reads as 9007199254740992); undefined otherwise.
 */
export function integerLiteralText(container: object, key: string | number): string | undefined {
  return integerLiterals.get(container)?.get(String(key));
}

/** Carries the literal kind of `from[fromKey]` over to `to[toKey]`, for values copied to a new object. */
export function copyLiteralKind(from: object, fromKey: string, to: object, toKey: string): void {
  recordLiteral(to, toKey, isDecimalLiteral(from, fromKey), integerLiteralText(from, fromKey));
}

/** Sets an own, enumerable property, even when the key is `__proto__`. */
export function defineEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function recordLiteral(container: object, key: string, decimal: boolean, integerText: string | undefined): void {
  let texts = integerLiterals.get(container);
  if (integerText !== undefined) {
    if (texts === undefined) {
      texts = new Map();
      integerLiterals.set(container, texts);
    }
    texts.set(key, integerText);
  } else {
    texts?.delete(key);
  }
  let keys = decimalLiterals.get(container);
  if (decimal) {
    if (keys === undefined) {
      keys = new Set();
      decimalLiterals.set(container, keys);
    }
    keys.add(key);
  } else {
    keys?.delete(key);
  }
}

function parseValue(c: Cursor): unknown {
  skipWhitespace(c);
  let value: unknown;
  switch (c.text[c.pos]) {
    case '{':
      value = parseObject(c);
      break;
    case '[':
      value = parseArray(c);
      break;
    case '"':
      value = parseString(c);
      break;
    case 't':
      value = parseWord(c, 'true', true);
      break;
    case 'f':
      value = parseWord(c, 'false', false);
      break;
    case 'n':
      value = parseWord(c, 'null', null);
      break;
    default:
      return parseNumber(c);
  }
  c.decimal = false;
  c.integerText = undefined;
  return value;
}

function parseObject(c: Cursor): Record<string, unknown> {
  enter(c);
  const result: Record<string, unknown> = {};
  skipWhitespace(c);
  if (c.text[c.pos] === '}') {
    c.pos++;
  } else {
    for (;;) {
      skipWhitespace(c);
      if (c.text[c.pos] !== '"') {
        throw syntaxError(c, 'expected a string key');
      }
      const key = parseString(c);
      skipWhitespace(c);
      expect(c, ':');
      const value = parseValue(c);
      defineEntry(result, key, value);
      recordLiteral(result, key, c.decimal, c.integerText);
      if (!separator(c, '}')) {
        break;
      }
    }
  }
  c.depth--;
  return result;
}

function parseArray(c: Cursor): unknown[] {
  enter(c);
  const result: unknown[] = [];
  skipWhitespace(c);
  if (c.text[c.pos] === ']') {
    c.pos++;
  } else {
    for (;;) {
      const value = parseValue(c);
      recordLiteral(result, String(result.length), c.decimal, c.integerText);
      result.push(value);
      if (!separator(c, ']')) {
        break;
      }
    }
  }
  c.depth--;
  return result;
}

/** Consumes `,` (returns true: another member follows) or the closing bracket (returns false). */
function separator(c: Cursor, close: string): boolean {
  skipWhitespace(c);
  if (c.text[c.pos] === ',') {
    c.pos++;
    return true;
  }
  expect(c, close);
  return false;
}

function parseString(c: Cursor): string {
  const { text } = c;
  const start = c.pos;
  let end = start + 1;
  let escaped = false;
  for (;;) {
    if (end >= text.length) {
      throw syntaxError(c, 'unterminated string');
    }
    const code = text.charCodeAt(end);
    if (code === 0x22) {
      break;
    }
    if (code === 0x5c) {
      escaped = true;
      end += 2;
    } else if (code < 0x20) {
      c.pos = end;
      throw syntaxError(c, 'control character in a string');
    } else {
      end++;
    }
  }
  c.pos = end + 1;
  if (!escaped) {
    return text.slice(start + 1, end);
  }
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch (e) {
    assertIsError(e);
    c.pos = start;
    throw syntaxError(c, `invalid escape in a string (${e.message})`);
  }
}

function parseNumber(c: Cursor): number {
  NUMBER.lastIndex = c.pos;
  const match = NUMBER.exec(c.text);
  if (match === null) {
    const found = c.pos < c.text.length ? JSON.stringify(c.text[c.pos]) : 'end of input';
    throw syntaxError(c, `unexpected ${found}`);
  }
  const value = Number(match[0]);
  if (!Number.isFinite(value)) {
    // Jackson would produce an infinite Double, which no writer can put back into JSON.
    throw syntaxError(c, 'number out of range');
  }
  c.pos += match[0].length;
  c.decimal = match[1] !== undefined || match[2] !== undefined;
  c.integerText = !c.decimal && !Number.isSafeInteger(value) ? match[0] : undefined;
  return value;
}

function parseWord<T>(c: Cursor, word: string, value: T): T {
  if (!c.text.startsWith(word, c.pos)) {
    throw syntaxError(c, `unexpected ${JSON.stringify(c.text[c.pos])}`);
  }
  c.pos += word.length;
  return value;
}

function enter(c: Cursor): void {
  if (++c.depth > MAX_JSON_DEPTH) {
    throw syntaxError(c, `nesting deeper than ${MAX_JSON_DEPTH}`);
  }
  c.pos++;
}

function expect(c: Cursor, char: string): void {
  if (c.text[c.pos] !== char) {
    const found = c.pos < c.text.length ? JSON.stringify(c.text[c.pos]) : 'end of input';
    throw syntaxError(c, `expected ${JSON.stringify(char)} but found ${found}`);
  }
  c.pos++;
}

function skipWhitespace(c: Cursor): void {
  const { text } = c;
  let { pos } = c;
  for (;;) {
    const code = text.charCodeAt(pos);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) {
      break;
    }
    pos++;
  }
  c.pos = pos;
}

function syntaxError(c: Cursor, problem: string): SyntaxError {
  return new SyntaxError(`invalid JSON at offset ${c.pos}: ${problem}`);
}
