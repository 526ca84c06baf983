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
}

/**
 * The failout alarms, all to one SNS topic (alarm and OK):
 * - `DeadLetters`: the DLQ has a visible message (a request failed transiently `maxReceiveCount` times).
 * - `RequestsErrors`: the Lambda reported an invocation error (Errors, Sum per 5 min ≥ 1).
 * - `RequestsRejected`: the handler's EMF `Rejected` (namespace `failout`, service `failout-requests`).
 * - `BridgeOnFallback`: some replica served from a fallback xDS server in every minute of the threshold.
 * - `BridgeNotReady`: some replica was not ready in every minute of the threshold; a silent bridge
 *   (no EMF line: no task running) counts as not ready.
 */
export class FailoutAlarms extends Construct {
  readonly deadLetters: Alarm;
  readonly requestsErrors: Alarm;
  readonly requestsRejected: Alarm;
  readonly bridgeOnFallback: Alarm;
  readonly bridgeNotReady: Alarm;

  constructor(scope: Construct, id: string, props: FailoutAlarmsProps) {
    super(scope, id);
    const fallbackMinutes = wholeMinutes(props.fallbackThreshold ?? Duration.minutes(10), 'fallbackThreshold');
    const notReadyMinutes = wholeMinutes(props.notReadyThreshold ?? Duration.minutes(5), 'notReadyThreshold');
    const action: IAlarmAction = new SnsAction(props.topic);

    this.deadLetters = new Alarm(this, 'DeadLetters', {
      alarmDescription: 'failout: a change request reached the dead-letter queue; inspect it, fix the cause, redrive',
      metric: props.queue.metricDeadLetters(),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
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
    return [this.deadLetters, this.requestsErrors, this.requestsRejected, this.bridgeOnFallback, this.bridgeNotReady];
  }
}

function wholeMinutes(d: Duration, name: string): number {
  const minutes = d.toMinutes({ integral: false });
  if (!Number.isInteger(minutes) || minutes < 1) throw new Error(`${name} must be a whole number of minutes ≥ 1, got ${d.toHumanString()}`);
  return minutes;
}
