import type { Logger } from '../logging';

/**
 * Calls `call`, logging instead of throwing: one subscriber's bug must not stop the others from
 * hearing an update, nor the store's watch from re-arming.
 */
export function callSafely(log: Logger, name: string, call: () => void): void {
  try {
    call();
  } catch (err) {
    log.error({ err, name }, 'property subscriber threw');
  }
}

/**
 * Calls `call` for every subscriber, over a copy: a subscriber may unsubscribe itself or another from
 * inside its callback; one removed meanwhile is skipped.
 */
export function publishSafely<S>(log: Logger, name: string, subscribers: ReadonlySet<S>, call: (subscriber: S) => void): void {
  for (const subscriber of [...subscribers]) {
    if (subscribers.has(subscriber)) callSafely(log, name, () => call(subscriber));
  }
}
