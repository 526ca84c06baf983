import { z } from 'zod';
import { formatDuration, parseDuration } from './duration';
import type { Problem } from './rejection';

/**
 * A request's window (`offlineAt`, and `onlineAt` or `duration`), the same rules for every action that
 * has one (a failout, an extend, an evacuation): instants in range, one end, after the start, not
 * past, within the deployment's longest window.
 */

/**
 * An instant: ISO-8601 with a zone (`2026-11-30T16:00:00Z`, `+01:00`) or epoch milliseconds. Both
 * forms (and the end a `duration` gives) must lie in [{@link EARLIEST_INSTANT}, {@link LATEST_INSTANT}];
 * that is checked with the window (`badWindow`), the same for every form (issue 14).
 */
export const instantSchema = z.union([z.iso.datetime({ offset: true }), z.number().int()]);

/** 1970-01-01T00:00:00.000Z: the earliest instant a window may name (D2 stores epoch ms, never negative). */
export const EARLIEST_INSTANT = 0;
/** 9999-12-31T23:59:59.999Z: the latest instant a window may name (the last ISO-8601 four-digit year). */
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A positive ISO-8601 (or short) duration. */
export const durationSchema = z.string().refine((text) => (parseDuration(text) ?? 0) > 0, {
  message: 'must be a positive ISO-8601 duration such as PT2H or P1DT6H (no years or months)',
});

/** A window as sent. */
export interface WindowInput {
  readonly offlineAt?: string | number | undefined;
  readonly onlineAt?: string | number | undefined;
  readonly duration?: string | undefined;
}

/** Resolves the window to epoch ms and checks it against `now` and the maximum. */
export function normaliseWindow(input: WindowInput, now: number, maxWindowMs: number): { problems: Problem[]; offlineAt?: number; onlineAt?: number } {
  if (input.onlineAt !== undefined && input.duration !== undefined) {
    return { problems: [{ reason: 'badWindow', message: 'onlineAt and duration: give one end, not both' }] };
  }
  if (input.onlineAt === undefined && input.duration === undefined) {
    return { problems: [{ reason: 'missingEnd', message: 'onlineAt or duration: a failout needs an end (at most ' + formatDuration(maxWindowMs) + ' ahead)' }] };
  }
  const offlineAt = input.offlineAt === undefined ? now : instant(input.offlineAt);
  const onlineAt = input.onlineAt !== undefined ? instant(input.onlineAt) : offlineAt + parseDuration(input.duration!)!;
  const bounds = [
    ...(input.offlineAt === undefined ? [] : boundProblems('offlineAt', input.offlineAt, offlineAt)),
    ...(input.onlineAt !== undefined ? boundProblems('onlineAt', input.onlineAt, onlineAt) : boundProblems('duration', input.duration!, onlineAt)),
  ];
  // Out of range, nothing else about the window can be said (or written: D2 refuses it).
  if (bounds.length > 0) return { problems: bounds };
  const problems: Problem[] = [];
  if (onlineAt <= offlineAt) {
    // Without an offlineAt the start is now (always so for an extend): say so, not name a field never given.
    const start = input.offlineAt === undefined ? `now (${iso(offlineAt)})` : `offlineAt ${iso(offlineAt)}`;
    problems.push({ reason: 'badWindow', message: `onlineAt: ${iso(onlineAt)} is not after ${start}` });
  } else if (onlineAt <= now) {
    problems.push({ reason: 'badWindow', message: `onlineAt: ${iso(onlineAt)} is already past` });
  } else if (onlineAt - now > maxWindowMs) {
    problems.push({ reason: 'windowTooLong', message: `onlineAt: ${iso(onlineAt)} is more than ${formatDuration(maxWindowMs)} ahead` });
  }
  return { problems, offlineAt, onlineAt };
}

function instant(value: string | number): number {
  return typeof value === 'number' ? value : Date.parse(value);
}

/**
 * The range check of one end of a window, the same for each form: `given` as the request wrote it (an
 * ISO string, epoch ms, or the `duration` that gave this end) and `ms` what it resolves to.
 */
function boundProblems(field: 'offlineAt' | 'onlineAt' | 'duration', given: string | number, ms: number): Problem[] {
  const shown = field === 'duration' ? String(given) : iso(ms);
  if (Number.isNaN(ms)) return [{ reason: 'badWindow', message: `${field}: ${JSON.stringify(given)} is not an instant` }];
  if (field === 'duration') {
    return ms > LATEST_INSTANT ? [{ reason: 'badWindow', message: `duration: ${shown} ends after ${iso(LATEST_INSTANT)}` }] : [];
  }
  if (ms < EARLIEST_INSTANT) return [{ reason: 'badWindow', message: `${field}: ${shown} is before ${iso(EARLIEST_INSTANT)}` }];
  if (ms > LATEST_INSTANT) return [{ reason: 'badWindow', message: `${field}: ${shown} is after ${iso(LATEST_INSTANT)}` }];
  return [];
}

/** ISO-8601 text of an epoch-ms instant, or the number itself when no Date can hold it. Never throws. */
function iso(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

