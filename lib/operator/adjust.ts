/**
 * Adjusting a running failout (issue 24, item 6), the operator's half: the bodies of `failout extend`,
 * `failout ramp hold|resume|advance <cluster>` and `failout amend <cluster>`, built once for the CLI and the console
 * (the face exports this file as the namespace `adjust`). They travel the rest of the one path as
 * every cluster request does: `validateLocally`, the judge, `sendChangeRequest`, `waitForOutcome`.
 */
import { inputError } from './errors';
import type { SendableBody } from './request-bodies';

export { buildExtendBody } from './request-bodies';

/** The ramp actions, by the word `failout ramp` takes. */
export const RAMP_COMMANDS = Object.freeze({ hold: 'rampHold', resume: 'rampResume', advance: 'rampAdvance' } as const);

/** A word of `failout ramp <word>`. */
export type RampCommand = keyof typeof RAMP_COMMANDS;

/** The body of a ramp action or an amend (version 1, ARCHITECTURE "Change request"). */
export interface AdjustBody extends SendableBody {
  readonly version: 1;
  readonly requestId: string;
  readonly action: (typeof RAMP_COMMANDS)[RampCommand] | 'amend';
  readonly cluster: string;
  readonly requestedBy: string;
  readonly reason?: string;
  readonly addStopAlarms?: readonly string[];
  readonly removeStopAlarms?: readonly string[];
}

/** Who and why, as `--by` and `--reason` give them. */
export interface AdjustOptions {
  reason?: string;
  by?: string;
  /** Override the judgement's peer-state, capacity and stranding checks (recorded), as for `out --force`. */
  force?: boolean;
}

/** What every body is built with: its id, the time, and the default requester. */
export interface AdjustContext {
  readonly requestId: string;
  readonly requestedBy: string;
}

/** The body of `failout ramp hold|resume|advance <cluster>`. */
export function buildRampBody(command: RampCommand, cluster: string, options: AdjustOptions, context: AdjustContext): AdjustBody {
  const action = RAMP_COMMANDS[command];
  return { version: 1, requestId: context.requestId, action, cluster, requestedBy: options.by ?? context.requestedBy, ...(options.reason === undefined ? {} : { reason: options.reason }), ...(options.force === true ? { force: true } : {}) };
}

/**
 * The body of `failout amend <cluster> --stop-alarm <name>… --remove-stop-alarm <name>…`. Names are
 * sent as given: the worker's own rules (`validateLocally`) name a bad one before anything is sent.
 * @throws OperatorError `input` when no alarm is given to add or remove.
 */
export function buildAmendBody(cluster: string, options: AdjustOptions & { stopAlarm?: string[]; removeStopAlarm?: string[] }, context: AdjustContext): AdjustBody {
  const add = options.stopAlarm ?? [];
  const remove = options.removeStopAlarm ?? [];
  if (add.length === 0 && remove.length === 0) {
    throw inputError('say what to change: --stop-alarm <name> to add a stop alarm, --remove-stop-alarm <name> to remove one (repeat either)', 'stopAlarm');
  }
  return {
    version: 1,
    requestId: context.requestId,
    action: 'amend',
    cluster,
    requestedBy: options.by ?? context.requestedBy,
    ...(add.length === 0 ? {} : { addStopAlarms: [...add] }),
    ...(remove.length === 0 ? {} : { removeStopAlarms: [...remove] }),
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    ...(options.force === true ? { force: true } : {}),
  };
}
