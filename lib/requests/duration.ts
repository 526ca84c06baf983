/**
 * ISO-8601 durations (`PT2H`, `P1DT30M`, `PT90S`, `P1W`, fractions on the smallest unit as in
 * `PT1.5H`) to milliseconds. Years and months are refused: their length depends on the calendar, and
 * a failout window is at most days long. Also accepts the short forms the CLI and the environment use:
 * `90m`, `2h`, `1.5h`, `3d`, `500ms`, `30s`.
 */

const ISO = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const SHORT = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const UNIT_MS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };

/**
 * Milliseconds of an ISO-8601 or short duration, or undefined when `text` is neither or its digits
 * overflow a double. A huge finite duration is returned as is: the window check says how far too long.
 */
export function parseDuration(text: string): number | undefined {
  const ms = parseDurationMs(text);
  return ms !== undefined && Number.isFinite(ms) ? ms : undefined;
}

function parseDurationMs(text: string): number | undefined {
  const short = SHORT.exec(text);
  if (short) return Math.round(Number(short[1]) * UNIT_MS[short[2]!]!);
  const iso = ISO.exec(text);
  if (!iso || text === 'P' || text.endsWith('T')) return undefined;
  const [, w, d, h, m, s] = iso;
  const parts = [w, d, h, m, s];
  // ISO 8601 allows a fraction only on the smallest unit given.
  const lastGiven = parts.reduce((last, v, i) => (v === undefined ? last : i), -1);
  if (lastGiven < 0 || parts.some((v, i) => v?.includes('.') && i !== lastGiven)) return undefined;
  const ms = [7 * DAY, DAY, HOUR, MINUTE, SECOND].reduce((sum, unit, i) => sum + Number(parts[i] ?? 0) * unit, 0);
  return Math.round(ms);
}

/** `PT72H` style text for a whole number of milliseconds (for messages). */
export function formatDuration(ms: number): string {
  if (ms % HOUR === 0) return `${ms / HOUR}h`;
  if (ms % MINUTE === 0) return `${ms / MINUTE}m`;
  return `${ms / SECOND}s`;
}
