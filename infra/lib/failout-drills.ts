import { Duration } from 'aws-cdk-lib';
import { Schedule } from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { acknowledgeDescribeAlarms, describeAlarmsStatement, FailoutQueueSenderFunction, type FailoutQueueSenderProps } from './failout-function';
import type { ZooKeeperAccess } from './network';

/** The CloudWatch namespace and `service` dimension of the drills' EMF metrics (`RunsStarted`, `RunsSkipped`, `DrillErrors`). */
export const DRILLS_METRICS = { namespace: 'failout', service: 'failout-drills' } as const;

/** Props of {@link FailoutDrills}. */
export interface FailoutDrillsProps extends FailoutQueueSenderProps {
  /** ZooKeeper, read without a credential (drills, records and clusters are world-readable). */
  readonly zooKeeper: ZooKeeperAccess;
  /** `FAILOUT_REQUESTS_PATH`. Default `/failout/requests`. */
  readonly requestsPath?: string;
  /** How often the runner ticks. Default every minute (a cron drill is due on a whole minute). */
  readonly tick?: Duration;
}

/**
 * Drills on AWS (issue 16, "Drills"): the `failout-drills` Lambda (`functions/failout-drills/handler.ts`)
 * and an EventBridge rule that ticks it every minute. Each tick reads the drills from ZooKeeper, the
 * alarm states from CloudWatch (`DescribeAlarms`), and sends each due run's failout or `skipDrill` to
 * the request queue. `{"runNow": "<name>"}` (a manual `aws lambda invoke`) runs one drill now.
 *
 * Delivery: a tick that fails is not worth retrying for long (the next minute's tick decides afresh,
 * with the same run ids), so EventBridge retries twice within 2 minutes and the function not at all;
 * what still fails goes to an encrypted DLQ and raises the `DrillFailures` alarm.
 *
 * Least privilege: its own log group, the VPC network interfaces (the one `*`), `sqs:SendMessage` to
 * the request queue (and the queue's customer key, when it has one) and to its DLQ, and
 * `cloudwatch:DescribeAlarms` on this account's and region's alarms. No ZooKeeper credential. The
 * set-up shared with the guard is {@link FailoutQueueSenderFunction}'s.
 */
export class FailoutDrills extends FailoutQueueSenderFunction {
  constructor(scope: Construct, id: string, props: FailoutDrillsProps) {
    super(scope, id, props, {
      name: 'failout-drills',
      metrics: DRILLS_METRICS,
      roleDescription: 'failout-drills: its own log group, VPC network interfaces, SendMessage to the request queue and its DLQ, DescribeAlarms',
      sendPolicyName: 'SendRuns',
      // Every alarm of this account and region: the alarms are named by the drills, at run time.
      policies: { ReadAlarms: [describeAlarmsStatement(scope)] },
      environment: { FAILOUT_REQUESTS_PATH: props.requestsPath ?? '/failout/requests' },
      retryAttempts: 0,
      ruleId: 'TickRule',
      rule: {
        description: 'failout drills: tick the failout-drills Lambda, which starts (or skips) the drills that came due',
        schedule: Schedule.rate(props.tick ?? Duration.minutes(1)),
      },
      targetRetryAttempts: 2,
      targetMaxEventAge: Duration.minutes(2),
      // The DLQ has a message: a tick failed after every retry; drills due then may not have run or been recorded skipped.
      alarmId: 'DrillFailures',
      alarmDescription: "failout: the drills runner failed on a tick after every retry (see its DLQ and logs): a drill due then may not have run; check `failout drill history`",
      deadLetterReason: "This queue is itself the dead-letter queue of the drills' ticks (the EventBridge target and the function's asynchronous invocations): a DLQ of a DLQ would only hide what the alarm on it reports.",
    });
    acknowledgeDescribeAlarms(this.role, 'drills (their definitions live in ZooKeeper)');
  }
}
