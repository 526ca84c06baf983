import { z } from 'zod';
import { hideUrlCredentials } from '../text';
import { ALARM_STATE_VALUES, readingsOf, statesOf, type AlarmReading, type AlarmSource, type AlarmState } from './alarm-states';
import { AlarmStatesError, messageOf } from './errors';

/**
 * The body of `GET <url>`: every alarm the server knows, `{"alarms":[{"name","state","since"}]}`. A
 * name it does not list is an alarm it does not know (the local evaluator lists every alarm it has).
 */
const httpBodySchema = z.object({
  alarms: z.array(z.object({ name: z.string(), state: z.enum(ALARM_STATE_VALUES), since: z.number().optional() })),
});

/** Longest wait for the server's answer. */
const HTTP_TIMEOUT_MS = 5000;

/**
 * `GET <url>` → `{"alarms":[{"name":"…","state":"OK"|"ALARM"|"INSUFFICIENT_DATA","since":<ms>}]}`:
 * the local stack's alarm evaluator (`FAILOUT_ALARMS_URL`, loopback), or any server of that shape.
 * Uses the global `fetch`, so this face loads no HTTP package.
 */
export class HttpAlarmStates implements AlarmSource {
  /** The URL as messages show it: a `user:password@` in it becomes `***@`. */
  private readonly shown: string;
  /** True when the URL carries credentials: never fetched (fetch refuses it, quoting them). */
  private readonly hasCredentials: boolean;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number = HTTP_TIMEOUT_MS,
  ) {
    this.shown = hideUrlCredentials(url);
    this.hasCredentials = this.shown !== url;
  }

  async read(names: readonly string[]): Promise<ReadonlyMap<string, AlarmReading>> {
    // Every message of this source is logged (the worker's warning, the drill runner's) or printed.
    if (this.hasCredentials) throw new AlarmStatesError(`could not read alarm states from ${this.shown}: put no credentials in the alarms URL (they would be shown)`);
    let json: unknown;
    try {
      const response = await fetch(this.url, { signal: AbortSignal.timeout(this.timeoutMs), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      json = await response.json();
    } catch (err) {
      throw new AlarmStatesError(`could not read alarm states from ${this.shown}: ${messageOf(err)}`, { cause: err });
    }
    const parsed = httpBodySchema.safeParse(json);
    if (!parsed.success) {
      throw new AlarmStatesError(`alarm states from ${this.shown} are not {"alarms":[{"name","state"}]}: ${parsed.error.issues[0]?.message ?? 'malformed'}`, {}, 'alarmStatesMalformed');
    }
    return readingsOf(names, new Map<string, AlarmState>(parsed.data.alarms.map((a) => [a.name, a.state])));
  }

  async states(names: readonly string[]): Promise<ReadonlyMap<string, AlarmState>> {
    return statesOf(await this.read(names));
  }
}
