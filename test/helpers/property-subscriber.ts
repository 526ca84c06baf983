import type { PropertySubscriber } from '../../lib/d2/property-store';

/** One call a {@link recordingSubscriber} heard. */
export type PropertyEvent<T> = { type: 'initialize'; value: T | undefined } | { type: 'add'; value: T } | { type: 'remove' };

/** A property subscriber that records every call it hears, in order. */
export function recordingSubscriber<T>(): PropertySubscriber<T> & { readonly events: PropertyEvent<T>[] } {
  const events: PropertyEvent<T>[] = [];
  return {
    events,
    onInitialize: (_name, value) => events.push({ type: 'initialize', value }),
    onAdd: (_name, value) => events.push({ type: 'add', value }),
    onRemove: () => events.push({ type: 'remove' }),
  };
}
