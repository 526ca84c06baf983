/**
 * Issue 16, drills in the CDK app: the failout-drills Lambda, the EventBridge rule that ticks it every
 * minute (retries and a DLQ), a least-privilege role (SendMessage on the request queue, DescribeAlarms),
 * the alarm on its failures, and no cdk-nag finding of its own.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { actionsOf, byService, nagFindings, roleStatements, synthStack, type Resource } from './helpers';

describe('failout-drills', () => {
  const { stack, template } = synthStack();
  const [fnId, fn] = byService(template, 'failout-drills');
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const requestQueueId = Object.keys(template.findResources('AWS::SQS::Queue', { Properties: Match.objectLike({ RedrivePolicy: Match.anyValue() }) }))[0]!;
  const dlqId = (fn.Properties.DeadLetterConfig as { TargetArn: { 'Fn::GetAtt': [string, string] } }).TargetArn['Fn::GetAtt'][0];

  it('runs the named Node.js 22 runtime on ARM64 in the private subnets, with ZooKeeper, the paths and the queue URL, and no credential', () => {
    const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Timeout: 30, Handler: 'index.handler' });
    expect(env).toMatchObject({ ZK_CONNECT: 'zk1.internal:2181,zk2.internal:2181,zk3.internal:2181', D2_BASE_PATH: '/d2', FAILOUT_REQUESTS_PATH: '/failout/requests', FAILOUT_QUEUE_URL: { Ref: requestQueueId } });
    // Alarm states come from CloudWatch in AWS: no local alarm URL, no ZooKeeper credential.
    expect(Object.keys(env).filter((k) => k === 'FAILOUT_ALARMS_URL' || k.startsWith('ZK_DIGEST') || k.startsWith('ZK_ACL_'))).toEqual([]);
    const subnets = (fn.Properties.VpcConfig as { SubnetIds: Array<{ Ref: string }> }).SubnetIds.map((s) => s.Ref);
    expect(subnets).toHaveLength(2);
    for (const ref of subnets) expect(ref).toMatch(/privateSubnet/);
  });

  it('is ticked every minute by an EventBridge rule, with short retries and the DLQ', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] }, DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } }, RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 120 } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunction', Principal: 'events.amazonaws.com', FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] } });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: fnId }, MaximumRetryAttempts: 0 });
    expect(template.toJSON().Resources[dlqId].Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('has a least-privilege role: SendMessage on the request queue and its DLQ, DescribeAlarms on the alarms, its own log group, ENI actions on "*"', () => {
    const all = roleStatements(template, roleId);
    const sqs = all.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    const cloudwatch = all.filter((s) => actionsOf(s).some((a) => a.startsWith('cloudwatch:')));
    const onStar = all.filter((s) => s.Resource === '*');
    const other = all.flatMap(actionsOf).filter((a) => !['sqs:', 'logs:', 'ec2:', 'cloudwatch:'].some((p) => a.startsWith(p)));

    expect((template.toJSON().Resources[roleId] as Resource).Properties.ManagedPolicyArns ?? []).toEqual([]);
    expect(sqs.flatMap(actionsOf).sort()).toEqual(['sqs:SendMessage', 'sqs:SendMessage']);
    expect(sqs.map((s) => s.Resource)).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [requestQueueId, 'Arn'] }, { 'Fn::GetAtt': [dlqId, 'Arn'] }]));
    expect(cloudwatch.flatMap(actionsOf)).toEqual(['cloudwatch:DescribeAlarms']);
    expect(JSON.stringify(cloudwatch[0]!.Resource)).toMatch(/:cloudwatch:.*:alarm:\*/);
    expect(onStar.flatMap(actionsOf).every((a) => a.startsWith('ec2:'))).toBe(true);
    expect(other).toEqual([]);
  });

  it('alarms to the topic when a tick reaches the DLQ', () => {
    const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      AlarmActions: [{ Ref: topicId }],
    });
  });

  it('leaves no cdk-nag finding of its own', () => {
    const mine = [...nagFindings(stack, 'error'), ...nagFindings(stack, 'warning')].filter((f) => f.includes('FailoutDrills'));
    expect(mine).toEqual([]);
  });
});
