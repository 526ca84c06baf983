import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { FailoutQueueSenderFunction, type FailoutQueueSenderProps } from './failout-function';
import type { ZooKeeperAccess } from './network';

/** The CloudWatch namespace and `service` dimension of the guard's EMF metrics (`RestoresSent`, `MalformedEvents`, …). */
export const GUARD_METRICS = { namespace: 'failout', service: 'failout-guard' } as const;

/** Props of {@link FailoutGuard}. */
export interface FailoutGuardProps extends FailoutQueueSenderProps {
  /** ZooKeeper, read without a credential (cluster nodes are world-readable). */
  readonly zooKeeper: ZooKeeperAccess;
}

/**
 * Stop conditions on AWS (issue 16): the `failout-guard` Lambda (`functions/failout-guard/handler.ts`)
 * and the EventBridge rule that hands it every CloudWatch alarm of the account that goes to ALARM
 * (`source: aws.cloudwatch`, `detail-type: CloudWatch Alarm State Change`, `detail.state.value: ALARM`).
 * The guard finds the failouts naming the alarm in `stopAlarms` and sends `restore` requests to the
 * request queue.
 *
 * Delivery: EventBridge invokes asynchronously, retrying its own delivery failures (up to 8 times within
 * an hour); the function retries its own errors twice (ZooKeeper out of reach, a restore not sent; the
 * same request ids each time). Events that still fail go to one encrypted DLQ (14 days) and raise the
 * `GuardFailures` alarm: a stop that did not happen is worth a page.
 *
 * Least privilege: the role writes its own log group, manages the VPC network interfaces (the one
 * `*`), may `sqs:SendMessage` to the request queue (SQS-managed encryption: no KMS grant; a customer
 * key, when the queue has one, gets `kms:GenerateDataKey`/`kms:Decrypt`) and to its DLQ, nothing else.
 * It holds no ZooKeeper credential. The set-up shared with the drills is {@link FailoutQueueSenderFunction}'s.
 */
export class FailoutGuard extends FailoutQueueSenderFunction {
  constructor(scope: Construct, id: string, props: FailoutGuardProps) {
    super(scope, id, props, {
      name: 'failout-guard',
      metrics: GUARD_METRICS,
      roleDescription: 'failout-guard: its own log group, VPC network interfaces, SendMessage to the request queue and its DLQ',
      sendPolicyName: 'SendRestores',
      environment: {},
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      ruleId: 'AlarmRule',
      rule: {
        description: 'failout stop conditions: every CloudWatch alarm that goes to ALARM, to the failout-guard Lambda',
        eventPattern: { source: ['aws.cloudwatch'], detailType: ['CloudWatch Alarm State Change'], detail: { state: { value: ['ALARM'] } } },
      },
      targetRetryAttempts: 8,
      targetMaxEventAge: Duration.hours(1),
      // The DLQ has a message: an alarm event the guard failed on after every retry, a failout that may not have been stopped.
      alarmId: 'GuardFailures',
      alarmDescription: 'failout: the stop-conditions guard failed on an alarm event after every retry (see its DLQ and logs): a failout naming that alarm may still be active; restore it by hand',
      deadLetterReason: "This queue is itself the dead-letter queue of the guard (the EventBridge target and the function's asynchronous invocations): a DLQ of a DLQ would only hide what the alarm on it reports.",
    });
  }
}
