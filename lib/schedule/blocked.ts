/**
 * Blocked dates and blocked windows of a drill, in ARC practice-run formats (UTC):
 * - a blocked date is `YYYY-MM-DD`: no run starts on that UTC day;
 * - a blocked window is `Mon:09:00-Mon:10:00` (day `Mon`…`Sun`, 24-hour time): a weekly span,
 *   which may wrap the week (`Sat:20:00-Mon:06:00`). No run starts whose window would overlap it
 *   (ARC blocks practice runs from starting in it; a run that would still be moving traffic when the
 *   blocked span begins is just as unwanted, so the whole run window is checked, not only its start).
 */

/** At most this many blocked dates, and as many blocked windows (ARC allows 15 of each). */
export const MAX_BLOCKED_ENTRIES = 15;

const DAY = 86_400_000;
const WEEK = 7 * DAY;
const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
/** 1970-01-05 was a Monday: the origin of week offsets. */
const FIRST_MONDAY = 4 * DAY;

/** A weekly span: offsets in ms from Monday 00:00 UTC; `end < start` wraps the week. */
export interface BlockedWindow {
  /** The text as given. */
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** The problem with a blocked date, or undefined when it is a real `YYYY-MM-DD` date. */
export function blockedDateProblem(text: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return `${JSON.stringify(text.slice(0, 32))} is not a date YYYY-MM-DD (example: 2026-12-24)`;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return `${JSON.stringify(text)} is not a calendar date`;
  return undefined;
}

/** Parses `Mon:09:00-Mon:10:00`; a string says what is wrong. */
export function parseBlockedWindow(text: string): BlockedWindow | string {
  const match = /^([A-Za-z]{3}):(\d{2}):(\d{2})-([A-Za-z]{3}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return `${JSON.stringify(text.slice(0, 40))} is not a window Day:HH:MM-Day:HH:MM (example: Mon:09:00-Mon:10:00)`;
  const start = offsetOf(match[1]!, match[2]!, match[3]!);
  const end = offsetOf(match[4]!, match[5]!, match[6]!);
  if (typeof start === 'string') return `${JSON.stringify(text)}: ${start}`;
  if (typeof end === 'string') return `${JSON.stringify(text)}: ${end}`;
  if (start === end) return `${JSON.stringify(text)}: the window is empty (start equals end)`;
  return { text, start, end };
}

function offsetOf(day: string, hh: string, mm: string): number | string {
  const index = DAY_NAMES.findIndex((d) => d.toLowerCase() === day.toLowerCase());
  if (index < 0) return `${JSON.stringify(day)} is not a day (Mon Tue Wed Thu Fri Sat Sun)`;
  const [h, m] = [Number(hh), Number(mm)];
  if (h > 23 || m > 59) return `${hh}:${mm} is not a time of day (00:00-23:59)`;
  return index * DAY + h * 3_600_000 + m * 60_000;
}

/** The UTC date `YYYY-MM-DD` of an instant. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The first blocked date the instant falls on, or undefined. */
export function blockedDateAt(dates: readonly string[], at: number): string | undefined {
  const day = utcDate(at);
  return dates.find((d) => d === day);
}

/**
 * The first blocked window that overlaps `[from, to)`, or undefined. Weekly windows repeat, so the
 * span is compared with each window's occurrences in the weeks it touches.
 */
export function blockedWindowOverlapping(windows: readonly BlockedWindow[], from: number, to: number): BlockedWindow | undefined {
  const firstWeek = Math.floor((from - FIRST_MONDAY) / WEEK) - 1;
  const lastWeek = Math.floor((to - FIRST_MONDAY) / WEEK);
  for (const window of windows) {
    const length = window.end > window.start ? window.end - window.start : WEEK - window.start + window.end;
    for (let week = firstWeek; week <= lastWeek; week++) {
      const start = FIRST_MONDAY + week * WEEK + window.start;
      if (start < to && start + length > from) return window;
    }
  }
  return undefined;
}
