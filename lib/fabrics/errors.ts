/**
 * Typed errors of lib/fabrics (house rule 6): branch on `kind`, never on the message.
 * - `badName`: a fabric, cluster, service or tier name breaks its grammar (see `names.ts`);
 * - `tooLarge`: a fabric map is over `MAX_FABRIC_MAP_BYTES` or names too many clusters;
 * - `malformed`: a fabric map node is not JSON, or not the document `fabric-map.ts` describes.
 */
export type FabricErrorKind = 'badName' | 'tooLarge' | 'malformed';

/** One error of lib/fabrics; its `message` says what is wrong, quoting names as JSON strings. */
export class FabricError extends Error {
  override readonly name = 'FabricError';

  constructor(
    /** What went wrong; branch on this. */
    readonly kind: FabricErrorKind,
    message: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Whether `err` is a {@link FabricError}, optionally of one kind. */
export function isFabricError(err: unknown, kind?: FabricErrorKind): err is FabricError {
  return err instanceof FabricError && (kind === undefined || err.kind === kind);
}
