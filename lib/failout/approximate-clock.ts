/**
 * The clock of the failout decision: the wall clock, read at most once per event-loop turn and per
 * {@link APPROXIMATE_CLOCK_READS_PER_SAMPLE} reads — Envoy's "approximate time" (the dispatcher reads
 * the clock once per loop iteration for its per-request hot paths).
 *
 * Why: reading the clock (`Date.now()`) costs about 40 ns on a virtualised host, a third of what the
 * whole failout decision costs while redirecting, and every request of a failed-out cluster reads it.
 * Failout windows are in milliseconds and the value is at most one turn (or N decisions) old, so a
 * window starts and ends as before, within the work of one turn.
 *
 * A clock or timer that is not the real one (jest's or sinon's fake timers replace `Date`, or
 * `setImmediate` alone as legacy or `doNotFake: ['Date']` timers do) makes it read the clock every
 * time: tests that move time between two calls see it move, and a turn that faked timers would never
 * end cannot hold a stale sample.
 */

/** How many reads may share one sample of the clock within one event-loop turn. */
export const APPROXIMATE_CLOCK_READS_PER_SAMPLE = 64;

const realDateNow = Date.now;
const realSetImmediate = setImmediate;
let sample = 0;
let readsLeft = 0;
let resetScheduled = false;

function endOfTurn(): void {
  readsLeft = 0;
  resetScheduled = false;
}

/** Epoch ms, as `Date.now()`, at most one event-loop turn (or 64 reads) old. */
export function approximateNow(): number {
  if (Date.now !== realDateNow || setImmediate !== realSetImmediate) return Date.now();
  if (readsLeft > 0) {
    readsLeft--;
    return sample;
  }
  sample = realDateNow();
  readsLeft = APPROXIMATE_CLOCK_READS_PER_SAMPLE - 1;
  if (!resetScheduled) {
    resetScheduled = true;
    // The next turn samples afresh; an Immediate keeps no process alive past it.
    realSetImmediate(endOfTurn).unref();
  }
  return sample;
}
