/**
 * The alarm-state port (the safety contract's): what a source says of named CloudWatch alarms. Two
 * questions are asked of it, so it has two methods:
 * - {@link AlarmReader.read}: the state of each name, or `unknown` when the source has no alarm of
 *   that name. The request checks need this (issue 21): a stop alarm that does not exist can never
 *   fire, so a typo must be refused, not taken for "no data".
 * - {@link AlarmStates.states}: the state of each name, a name the source does not know reading as
 *   `INSUFFICIENT_DATA` (CloudWatch's "no verdict"). Enough for "is it firing?" (the drill runner's
 *   start check, the console's cards), and what those callers were built on.
 * Both implementations (`HttpAlarmStates`, lib/alarms/cloudwatch `CloudWatchAlarmStates`) answer both.
 */

/** A CloudWatch alarm state. */
export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/** Every {@link AlarmState}. */
export const ALARM_STATE_VALUES = ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const satisfies readonly AlarmState[];

/** What a source says of one name: the alarm's state, or `unknown` when the source has no alarm of that name. */
export type AlarmReading = AlarmState | 'unknown';

/** Reads alarms, telling an alarm the source does not know from one without data. */
export interface AlarmReader {
  /**
   * Every name given is a key: its state, or `unknown`.
   * @throws AlarmStatesError when the source cannot be read (never a partial answer).
   */
  read(names: readonly string[]): Promise<ReadonlyMap<string, AlarmReading>>;
}

/** Reads alarm states for "is it firing?" questions. */
export interface AlarmStates {
  /**
   * The state of each name (every name given is a key), `INSUFFICIENT_DATA` for a name the source
   * does not know. @throws AlarmStatesError when the source cannot be read.
   */
  states(names: readonly string[]): Promise<ReadonlyMap<string, AlarmState>>;
}

/** A source that answers both questions (what the implementations are). */
export type AlarmSource = AlarmReader & AlarmStates;

/** True for a string that is one of {@link ALARM_STATE_VALUES}. */
export function isAlarmState(value: unknown): value is AlarmState {
  return typeof value === 'string' && (ALARM_STATE_VALUES as readonly string[]).includes(value);
}

/** The readings of `names` from what the source knows: `unknown` for every name it does not. */
export function readingsOf(names: readonly string[], known: ReadonlyMap<string, AlarmState>): Map<string, AlarmReading> {
  return new Map(names.map((n) => [n, known.get(n) ?? 'unknown']));
}

/** Readings as states for "is it firing?": `unknown` reads as `INSUFFICIENT_DATA`. */
export function statesOf(readings: ReadonlyMap<string, AlarmReading>): Map<string, AlarmState> {
  return new Map([...readings].map(([name, reading]) => [name, reading === 'unknown' ? 'INSUFFICIENT_DATA' : reading]));
}
