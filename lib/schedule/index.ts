/**
 * lib/schedule: when a drill is due, read one way by everyone. EventBridge `cron(...)`/`rate(...)`
 * expressions in UTC, and ARC's blocked dates and blocked windows. A low module: pure logic over the
 * standard library, importing no other failout module, so the request worker (lib/requests, which
 * validates `putDrill`) and the drill runner (lib/safety) build on it and share one reading.
 */
export { parseSchedule, lastDueAt, nextDueAfter, MAX_SCHEDULE_LENGTH } from './cron';
export type { Schedule, ScheduleParse } from './cron';
export { blockedDateProblem, parseBlockedWindow, blockedDateAt, blockedWindowOverlapping, utcDate, MAX_BLOCKED_ENTRIES } from './blocked';
export type { BlockedWindow } from './blocked';
