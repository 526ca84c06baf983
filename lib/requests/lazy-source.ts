/**
 * One object per process (a Lambda container), made on first use rather than at import — so a cold
 * start with ZooKeeper down fails that invocation (which its event source retries) instead of the init —
 * and reused by every later invocation. A failed attempt is forgotten, so the next call tries again;
 * concurrent first calls share one attempt. The request writer, the stop guard and the drills runner
 * are each made this way.
 */
export function lazySource<T>(create: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= create().catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
