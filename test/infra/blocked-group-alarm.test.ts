import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { synthStack } from './helpers';

type Resource = { Type: string; Properties: Record<string, unknown> };

// A FIFO group blocked by a failing head message (issue 14): the worker reports a partial batch
// failure, so Lambda `Errors` stays 0, and the group waits maxReceiveCount × the visibility timeout
// before the DLQ alarm can see anything. The age of the oldest message sees it one timeout in.

function requestQueue(template: ReturnType<typeof synthStack>['template']): { id: string; visibility: number; maxReceiveCount: number } {
  const found = Object.entries(template.findResources('AWS::SQS::Queue', { Properties: Match.objectLike({ RedrivePolicy: Match.anyValue() }) })) as Array<[string, Resource]>;
  expect(found).toHaveLength(1);
  const [id, queue] = found[0]!;
  return { id, visibility: queue.Properties.VisibilityTimeout as number, maxReceiveCount: (queue.Properties.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount };
}

function blockedGroupAlarm(template: ReturnType<typeof synthStack>['template']): Resource {
  const found = Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: Match.objectLike({ MetricName: 'ApproximateAgeOfOldestMessage' }) })) as Resource[];
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('blocked FIFO group alarm', () => {
  it('alarms on the request queue’s oldest message once it has waited one visibility timeout, to the alarm topic', () => {
    // Prepare
    const { template } = synthStack();
    const queue = requestQueue(template);
    const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0];

    // Act
    const alarm = blockedGroupAlarm(template);

    // Assess
    expect(alarm.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue.id, 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: queue.visibility,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
    expect(queue.visibility).toBe(180);
  });

  it('fires before the DLQ sees the message and while SQS still counts it (before its third receive)', () => {
    // Prepare
    const { template } = synthStack();
    const queue = requestQueue(template);

    // Act
    const alarm = blockedGroupAlarm(template);
    const firesBy = (alarm.Properties.Threshold as number) + (alarm.Properties.Period as number) * (alarm.Properties.EvaluationPeriods as number);

    // Assess: receives at about 0, V and 2V; SQS leaves a message out of the metric after three.
    expect(firesBy).toBeLessThan(queue.maxReceiveCount * queue.visibility);
    expect(firesBy).toBeLessThanOrEqual(2 * queue.visibility);
  });

  it('takes a threshold override', () => {
    const { template } = synthStack({ alarms: { email: 'oncall@example.com', blockedGroupThreshold: Duration.minutes(4) } });

    expect(blockedGroupAlarm(template).Properties.Threshold).toBe(240);
  });

  it.each<[string, Duration]>([
    ['shorter than a minute', Duration.seconds(30)],
    ['that leaves no minute before SQS stops counting the message (2 × the visibility timeout)', Duration.minutes(6)],
  ])('refuses a threshold %s', (_name, threshold) => {
    expect(() => synthStack({ alarms: { blockedGroupThreshold: threshold } })).toThrow(/blockedGroupThreshold/);
  });
});
