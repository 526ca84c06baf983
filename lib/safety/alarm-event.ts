import { z } from 'zod';
import { SafetyError } from './errors';

/**
 * The CloudWatch "Alarm State Change" event as EventBridge delivers it (and as the local stack's alarm
 * evaluator emits it), the input of the stop-conditions guard:
 *
 * ```json
 * {"version":"0","id":"…","detail-type":"CloudWatch Alarm State Change","source":"aws.cloudwatch",
 *  "account":"…","time":"2026-11-30T16:00:00Z","region":"us-east-1","resources":["arn:aws:cloudwatch:…:alarm:<name>"],
 *  "detail":{"alarmName":"<name>","state":{"value":"ALARM","reason":"…","timestamp":"…"},
 *            "previousState":{"value":"OK","reason":"…","timestamp":"…"},"configuration":{…}}}
 * ```
 *
 * Only what the guard uses is checked; every other key (`account`, `configuration`, …) is allowed and
 * ignored, so a field AWS adds later never turns a real alarm into a "malformed" one.
 */

/** The three states of a CloudWatch alarm. */
export const ALARM_STATES = ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const;

/** One of {@link ALARM_STATES}. */
export type AlarmStateValue = (typeof ALARM_STATES)[number];

/** `detail-type` of the events the guard takes. */
export const ALARM_EVENT_DETAIL_TYPE = 'CloudWatch Alarm State Change';

/** `source` of the events the guard takes. */
export const ALARM_EVENT_SOURCE = 'aws.cloudwatch';

/** Longest event id or alarm name taken (CloudWatch allows 255 for a name); beyond it the event is malformed. */
const MAX_TEXT = 1024;

const stateSchema = z.looseObject({
  value: z.enum(ALARM_STATES),
  reason: z.string().optional(),
  timestamp: z.string().optional(),
});

const eventSchema = z.looseObject({
  version: z.string().optional(),
  id: z.string().min(1).max(MAX_TEXT),
  'detail-type': z.literal(ALARM_EVENT_DETAIL_TYPE),
  source: z.literal(ALARM_EVENT_SOURCE),
  time: z.string().max(MAX_TEXT).optional(),
  region: z.string().optional(),
  resources: z.array(z.string()).optional(),
  detail: z.looseObject({
    alarmName: z.string().min(1).max(MAX_TEXT),
    state: stateSchema,
    previousState: stateSchema.optional(),
  }),
});

/** An alarm state change, as far as the guard reads it. */
export interface AlarmStateChange {
  /** EventBridge's event id: the same on every delivery of one event. */
  readonly id: string;
  /** The alarm's name (`detail.alarmName`). */
  readonly alarmName: string;
  /** The new state. */
  readonly state: AlarmStateValue;
  /** The state before, when the event says. */
  readonly previousState?: AlarmStateValue;
  /** Why CloudWatch changed the state (`detail.state.reason`), when given. */
  readonly reason?: string;
  /**
   * When the state changed: `detail.state.timestamp`, else the event's `time` (as given; ISO-8601).
   * Undefined when the event has neither.
   */
  readonly changedAt?: string;
}

/**
 * The result of {@link parseAlarmEvent}; a failure is a `SafetyError` of kind `malformedEvent` saying
 * what is wrong, field by field.
 */
export type AlarmEventResult = { readonly ok: true; readonly event: AlarmStateChange } | { readonly ok: false; readonly error: SafetyError };

/**
 * Reads an alarm state change event. Never throws: anything that is not such an event (another
 * source or detail type, a missing alarm name, an unknown state, not an object, a JSON string that
 * does not parse) is `ok: false` with an error naming every problem (`detail.state.value: …`).
 *
 * @param input - the event as Lambda hands it over (an object), or its JSON text.
 */
export function parseAlarmEvent(input: unknown): AlarmEventResult {
  let json = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch (e) {
      return malformed(`the event is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const parsed = eventSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((i) => `${i.path.length === 0 ? '(event)' : i.path.join('.')}: ${i.message}`);
    return malformed(`not a CloudWatch alarm state change event: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  const changedAt = e.detail.state.timestamp ?? e.time;
  return {
    ok: true,
    event: {
      id: e.id,
      alarmName: e.detail.alarmName,
      state: e.detail.state.value,
      ...(e.detail.previousState === undefined ? {} : { previousState: e.detail.previousState.value }),
      ...(e.detail.state.reason === undefined ? {} : { reason: e.detail.state.reason }),
      ...(changedAt === undefined ? {} : { changedAt }),
    },
  };
}

function malformed(message: string): AlarmEventResult {
  return { ok: false, error: new SafetyError('malformedEvent', message) };
}

/** Options of {@link alarmStateChangeEvent}. */
export interface AlarmEventInit {
  /** The event id (EventBridge makes a UUID). */
  readonly id: string;
  readonly alarmName: string;
  readonly state: AlarmStateValue;
  readonly previousState: AlarmStateValue;
  /** Epoch ms of the change. */
  readonly at: number;
  readonly reason: string;
  /** Default `us-east-1`. */
  readonly region?: string;
  /** Default `000000000000`. */
  readonly account?: string;
}

/**
 * The event JSON CloudWatch sends through EventBridge for a state change: what the local stack's
 * alarm evaluator emits into the guard, so the handler reads the same shape in both places.
 */
export function alarmStateChangeEvent(init: AlarmEventInit): Record<string, unknown> {
  const region = init.region ?? 'us-east-1';
  const account = init.account ?? '000000000000';
  const time = new Date(init.at).toISOString();
  return {
    version: '0',
    id: init.id,
    'detail-type': ALARM_EVENT_DETAIL_TYPE,
    source: ALARM_EVENT_SOURCE,
    account,
    time: time.replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:cloudwatch:${region}:${account}:alarm:${init.alarmName}`],
    detail: {
      alarmName: init.alarmName,
      state: { value: init.state, reason: init.reason, timestamp: time.replace(/Z$/, '+0000') },
      previousState: { value: init.previousState, reason: '', timestamp: time.replace(/Z$/, '+0000') },
    },
  };
}
