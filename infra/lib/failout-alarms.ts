import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { FailoutRequestQueue } from './failout-request-queue';
import type { FailoutRequestsFunction } from './failout-requests-function';
import type { XdsBridgeService } from './xds-bridge-service';

/** Props of {@link FailoutAlarms}. */
export interface FailoutAlarmsProps {
  readonly queue: FailoutRequestQueue;
  readonly requestsFunction: FailoutRequestsFunction;
  readonly bridge: XdsBridgeService;
  /** Where alarms (and their recovery) are sent. */
  readonly topic: ITopic;
  /** How long a bridge may serve from a fallback xDS server before the alarm fires. Default 10 minutes; whole minutes. */
  readonly fallbackThreshold?: Duration;
  /** How long a bridge replica may be not ready (or silent) before the alarm fires. Default 5 minutes; whole minutes. */
  readonly notReadyThreshold?: Duration;
  /** Rejected requests per 5 minutes that fire the alarm. Default 1: every rejection is worth a look. */
  readonly rejectedThreshold?: number;
  /**
   * Age of the request queue's oldest message that fires `BlockedGroup`. Default: the queue's visibility
   * timeout (180 s with the defaults). At least 1 minute, and at most 2 × the visibility timeout less
   * one minute, so the alarm fires while SQS still counts the message (see {@link FailoutAlarms}).
   */
  readonly blockedGroupThreshold?: Duration;
}

/**
 * The failout alarms, all to one SNS topic (alarm and OK):
 * - `DeadLetters`: the DLQ has a visible message (a request failed transiently `maxReceiveCount` times).
 * - `BlockedGroup`: the request queue's oldest message has waited a visibility timeout V (default
 *   threshold V = 6 × the function timeout = 180 s; Maximum per minute, 1 datapoint). The worker
 *   reports a failing record as a partial batch failure, so Lambda `Errors` stays 0, and with
 *   Powertools' FIFO processor the rest of the record's cluster group waits behind it: receives at
 *   about 0, V, 2V, …, the DLQ after `maxReceiveCount` × V (900 s). A healthy message is received
 *   within seconds and deleted within the function timeout, so an age of V means it was received and
 *   handed back at least once, or that nothing is consuming the queue; both deserve a page. The alarm
 *   fires about V + 1–2 minutes in (4–5 minutes), well before the DLQ, and inside the window in which
 *   `ApproximateAgeOfOldestMessage` still counts the message: SQS leaves a message out of the metric
 *   after its third receive (at about 2V), hence the upper bound on {@link FailoutAlarmsProps.blockedGroupThreshold}.
 * - `RequestsErrors`: the Lambda reported an invocation error (Errors, Sum per 5 min ≥ 1).
 * - `RequestsRejected`: the handler's EMF `Rejected` (namespace `failout`, service `failout-requests`).
 * - `UnreadableFailoutRemoved`: the handler's EMF `UnreadableFailoutRemoved`: a restore removed a
 *   cluster's `failoutProperties` that no reader could read. Another tool wrote them (failout writes
 *   only what its codec reads), and D2 clients had kept the last good failout meanwhile: find the tool.
 * - `UnreadableRecord`: the handler's EMF `UnreadableRecord`: a redelivery found its request's record
 *   unreadable and was acknowledged as a duplicate (the record exists only if the request was handled).
 *   Only a hand edit or another tool writes such a record, and the request's outcome cannot be shown.
 * - `AlarmsUnchecked`: the handler's EMF `AlarmsUnchecked`: a request was applied without its alarms
 *   checked (CloudWatch `DescribeAlarms` did not answer). A stop alarm already in ALARM would never
 *   stop that failout (EventBridge sends only state changes), so someone should look at its alarms now.
 * - `BridgeOnFallback`: some replica served from a fallback xDS server in every minute of the threshold.
 * - `BridgeNotReady`: some replica was not ready in every minute of the threshold; a silent bridge
 *   (no EMF line: no task running) counts as not ready.
 */
export class FailoutAlarms extends Construct {
  readonly deadLetters: Alarm;
  readonly blockedGroup: Alarm;
  readonly requestsErrors: Alarm;
  readonly requestsRejected: Alarm;
  readonly unreadableFailoutRemoved: Alarm;
  readonly unreadableRecord: Alarm;
  readonly alarmsUnchecked: Alarm;
  readonly bridgeOnFallback: Alarm;
  readonly bridgeNotReady: Alarm;

  constructor(scope: Construct, id: string, props: FailoutAlarmsProps) {
    super(scope, id);
    const fallbackMinutes = wholeMinutes(props.fallbackThreshold ?? Duration.minutes(10), 'fallbackThreshold');
    const notReadyMinutes = wholeMinutes(props.notReadyThreshold ?? Duration.minutes(5), 'notReadyThreshold');
    const blockedSeconds = blockedGroupSeconds(props.blockedGroupThreshold ?? props.queue.visibilityTimeout, props.queue.visibilityTimeout);
    const action: IAlarmAction = new SnsAction(props.topic);

    this.deadLetters = new Alarm(this, 'DeadLetters', {
      alarmDescription: 'failout: a change request reached the dead-letter queue; inspect it, fix the cause, redrive',
      metric: props.queue.metricDeadLetters(),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.blockedGroup = new Alarm(this, 'BlockedGroup', {
      alarmDescription:
        `failout: a change request has waited ${blockedSeconds} s in the queue (visibility timeout ${props.queue.visibilityTimeout.toSeconds()} s): ` +
        'its cluster’s FIFO group is blocked behind a failing request, or nothing consumes the queue; see the failout-requests logs before it reaches the DLQ',
      metric: props.queue.metricOldestMessageAge(),
      threshold: blockedSeconds,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // An empty, idle queue may report no datapoint at all.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.requestsErrors = new Alarm(this, 'RequestsErrors', {
      alarmDescription: 'failout: the failout-requests Lambda reported invocation errors',
      metric: props.requestsFunction.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.requestsRejected = new Alarm(this, 'RequestsRejected', {
      alarmDescription: 'failout: change requests were rejected (see the Rejected metric by reason and the request records)',
      metric: props.requestsFunction.metricRequests('Rejected'),
      threshold: props.rejectedThreshold ?? 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.unreadableFailoutRemoved = new Alarm(this, 'UnreadableFailoutRemoved', {
      alarmDescription:
        "failout: a restore removed a cluster's failoutProperties that no reader could read; a tool other than failout writes them " +
        '(the record says unreadableFailout; see the failout-requests warning for the cluster)',
      metric: props.requestsFunction.metricRequests('UnreadableFailoutRemoved'),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.unreadableRecord = new Alarm(this, 'UnreadableRecord', {
      alarmDescription:
        "failout: a redelivered request's record could not be read (acknowledged as a duplicate); something other than failout wrote the record " +
        '(see the failout-requests warning for the request id; failout request <id> says why)',
      metric: props.requestsFunction.metricRequests('UnreadableRecord'),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarmsUnchecked = new Alarm(this, 'AlarmsUnchecked', {
      alarmDescription:
        'failout: a request was applied without its alarms checked (DescribeAlarms did not answer); a stop alarm already in ALARM will not stop it ' +
        '(the record says alarmsUnchecked; see the failout-requests warning for the request id and check its alarms)',
      metric: props.requestsFunction.metricRequests('AlarmsUnchecked'),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.bridgeOnFallback = new Alarm(this, 'BridgeOnFallback', {
      alarmDescription: `failout: the xds-bridge has served from a fallback xDS server for ${fallbackMinutes} minutes; check the primary control plane`,
      metric: props.bridge.metricFallbackActive(),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: fallbackMinutes,
      datapointsToAlarm: fallbackMinutes,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.bridgeNotReady = new Alarm(this, 'BridgeNotReady', {
      alarmDescription: `failout: an xds-bridge replica has not been ready (or not reporting) for ${notReadyMinutes} minutes`,
      metric: props.bridge.metricReady(),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: notReadyMinutes,
      datapointsToAlarm: notReadyMinutes,
      treatMissingData: TreatMissingData.BREACHING,
    });
    for (const alarm of this.all()) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
  }

  /** Every alarm of this construct. */
  all(): Alarm[] {
    return [this.deadLetters, this.blockedGroup, this.requestsErrors, this.requestsRejected, this.unreadableFailoutRemoved, this.unreadableRecord, this.alarmsUnchecked, this.bridgeOnFallback, this.bridgeNotReady];
  }
}

/** The blocked-group threshold in seconds, checked against the window in which SQS counts a blocked message. */
function blockedGroupSeconds(threshold: Duration, visibility: Duration): number {
  const seconds = threshold.toSeconds({ integral: false });
  // One 1-minute period to evaluate; the message drops out of the metric after its third receive (≈ 2 × visibility).
  const latest = 2 * visibility.toSeconds() - 60;
  if (!Number.isInteger(seconds) || seconds < 60 || seconds > latest) {
    throw new Error(`blockedGroupThreshold must be whole seconds from 60 to ${latest} (2 × the visibility timeout less a minute), got ${threshold.toHumanString()}`);
  }
  return seconds;
}

/** `d` in whole minutes (≥ 1), for alarms evaluated per minute. @throws naming `name` otherwise. */
export function wholeMinutes(d: Duration, name: string): number {
  const minutes = d.toMinutes({ integral: false });
  if (!Number.isInteger(minutes) || minutes < 1) throw new Error(`${name} must be a whole number of minutes ≥ 1, got ${d.toHumanString()}`);
  return minutes;
}
