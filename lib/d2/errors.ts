/**
 * Typed errors of the D2 module. Callers branch on `kind` (or `instanceof D2Error`), never on the message.
 */

/**
 * What went wrong:
 * - `malformed`: a cluster, service or URI document (or a model handed to a serializer) breaks the rest.li
 *   schema; `field` and `entity` say where.
 * - `unknownService` / `unknownCluster`: the named node does not exist.
 * - `noHosts`: a service resolved, but no host can take the request.
 * - `closed`: the component was used after `close()`.
 * - `discoveryTimeout`: a service or cluster did not load from ZooKeeper in time (ZooKeeper unreachable).
 */
export type D2ErrorKind = 'malformed' | 'unknownService' | 'noHosts' | 'unknownCluster' | 'closed' | 'discoveryTimeout';

/** The three D2 document types, named after their ZooKeeper folders' content. */
export type D2Entity = 'cluster' | 'service' | 'uri';

/** Optional details of a {@link D2Error}. */
export interface D2ErrorOptions {
  /** The error that led to this one (for example the JSON syntax error). */
  readonly cause?: unknown;
  /**
   * Path of the offending field: schema keys are dotted, map keys are bracketed JSON strings, list items
   * are `[i]`, e.g. `partitionProperties.keyRangeStart` or `partitionDesc["http://h:1"]["a"]`.
   * The empty string means the document as a whole (bad JSON, not an object).
   */
  readonly field?: string;
  /** Which kind of document the field belongs to. */
  readonly entity?: D2Entity;
}

/** The one error class of `lib/d2`. */
export class D2Error extends Error {
  /** Always `'D2Error'`. */
  override readonly name = 'D2Error';
  /** What went wrong; see {@link D2ErrorKind}. */
  readonly kind: D2ErrorKind;
  /** For `malformed`: path of the offending field (see {@link D2ErrorOptions.field}). */
  readonly field: string | undefined;
  /** For `malformed`: the document type. */
  readonly entity: D2Entity | undefined;

  constructor(kind: D2ErrorKind, message: string, options: D2ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.field = options.field;
    this.entity = options.entity;
  }
}

/** A {@link D2Error} of kind `malformed`, where `field` and `entity` are always set. */
export type D2MalformedError = D2Error & {
  /** Always `malformed`. */
  readonly kind: 'malformed';
  /** Path of the offending field; `''` for the whole document (see {@link D2ErrorOptions.field}). */
  readonly field: string;
  /** The document type. */
  readonly entity: D2Entity;
};

/**
 * Builds the error for a document that breaks the schema.
 * @param entity - the document type.
 * @param field - path of the offending field; `''` for the whole document.
 * @param problem - what is wrong, phrased to follow the field name ("must be a string").
 * @param cause - the underlying error, if any.
 */
export function malformed(entity: D2Entity, field: string, problem: string, cause?: unknown): D2MalformedError {
  const where = field === '' ? 'document' : field;
  return new D2Error('malformed', `malformed ${entity} properties: ${where} ${problem}`, {
    cause,
    field,
    entity,
  }) as D2MalformedError;
}

/** True when `e` is a {@link D2Error} of kind `malformed`. */
export function isMalformed(e: unknown): e is D2MalformedError {
  return e instanceof D2Error && e.kind === 'malformed';
}

/**
 * Narrows a caught value to `Error`; anything else (a thrown string, say) is re-thrown untouched.
 * Use it first thing in every `catch`.
 */
export function assertIsError(e: unknown): asserts e is Error {
  if (!(e instanceof Error)) {
    throw e;
  }
}
