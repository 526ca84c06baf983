/**
 * EventBridge schedule expressions, evaluated in UTC: `cron(minutes hours day-of-month month
 * day-of-week year)` and `rate(N minute|minutes|hour|hours|day|days)`.
 *
 * Cron follows EventBridge's six-field form: `*`, values, ranges `a-b`, lists `a,b`, steps `a/n` (also over
 * `*`), month names JAN–DEC, day names SUN–SAT (day-of-week 1–7 with 1 = Sunday), and exactly one of
 * day-of-month and day-of-week `?` (EventBridge refuses both or neither). The rarer `L`, `W` and `#`
 * are refused with a message saying so: a weekly drill does not need them, and a half-supported form
 * would run a drill at a time nobody chose.
 *
 * `rate(...)` counts from an anchor (the drill's definition time): due at anchor + k × period, k ≥ 1.
 */

/** A parsed schedule expression. */
export type Schedule =
  | {
      /** `cron(...)`. */
      readonly kind: 'cron';
      /** The expression as given. */
      readonly text: string;
      /** The allowed values of each field (day-of-month/day-of-week: undefined when `?`). */
      readonly minutes: ReadonlySet<number>;
      readonly hours: ReadonlySet<number>;
      readonly daysOfMonth: ReadonlySet<number> | undefined;
      readonly months: ReadonlySet<number>;
      /** 0 = Sunday … 6 = Saturday (JavaScript's `getUTCDay`). */
      readonly daysOfWeek: ReadonlySet<number> | undefined;
      /** Undefined for `*` (every year). */
      readonly years: ReadonlySet<number> | undefined;
    }
  | {
      /** `rate(...)`. */
      readonly kind: 'rate';
      /** The expression as given. */
      readonly text: string;
      /** The period in ms. */
      readonly periodMs: number;
    };

/** The result of {@link parseSchedule}. */
export type ScheduleParse = { readonly ok: true; readonly schedule: Schedule } | { readonly ok: false; readonly message: string };

/** Longest schedule expression accepted. */
export const MAX_SCHEDULE_LENGTH = 256;

const MINUTE = 60_000;
const DAY = 86_400_000;
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day-of-week', min: 1, max: 7, names: DAYS },
  { name: 'year', min: 1970, max: 2199 },
];

/**
 * Parses `cron(...)` or `rate(...)`; the message of a failure says which field is wrong and why.
 */
export function parseSchedule(text: string): ScheduleParse {
  if (text.length > MAX_SCHEDULE_LENGTH) return { ok: false, message: `is longer than ${MAX_SCHEDULE_LENGTH} characters` };
  const trimmed = text.trim();
  const rate = /^rate\((.*)\)$/i.exec(trimmed);
  if (rate) return parseRate(text, rate[1]!);
  const cron = /^cron\((.*)\)$/i.exec(trimmed);
  if (!cron) return { ok: false, message: `${JSON.stringify(text)} is neither cron(...) nor rate(...) (example: cron(0 14 ? * TUE *))` };
  const parts = cron[1]!.trim().split(/\s+/);
  if (parts.length !== 6) return { ok: false, message: `cron needs 6 fields (minutes hours day-of-month month day-of-week year), got ${parts.length}` };
  const sets: (Set<number> | undefined)[] = [];
  for (let i = 0; i < 6; i++) {
    const field = parseField(parts[i]!, FIELDS[i]!, i === 2 || i === 4);
    if (typeof field === 'string') return { ok: false, message: `cron ${FIELDS[i]!.name} ${JSON.stringify(parts[i])}: ${field}` };
    sets.push(field);
  }
  const [minutes, hours, daysOfMonth, months, daysOfWeek, years] = sets;
  if ((daysOfMonth === undefined) === (daysOfWeek === undefined)) {
    return { ok: false, message: 'cron: exactly one of day-of-month and day-of-week must be ? (example: cron(0 14 ? * TUE *))' };
  }
  return {
    ok: true,
    schedule: {
      kind: 'cron',
      text,
      minutes: minutes!,
      hours: hours!,
      daysOfMonth,
      months: months!,
      // EventBridge counts 1 = Sunday; getUTCDay counts 0 = Sunday.
      daysOfWeek: daysOfWeek === undefined ? undefined : new Set([...daysOfWeek].map((d) => d - 1)),
      years: parts[5] === '*' ? undefined : years,
    },
  };
}

function parseRate(text: string, inner: string): ScheduleParse {
  const match = /^\s*(\d{1,6})\s+(minute|minutes|hour|hours|day|days)\s*$/i.exec(inner);
  if (!match) return { ok: false, message: `${JSON.stringify(text)}: rate needs a positive whole number and a unit (example: rate(7 days))` };
  const n = Number(match[1]);
  if (n < 1) return { ok: false, message: `${JSON.stringify(text)}: the rate must be at least 1` };
  const unit = match[2]!.toLowerCase().replace(/s$/, '');
  const periodMs = n * (unit === 'minute' ? MINUTE : unit === 'hour' ? 60 * MINUTE : DAY);
  return { ok: true, schedule: { kind: 'rate', text, periodMs } };
}

/** The values a field allows; undefined for `?` (where allowed); a string says what is wrong. */
function parseField(text: string, spec: FieldSpec, questionAllowed: boolean): Set<number> | undefined | string {
  if (text === '?') return questionAllowed ? undefined : '? is allowed only in day-of-month and day-of-week';
  if (/[LW#]/i.test(text.replace(/[A-Z]{3}/gi, (name) => (spec.names?.includes(name.toUpperCase()) ? '0' : name)))) {
    return 'L, W and # are not supported; list the days instead';
  }
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const step = item.split('/');
    if (step.length > 2) return `${JSON.stringify(item)} has more than one /`;
    const [rangeText, stepText] = step as [string, string | undefined];
    let from: number;
    let to: number;
    if (rangeText === '*') {
      from = spec.min;
      to = spec.max;
    } else {
      const bounds = rangeText.split('-');
      if (bounds.length > 2) return `${JSON.stringify(item)} is not a value or a range a-b`;
      const a = valueOf(bounds[0]!, spec);
      if (typeof a === 'string') return a;
      from = a;
      if (bounds.length === 2) {
        const b = valueOf(bounds[1]!, spec);
        if (typeof b === 'string') return b;
        to = b;
      } else to = stepText === undefined ? a : spec.max;
      if (to < from) return `${JSON.stringify(item)}: the range ends before it starts`;
    }
    let by = 1;
    if (stepText !== undefined) {
      if (!/^\d{1,4}$/.test(stepText) || Number(stepText) < 1) return `${JSON.stringify(item)}: the step must be a positive whole number`;
      by = Number(stepText);
    }
    for (let v = from; v <= to; v += by) values.add(v);
  }
  return values;
}

function valueOf(text: string, spec: FieldSpec): number | string {
  const named = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + 1;
  if (!/^\d{1,4}$/.test(text)) return `${JSON.stringify(text)} is not a number${spec.names ? ` or a name (${spec.names[0]}…${spec.names[spec.names.length - 1]})` : ''}`;
  const n = Number(text);
  if (n < spec.min || n > spec.max) return `${n} is outside ${spec.min}-${spec.max}`;
  return n;
}

/** True when the UTC day of `dayStart` (ms at 00:00 UTC) matches day-of-month, month, day-of-week and year. */
function dayMatches(schedule: Extract<Schedule, { kind: 'cron' }>, dayStart: number): boolean {
  const d = new Date(dayStart);
  if (!schedule.months.has(d.getUTCMonth() + 1)) return false;
  if (schedule.years !== undefined && !schedule.years.has(d.getUTCFullYear())) return false;
  if (schedule.daysOfMonth !== undefined) return schedule.daysOfMonth.has(d.getUTCDate());
  return schedule.daysOfWeek!.has(d.getUTCDay());
}

/** How far {@link lastDueAt} and {@link nextDueAfter} look for a cron match: 5 years of days. */
const SEARCH_DAYS = 5 * 366;

/**
 * The latest time the schedule was due at or before `now` (whole minutes for cron), not before
 * `notBefore`; undefined when there is none in that span. `anchor` is where a rate counts from.
 */
export function lastDueAt(schedule: Schedule, now: number, options: { readonly notBefore: number; readonly anchor: number }): number | undefined {
  if (schedule.kind === 'rate') {
    // The first time is one period after the anchor, as a new EventBridge rate schedule's.
    if (now < options.anchor + schedule.periodMs) return undefined;
    const due = options.anchor + Math.floor((now - options.anchor) / schedule.periodMs) * schedule.periodMs;
    return due >= options.notBefore ? due : undefined;
  }
  const hoursDesc = [...schedule.hours].sort((a, b) => b - a);
  const minutesDesc = [...schedule.minutes].sort((a, b) => b - a);
  const today = Math.floor(now / DAY) * DAY;
  for (let day = today, i = 0; day + DAY > options.notBefore && i < SEARCH_DAYS; day -= DAY, i++) {
    if (!dayMatches(schedule, day)) continue;
    for (const h of hoursDesc) {
      for (const m of minutesDesc) {
        const t = day + h * 3_600_000 + m * MINUTE;
        if (t > now) continue;
        return t >= options.notBefore ? t : undefined;
      }
    }
  }
  return undefined;
}

/** The first time the schedule is due strictly after `now`, within 5 years; undefined when none. */
export function nextDueAfter(schedule: Schedule, now: number, anchor: number): number | undefined {
  if (schedule.kind === 'rate') {
    if (now < anchor + schedule.periodMs) return anchor + schedule.periodMs;
    return anchor + (Math.floor((now - anchor) / schedule.periodMs) + 1) * schedule.periodMs;
  }
  const hoursAsc = [...schedule.hours].sort((a, b) => a - b);
  const minutesAsc = [...schedule.minutes].sort((a, b) => a - b);
  const today = Math.floor(now / DAY) * DAY;
  for (let day = today, i = 0; i < SEARCH_DAYS; day += DAY, i++) {
    if (!dayMatches(schedule, day)) continue;
    for (const h of hoursAsc) {
      for (const m of minutesAsc) {
        const t = day + h * 3_600_000 + m * MINUTE;
        if (t > now) return t;
      }
    }
  }
  return undefined;
}
