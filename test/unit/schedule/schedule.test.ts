import fc from 'fast-check';
import { blockedDateAt, blockedDateProblem, blockedWindowOverlapping, lastDueAt, nextDueAfter, parseBlockedWindow, parseSchedule, type BlockedWindow, type Schedule } from '../../../lib/schedule';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

function schedule(text: string): Schedule {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.schedule;
}

function window(text: string): BlockedWindow {
  const parsed = parseBlockedWindow(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

/** A brute-force reading of a cron schedule: is the whole minute `t` a due time? */
function dueAt(s: Extract<Schedule, { kind: 'cron' }>, t: number): boolean {
  const d = new Date(t);
  if (t % MIN !== 0) return false;
  if (!s.minutes.has(d.getUTCMinutes()) || !s.hours.has(d.getUTCHours()) || !s.months.has(d.getUTCMonth() + 1)) return false;
  if (s.years !== undefined && !s.years.has(d.getUTCFullYear())) return false;
  return s.daysOfMonth !== undefined ? s.daysOfMonth.has(d.getUTCDate()) : s.daysOfWeek!.has(d.getUTCDay());
}

describe('parseSchedule', () => {
  it.each([
    ['cron(0 14 ? * TUE *)', 'every Tuesday 14:00 UTC'],
    ['cron(0/15 9-17 ? * MON-FRI *)', 'steps, ranges and day names'],
    ['cron(30 2 1,15 * ? 2027)', 'lists, day of month and a year'],
    ['cron(0 0 ? JAN,JUL 2 *)', 'month names and day number (2 = Monday)'],
    ['rate(7 days)', 'a rate in days'],
    ['rate(1 minute)', 'a rate of one minute'],
  ])('accepts %s (%s)', (text) => {
    expect(parseSchedule(text).ok).toBe(true);
  });

  it.each([
    ['cron(0 14 * * TUE *)', /exactly one of day-of-month and day-of-week must be \?/],
    ['cron(0 14 ? * ? *)', /exactly one/],
    ['cron(0 14 ? * TUE)', /6 fields/],
    ['cron(60 14 ? * TUE *)', /minutes "60": 60 is outside 0-59/],
    ['cron(0 24 ? * TUE *)', /hours "24"/],
    ['cron(0 14 ? * FUNDAY *)', /day-of-week/],
    ['cron(0 14 L * ? *)', /L, W and # are not supported/],
    ['cron(0 14 ? * 3#2 *)', /not supported/],
    ['cron(0 14 ? * 5-2 *)', /range ends before it starts/],
    ['cron(0/0 14 ? * TUE *)', /step must be a positive/],
    ['cron(0 ? ? * TUE *)', /\? is allowed only/],
    ['rate(0 days)', /at least 1/],
    ['rate(7 weeks)', /rate needs/],
    ['every tuesday', /neither cron\(\.\.\.\) nor rate/],
    ['x'.repeat(300), /longer than 256/],
  ])('refuses %s, saying why', (text, why) => {
    const parsed = parseSchedule(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(why);
  });
});

describe('lastDueAt and nextDueAfter', () => {
  const tuesday14 = Date.parse('2026-12-01T14:00:00Z'); // a Tuesday

  it('finds the last Tuesday 14:00 at or before now, within the span it may look back', () => {
    const s = schedule('cron(0 14 ? * TUE *)');
    expect(lastDueAt(s, tuesday14 + 3 * MIN, { notBefore: tuesday14 - 10 * MIN, anchor: 0 })).toBe(tuesday14);
    expect(lastDueAt(s, tuesday14, { notBefore: tuesday14, anchor: 0 })).toBe(tuesday14);
    expect(lastDueAt(s, tuesday14 - 1, { notBefore: 0, anchor: 0 })).toBe(tuesday14 - 7 * DAY);
    // Older than the grace: ignored.
    expect(lastDueAt(s, tuesday14 + 11 * MIN, { notBefore: tuesday14 + MIN, anchor: 0 })).toBeUndefined();
    expect(nextDueAfter(s, tuesday14, 0)).toBe(tuesday14 + 7 * DAY);
  });

  it('counts a rate from its anchor, the first time one period after it', () => {
    const s = schedule('rate(7 days)');
    const anchor = Date.parse('2026-11-20T10:00:00Z');
    expect(lastDueAt(s, anchor + 6 * DAY, { notBefore: 0, anchor })).toBeUndefined();
    expect(lastDueAt(s, anchor + 15 * DAY, { notBefore: 0, anchor })).toBe(anchor + 14 * DAY);
    expect(nextDueAfter(s, anchor, anchor)).toBe(anchor + 7 * DAY);
    expect(nextDueAfter(s, anchor + 8 * DAY, anchor)).toBe(anchor + 14 * DAY);
  });

  it('agrees with a brute-force minute-by-minute reading (property)', () => {
    const cronText = fc
      .tuple(
        fc.constantFrom('*', '0', '0/15', '5,35', '10-20'),
        fc.constantFrom('*', '14', '9-17', '0/6'),
        fc.constantFrom<[string, string]>(['?', '*'], ['?', 'TUE'], ['?', 'MON-FRI'], ['1,15', '?'], ['*', '?'], ['31', '?']),
        fc.constantFrom('*', 'JAN-JUN', 'DEC'),
      )
      .map(([m, h, [dom, dow], month]) => `cron(${m} ${h} ${dom} ${month} ${dow} *)`);
    fc.assert(
      fc.property(cronText, fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2028-12-31T00:00:00Z') }), fc.integer({ min: 1, max: DAY }), (text, now, span) => {
        const s = schedule(text) as Extract<Schedule, { kind: 'cron' }>;
        const last = lastDueAt(s, now, { notBefore: now - span, anchor: 0 });
        let expected: number | undefined;
        for (let t = Math.floor(now / MIN) * MIN; t >= now - span; t -= MIN) {
          if (dueAt(s, t)) {
            expected = t;
            break;
          }
        }
        expect(last).toBe(expected);
        const next = nextDueAfter(s, now, 0);
        if (next !== undefined) {
          expect(next).toBeGreaterThan(now);
          expect(dueAt(s, next)).toBe(true);
          let earlier = false;
          for (let t = Math.floor(now / MIN) * MIN + MIN; t < Math.min(next, now + DAY); t += MIN) earlier ||= dueAt(s, t);
          expect(earlier).toBe(false);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('blocked dates and windows', () => {
  it('accepts real dates only', () => {
    expect(blockedDateProblem('2026-12-24')).toBeUndefined();
    expect(blockedDateProblem('2028-02-29')).toBeUndefined();
    expect(blockedDateProblem('2026-02-29')).toMatch(/not a calendar date/);
    expect(blockedDateProblem('24.12.2026')).toMatch(/not a date YYYY-MM-DD/);
    expect(blockedDateAt(['2026-12-24'], Date.parse('2026-12-24T23:59:59Z'))).toBe('2026-12-24');
    expect(blockedDateAt(['2026-12-24'], Date.parse('2026-12-25T00:00:00Z'))).toBeUndefined();
  });

  it.each([
    ['Mon:09:00-Mon:09:00', /empty/],
    ['Mon:24:00-Mon:10:00', /not a time of day/],
    ['Xyz:09:00-Mon:10:00', /not a day/],
    ['Mon 09:00-Mon 10:00', /not a window Day:HH:MM-Day:HH:MM/],
  ])('refuses the window %s', (text, why) => {
    expect(parseBlockedWindow(text)).toMatch(why);
  });

  it('finds a run overlapping a weekly window, also one that wraps the week', () => {
    const monday9 = Date.parse('2026-11-30T09:00:00Z'); // a Monday
    const w = window('Mon:09:00-Mon:10:00');
    expect(blockedWindowOverlapping([w], monday9 - 30 * MIN, monday9 - 10 * MIN)).toBeUndefined();
    expect(blockedWindowOverlapping([w], monday9 - 30 * MIN, monday9 + MIN)).toBe(w);
    expect(blockedWindowOverlapping([w], monday9 + HOUR, monday9 + 2 * HOUR)).toBeUndefined();
    expect(blockedWindowOverlapping([w], monday9 + 7 * DAY + 10 * MIN, monday9 + 7 * DAY + 20 * MIN)).toBe(w);
    const weekend = window('Sat:20:00-Mon:06:00');
    expect(blockedWindowOverlapping([weekend], monday9 - 4 * HOUR, monday9 - 3 * HOUR)).toBe(weekend); // Mon 05:00
    expect(blockedWindowOverlapping([weekend], monday9 - 2 * HOUR, monday9)).toBeUndefined(); // Mon 07:00
    expect(blockedWindowOverlapping([weekend], monday9 - 37 * HOUR, monday9 - 36 * HOUR)).toBe(weekend); // Sun 20:00
  });

  it('agrees with a brute-force minute-by-minute reading (property)', () => {
    const dayNames = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
    const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }));
    const text = fc
      .tuple(fc.integer({ min: 0, max: 6 }), hhmm, fc.integer({ min: 0, max: 6 }), hhmm)
      .map(([d1, [h1, m1], d2, [h2, m2]]) => `${dayNames[d1]}:${String(h1).padStart(2, '0')}:${String(m1).padStart(2, '0')}-${dayNames[d2]}:${String(h2).padStart(2, '0')}:${String(m2).padStart(2, '0')}`)
      .filter((t) => typeof parseBlockedWindow(t) !== 'string');
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 60 * 24 * 14 }), fc.integer({ min: 1, max: 180 }), (t, startMinute, lengthMinutes) => {
        const w = window(t);
        const from = Date.parse('2026-11-30T00:00:00Z') + startMinute * MIN;
        const to = from + lengthMinutes * MIN;
        const inWindow = (ms: number): boolean => {
          const offset = (((ms - Date.parse('2026-11-30T00:00:00Z')) % (7 * DAY)) + 7 * DAY) % (7 * DAY);
          return w.start < w.end ? offset >= w.start && offset < w.end : offset >= w.start || offset < w.end;
        };
        let expected = false;
        for (let ms = from; ms < to; ms += MIN) expected ||= inWindow(ms);
        expect(blockedWindowOverlapping([w], from, to) !== undefined).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
