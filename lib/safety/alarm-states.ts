/**
 * Alarm states, as the drill runner reads them (the safety contract's port): the state of each named
 * CloudWatch alarm. Two implementations: CloudWatch `DescribeAlarms` in AWS, and an HTTP client of the
 * local stack's alarm evaluator (`FAILOUT_ALARMS_URL`). A name the source does not know maps to
 * `INSUFFICIENT_DATA` (CloudWatch's word for "no verdict"): only `ALARM` keeps a drill from starting.
 */
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { z } from 'zod';

/** A CloudWatch alarm state. */
export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/** Reads the states of alarms. */
export interface AlarmStates {
  /** The state of each name (every name given is a key); rejects when the source cannot be read. */
  states(names: readonly string[]): Promise<ReadonlyMap<string, AlarmState>>;
}

/** The source could not be read: the caller decides nothing on it (a drill waits for the next tick). */
export class AlarmStatesError extends Error {
  override readonly name = 'AlarmStatesError';
  readonly kind = 'alarmStatesUnavailable' as const;
}

const STATES = ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const;

function complete(names: readonly string[], known: ReadonlyMap<string, AlarmState>): Map<string, AlarmState> {
  return new Map(names.map((n) => [n, known.get(n) ?? 'INSUFFICIENT_DATA']));
}

/** DescribeAlarms takes at most 100 names per call. */
const DESCRIBE_BATCH = 100;

/**
 * CloudWatch `DescribeAlarms` by name (metric and composite alarms); needs `cloudwatch:DescribeAlarms`.
 */
export class CloudWatchAlarmStates implements AlarmStates {
  constructor(private readonly client: Pick<CloudWatchClient, 'send'> = new CloudWatchClient({})) {}

  async states(names: readonly string[]): Promise<ReadonlyMap<string, AlarmState>> {
    const known = new Map<string, AlarmState>();
    const unique = [...new Set(names)];
    for (let i = 0; i < unique.length; i += DESCRIBE_BATCH) {
      const batch = unique.slice(i, i + DESCRIBE_BATCH);
      let out;
      try {
        out = await this.client.send(new DescribeAlarmsCommand({ AlarmNames: batch, AlarmTypes: ['MetricAlarm', 'CompositeAlarm'], MaxRecords: DESCRIBE_BATCH }));
      } catch (err) {
        throw new AlarmStatesError(`CloudWatch DescribeAlarms failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      for (const alarm of [...(out.MetricAlarms ?? []), ...(out.CompositeAlarms ?? [])]) {
        if (alarm.AlarmName !== undefined && (STATES as readonly string[]).includes(alarm.StateValue ?? '')) known.set(alarm.AlarmName, alarm.StateValue as AlarmState);
      }
    }
    return complete(names, known);
  }
}

const httpBodySchema = z.object({
  alarms: z.array(z.object({ name: z.string(), state: z.enum(STATES), since: z.number().optional() })),
});

/** Longest wait for the local evaluator's answer. */
const HTTP_TIMEOUT_MS = 5000;

/**
 * `GET <url>` → `{"alarms":[{"name":"…","state":"OK"|"ALARM"|"INSUFFICIENT_DATA","since":<ms>}]}`: the
 * local stack's alarm evaluator (`FAILOUT_ALARMS_URL`, loopback).
 */
export class HttpAlarmStates implements AlarmStates {
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number = HTTP_TIMEOUT_MS,
  ) {}

  async states(names: readonly string[]): Promise<ReadonlyMap<string, AlarmState>> {
    let json: unknown;
    try {
      const response = await fetch(this.url, { signal: AbortSignal.timeout(this.timeoutMs), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      json = await response.json();
    } catch (err) {
      throw new AlarmStatesError(`could not read alarm states from ${this.url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const parsed = httpBodySchema.safeParse(json);
    if (!parsed.success) throw new AlarmStatesError(`alarm states from ${this.url} are not {"alarms":[{"name","state"}]}: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
    return complete(names, new Map(parsed.data.alarms.map((a) => [a.name, a.state])));
  }
}

/** `FAILOUT_ALARMS_URL` when set (the local stack), else CloudWatch with the SDK's default configuration. */
export function alarmStatesFromEnv(env: Readonly<Record<string, string | undefined>>): AlarmStates {
  const url = env.FAILOUT_ALARMS_URL?.trim();
  return url ? new HttpAlarmStates(url) : new CloudWatchAlarmStates();
}
