/**
 * lib/safety/schedule: the pure half of drills' timing, with no dependency beyond the standard
 * library, so the request worker (lib/requests, which validates `putDrill`) and the drill runner
 * (lib/safety) share one reading of a schedule: EventBridge `cron(...)`/`rate(...)` in UTC, and ARC's
 * blocked dates and blocked windows.
 */
export { parseSchedule, lastDueAt, nextDueAfter, MAX_SCHEDULE_LENGTH } from './cron';
export type { Schedule, ScheduleParse } from './cron';
export { blockedDateProblem, parseBlockedWindow, blockedDateAt, blockedWindowOverlapping, utcDate, MAX_BLOCKED_ENTRIES } from './blocked';
export type { BlockedWindow } from './blocked';
