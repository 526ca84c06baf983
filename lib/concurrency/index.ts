/**
 * lib/concurrency: bounded concurrency for the modules that read or call many things at once (the D2
 * client's pools, the bridge's sync, the operator's fabric reads). Pure; imports nothing.
 */

/** Runs `fn` over `items` with at most `limit` in flight; rejects with the first failure. */
export async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
