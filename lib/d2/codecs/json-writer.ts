/**
 * A compact JSON writer that prints doubles the way rest.li's Jackson does.
 *
 * Why not `JSON.stringify`: it prints the double 1.0 as `1`. rest.li's reader rejects an integer where
 * it casts to Double (slow-start `aggression`, `minWeightPercent`), and older clients cast `weights`
 * values to Double, so those fields must read `1.0`. The codecs wrap such values in {@link JavaDouble}.
 *
 * Input trees mix three kinds of objects:
 * - `Map`: objects the codecs build from the schema; keys are written in insertion order, so the output
 *   follows rest.li's key order, and error paths use dots (`slowStartProperties.aggression`).
 * - plain objects: maps with user keys and opaque values; error paths use brackets (`weights["http://h"]`).
 *   A number in them is written with a decimal point when the JSON it was read from had one
 *   ({@link isDecimalLiteral}), so an untouched `"scope":1.0` stays `1.0`.
 * - arrays.
 * Output is compact UTF-8 text; only `"`, `\` and control characters are escaped, as Jackson does.
 */

import { malformed, type D2Entity } from '../errors';
import { integerLiteralText, isDecimalLiteral, MAX_JSON_DEPTH } from './json-text';

/** A number that rest.li holds as a Java double or float: written as `Double.toString` prints it. */
export class JavaDouble {
  constructor(readonly value: number) {}
}

/**
 * An integer read from a literal beyond 2^53 (a Java Long or BigInteger): written as `text` while
 * `value` is still the number that text reads as, so a key nobody changed keeps every digit.
 */
export class IntegerLiteral {
  constructor(
    readonly value: number,
    readonly text: string,
  ) {}
}

/**
 * Formats a number as Java's `Double.toString`: `1.0`, `0.3`, `0.001`, `1234567.0`, `1.0E-4`,
 * `1.2345678E7`. Plain notation is used for magnitudes in [10⁻³, 10⁷), otherwise computerized scientific
 * notation. The digits are the shortest that round-trip, as JDK 19+ prints them (older JDKs occasionally
 * printed one more digit than needed; either reads back as the same double).
 */
export function formatJavaDouble(value: number): string {
  if (Number.isNaN(value)) {
    return 'NaN';
  }
  if (!Number.isFinite(value)) {
    return value > 0 ? 'Infinity' : '-Infinity';
  }
  if (value === 0) {
    return Object.is(value, -0) ? '-0.0' : '0.0';
  }
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  // toExponential() without an argument yields the shortest round-trip digits, e.g. "1.2345678e+7".
  let [mantissa, exponentText] = magnitude.toExponential().split('e');
  if (mantissa.length === 1) {
    // Java prints at least two digits and then picks, among the two-digit decimals that still round to
    // the value, the closest one: 4.9E-324, not 5.0E-324. Only subnormals can differ from "d.0".
    const twoDigits = magnitude.toExponential(1);
    if (Number(twoDigits) === magnitude) {
      [mantissa, exponentText] = twoDigits.split('e');
    }
  }
  const digits = mantissa.replace('.', '').replace(/(?<=.)0$/, '');
  const exponent = Number(exponentText);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    return sign + plainNotation(digits, exponent);
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exponent}`;
}

function plainNotation(digits: string, exponent: number): string {
  if (exponent < 0) {
    return `0.${'0'.repeat(-exponent - 1)}${digits}`;
  }
  const integerDigits = exponent + 1;
  if (digits.length <= integerDigits) {
    return `${digits}${'0'.repeat(integerDigits - digits.length)}.0`;
  }
  return `${digits.slice(0, integerDigits)}.${digits.slice(integerDigits)}`;
}

interface Writer {
  readonly entity: D2Entity;
  readonly parts: string[];
}

/**
 * Writes a tree of Maps, plain objects, arrays, strings, booleans, null, numbers and {@link JavaDouble}s.
 * `undefined` object members are left out (as `JSON.stringify` does).
 * @throws D2Error (`malformed`, for `entity`) when the tree holds anything else: a non-finite number, a
 * function, a class instance, `undefined` in a list, or nesting deeper than the reader accepts.
 */
export function writeJson(tree: unknown, entity: D2Entity): string {
  const w: Writer = { entity, parts: [] };
  emit(w, tree, '', false, 0);
  return w.parts.join('');
}

/** `decimal` and `integerText`: what the literal the value was read from says of it (json-text.ts). */
function emit(w: Writer, value: unknown, path: string, decimal: boolean, depth: number, integerText?: string): void {
  if (value === null) {
    w.parts.push('null');
  } else if (typeof value === 'string') {
    w.parts.push(JSON.stringify(value));
  } else if (typeof value === 'boolean') {
    w.parts.push(value ? 'true' : 'false');
  } else if (typeof value === 'number') {
    w.parts.push(formatNumber(w, value, path, decimal, integerText));
  } else if (value instanceof IntegerLiteral) {
    w.parts.push(formatNumber(w, value.value, path, false, value.text));
  } else if (value instanceof JavaDouble) {
    w.parts.push(formatNumber(w, value.value, path, true));
  } else if (depth >= MAX_JSON_DEPTH) {
    throw malformed(w.entity, path, `is nested deeper than ${MAX_JSON_DEPTH} levels`);
  } else if (Array.isArray(value)) {
    emitArray(w, value, path, depth + 1);
  } else if (value instanceof Map) {
    emitMembers(w, [...(value as Map<unknown, unknown>)], path, undefined, depth + 1);
  } else if (typeof value === 'object' && isPlainObject(value)) {
    emitMembers(w, Object.entries(value), path, value, depth + 1);
  } else {
    throw malformed(w.entity, path, `is not a JSON value (${describe(value)})`);
  }
}

function emitArray(w: Writer, items: readonly unknown[], path: string, depth: number): void {
  w.parts.push('[');
  for (let i = 0; i < items.length; i++) {
    const itemPath = `${path}[${i}]`;
    if (items[i] === undefined) {
      throw malformed(w.entity, itemPath, 'is undefined');
    }
    if (i > 0) {
      w.parts.push(',');
    }
    emit(w, items[i], itemPath, isDecimalLiteral(items, i), depth, integerLiteralText(items, i));
  }
  w.parts.push(']');
}

/** Writes `{...}`; `source` is the plain object the members came from (undefined for a Map). */
function emitMembers(
  w: Writer,
  members: ReadonlyArray<readonly [unknown, unknown]>,
  path: string,
  source: object | undefined,
  depth: number,
): void {
  w.parts.push('{');
  let first = true;
  for (const [key, value] of members) {
    if (typeof key !== 'string') {
      throw malformed(w.entity, path, `has a non-string key (${describe(key)})`);
    }
    if (value === undefined) {
      continue;
    }
    if (!first) {
      w.parts.push(',');
    }
    first = false;
    w.parts.push(JSON.stringify(key), ':');
    const memberPath = source === undefined ? dotted(path, key) : `${path}[${JSON.stringify(key)}]`;
    emit(w, value, memberPath, source !== undefined && isDecimalLiteral(source, key), depth, source === undefined ? undefined : integerLiteralText(source, key));
  }
  w.parts.push('}');
}

function formatNumber(w: Writer, value: number, path: string, decimal: boolean, integerText?: string): string {
  if (!Number.isFinite(value)) {
    throw malformed(w.entity, path, `is ${value}, which JSON cannot hold`);
  }
  // Unchanged since it was read: its own digits, which the double holds only approximately.
  if (integerText !== undefined && Number(integerText) === value) {
    return integerText;
  }
  if (decimal) {
    return formatJavaDouble(value);
  }
  // Integers print without a fraction (String(1e21) is "1e+21", still valid JSON).
  return String(value);
}

function dotted(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    return value.constructor?.name ?? 'object';
  }
  return typeof value;
}

/**
 * Adds a model's unknown keys after the keys the codec wrote. Keys the reader interprets (`reserved`,
 * including ones it deliberately ignores such as a service's `banned`) and keys already written are
 * skipped, so a hand-built `extra` cannot shadow a modelled field.
 */
export function appendExtra(
  out: Map<string, unknown>,
  extra: Record<string, unknown> | undefined,
  reserved: ReadonlySet<string>,
): Map<string, unknown> {
  if (extra !== undefined) {
    for (const key of Object.keys(extra)) {
      if (!reserved.has(key) && !out.has(key)) {
        // A Map member has no literal-kind record, so a top-level `1.0` is carried as a JavaDouble
        // and a top-level integer beyond 2^53 as an IntegerLiteral.
        const value = extra[key];
        const integerText = integerLiteralText(extra, key);
        out.set(key, typeof value !== 'number' ? value : isDecimalLiteral(extra, key) ? new JavaDouble(value) : integerText !== undefined ? new IntegerLiteral(value, integerText) : value);
      }
    }
  }
  return out;
}
