/**
 * Proto3 JSON (https://protobuf.dev/programming-guides/json/) of protobufjs messages, so that a
 * message read over gRPC and the same message served as JSON say the same thing (CSDS: `csds.ts`).
 *
 * The printer options are those of envoy's admin `/config_dump`: field names as in the .proto (the
 * "preserve proto field names" option), and fields holding their default value left out. Enums print
 * by name, 64-bit integers as strings, bytes in base64, and the well-known types in their own forms:
 * Any as `{"@type": url, ...fields of the packed message}`, Timestamp as RFC 3339, Duration as `"1.5s"`,
 * Struct / Value / ListValue as plain JSON, and wrappers as their value.
 *
 * One departure: an Any whose type the resolver does not know (or whose bytes do not decode) prints
 * as the Any message itself, `{"type_url", "value": base64}`; proto3 JSON has no form for it, and a
 * debugging dump should show it rather than fail.
 */
import * as protobuf from 'protobufjs/light';
import { assertIsError } from './errors';

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** The message type packed in an Any of `typeUrl`; undefined when unknown. */
export type AnyTypeResolver = (typeUrl: string) => protobuf.Type | undefined;

type Fields = Record<string, unknown>;

const WRAPPERS = new Set(
  ['DoubleValue', 'FloatValue', 'Int64Value', 'UInt64Value', 'Int32Value', 'UInt32Value', 'BoolValue', 'StringValue', 'BytesValue'].map((n) => `.google.protobuf.${n}`),
);
/** The well-known types whose JSON is not an object: packed in an Any they go under `"value"`. */
const SPECIAL = new Set([...WRAPPERS, '.google.protobuf.Timestamp', '.google.protobuf.Duration', '.google.protobuf.Value', '.google.protobuf.ListValue', '.google.protobuf.Struct', '.google.protobuf.Any']);
const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/**
 * The proto3 JSON of `message` (a protobufjs message of `type`, as `decode` or `fromObject` return
 * it). Any fields are expanded through `resolveAny`, recursively.
 */
export function toProtoJson(type: protobuf.Type, message: protobuf.Message, resolveAny: AnyTypeResolver): JsonObject {
  const json = messageJson(type, message as unknown as Fields, resolveAny);
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? json : { value: json };
}

function messageJson(type: protobuf.Type, message: Fields, resolveAny: AnyTypeResolver): JsonValue {
  switch (type.fullName) {
    case '.google.protobuf.Any':
      return anyJson(message, resolveAny);
    case '.google.protobuf.Timestamp':
      return timestampJson(message);
    case '.google.protobuf.Duration':
      return durationJson(message);
    case '.google.protobuf.Struct':
      return structJson(type, message);
    case '.google.protobuf.Value':
      return valueJson(type, message);
    case '.google.protobuf.ListValue':
      return listJson(type, message);
  }
  if (WRAPPERS.has(type.fullName)) {
    const field = type.fieldsArray[0];
    return field ? scalarJson(field, message[field.name]) : null;
  }
  const out: JsonObject = {};
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (!isPresent(field, message, value)) continue;
    if (field.map) {
      out[field.name] = Object.fromEntries(Object.entries(value as Fields).map(([k, v]) => [k, fieldValueJson(field, v, resolveAny)]));
    } else if (field.repeated) {
      out[field.name] = (value as unknown[]).map((v) => fieldValueJson(field, v, resolveAny));
    } else {
      out[field.name] = fieldValueJson(field, value, resolveAny);
    }
  }
  return out;
}

/** Proto3 JSON leaves out unset message fields, empty lists and maps, and scalars at their default; a set oneof member always prints. */
function isPresent(field: protobuf.Field, message: Fields, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (field.map) return Object.keys(value as object).length > 0;
  if (field.repeated) return (value as unknown[]).length > 0;
  if (field.partOf) return message[field.partOf.name] === field.name;
  if (field.resolve().resolvedType instanceof protobuf.Type) return true;
  return !isDefaultScalar(field, value);
}

function isDefaultScalar(field: protobuf.Field, value: unknown): boolean {
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string') {
    const values = field.resolvedType instanceof protobuf.Enum ? field.resolvedType.valuesById : undefined;
    return values ? value === values[0] : value === '';
  }
  if (value instanceof Uint8Array) return value.length === 0;
  return String(value) === '0'; // a Long
}

function fieldValueJson(field: protobuf.Field, value: unknown, resolveAny: AnyTypeResolver): JsonValue {
  const resolved = field.resolve().resolvedType;
  if (resolved instanceof protobuf.Type) return messageJson(resolved, value as Fields, resolveAny);
  return scalarJson(field, value);
}

function scalarJson(field: protobuf.Field, value: unknown): JsonValue {
  const resolved = field.resolve().resolvedType;
  if (resolved instanceof protobuf.Enum) return typeof value === 'number' ? (resolved.valuesById[value] ?? value) : String(value);
  if (LONG_TYPES.has(field.type)) return String(value);
  if (field.type === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if (typeof value === 'number') return numberJson(value);
  return typeof value === 'boolean' || typeof value === 'string' ? value : String(value);
}

/** Proto3 JSON prints the non-finite doubles as strings. */
function numberJson(value: number): JsonValue {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

function anyJson(message: Fields, resolveAny: AnyTypeResolver): JsonValue {
  const typeUrl = typeof message.type_url === 'string' ? message.type_url : '';
  const bytes = message.value instanceof Uint8Array ? message.value : new Uint8Array();
  if (typeUrl === '') return {};
  const type = resolveAny(typeUrl);
  if (type) {
    try {
      const json = messageJson(type, type.decode(bytes) as unknown as Fields, resolveAny);
      if (SPECIAL.has(type.fullName)) return { '@type': typeUrl, value: json };
      return { '@type': typeUrl, ...(json as JsonObject) };
    } catch (err) {
      assertIsError(err); // undecodable: shown as the Any itself, below
    }
  }
  return { type_url: typeUrl, value: Buffer.from(bytes).toString('base64') };
}

/** Digits of a fraction of a second: none, 3, 6 or 9, as proto3 JSON prints them. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  return `.${nanos % 1_000_000 === 0 ? digits.slice(0, 3) : nanos % 1000 === 0 ? digits.slice(0, 6) : digits}`;
}

function timestampJson(message: Fields): string {
  const seconds = Number(String(message.seconds ?? 0));
  const nanos = Number(message.nanos ?? 0);
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction(nanos)}Z`;
}

function durationJson(message: Fields): string {
  const seconds = Number(String(message.seconds ?? 0));
  const nanos = Number(message.nanos ?? 0);
  return `${seconds < 0 || nanos < 0 ? '-' : ''}${Math.abs(seconds)}${fraction(Math.abs(nanos))}s`;
}

/** Struct: its `fields` map (field 1) as a JSON object. */
function structJson(type: protobuf.Type, message: Fields): JsonValue {
  const field = type.fieldsById[1];
  const valueType = field?.resolve().resolvedType;
  const fields = (field ? message[field.name] : undefined) as Fields | undefined;
  if (!(valueType instanceof protobuf.Type) || !fields) return {};
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, valueJson(valueType, v as Fields)]));
}

/** Value: the JSON its set `kind` holds, read by field number (the names differ between descriptors). */
function valueJson(type: protobuf.Type, message: Fields): JsonValue {
  const field = type.fieldsArray.find((f) => f.partOf !== null && message[f.partOf.name] === f.name);
  if (!field) return null;
  const value = message[field.name];
  const nested = field.resolve().resolvedType;
  switch (field.id) {
    case 2:
      return numberJson(Number(value));
    case 3:
      return String(value);
    case 4:
      return Boolean(value);
    case 5:
      return nested instanceof protobuf.Type ? structJson(nested, value as Fields) : {};
    case 6:
      return nested instanceof protobuf.Type ? listJson(nested, value as Fields) : [];
    default:
      return null;
  }
}

/** ListValue: its `values` (field 1) as a JSON array. */
function listJson(type: protobuf.Type, message: Fields): JsonValue {
  const field = type.fieldsById[1];
  const valueType = field?.resolve().resolvedType;
  const values = (field ? message[field.name] : undefined) as Fields[] | undefined;
  return valueType instanceof protobuf.Type && values ? values.map((v) => valueJson(valueType, v)) : [];
}
