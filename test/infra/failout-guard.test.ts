/**
 * Issue 16, stop conditions in the CDK app: the failout-guard Lambda, the EventBridge rule on
 * CloudWatch alarms going to ALARM (with retries and a DLQ), a least-privilege role, and the alarm on
 * the guard's failures.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { actionsOf, byService, roleStatements, synthStack, type Resource } from './helpers';

describe('failout-guard (stop conditions)', () => {
  const { template } = synthStack();
  const [fnId, fn] = byService(template, 'failout-guard');
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const requestQueueId = Object.keys(template.findResources('AWS::SQS::Queue', { Properties: Match.objectLike({ RedrivePolicy: Match.anyValue() }) }))[0]!;
  const dlqId = (fn.Properties.DeadLetterConfig as { TargetArn: { 'Fn::GetAtt': [string, string] } }).TargetArn['Fn::GetAtt'][0];

  it('runs the named Node.js 22 runtime on ARM64 in the private subnets, with ZooKeeper, the D2 base and the queue URL, and no credential', () => {
    // Act
    const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const subnets = (fn.Properties.VpcConfig as { SubnetIds: Array<{ Ref: string }> }).SubnetIds.map((s) => s.Ref);

    // Assess
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Timeout: 30 });
    expect(env).toMatchObject({ ZK_CONNECT: 'zk1.internal:2181,zk2.internal:2181,zk3.internal:2181', D2_BASE_PATH: '/d2', FAILOUT_QUEUE_URL: { Ref: requestQueueId } });
    expect(Object.keys(env).filter((k) => k.startsWith('ZK_DIGEST') || k.startsWith('ZK_ACL_'))).toEqual([]);
    expect(subnets).toHaveLength(2);
    for (const ref of subnets) expect(ref).toMatch(/privateSubnet/);
  });

  it('is the target of a rule on every CloudWatch alarm going to ALARM, with retries and the DLQ', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['aws.cloudwatch'], 'detail-type': ['CloudWatch Alarm State Change'], detail: { state: { value: ['ALARM'] } } },
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [fnId, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 3600 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunction', Principal: 'events.amazonaws.com', FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] } });
  });

  it('retries its own errors twice within an hour, then sends the event to the same encrypted DLQ', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: fnId }, MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 });
    expect(template.toJSON().Resources[dlqId].Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('has a least-privilege role: SendMessage on the request queue and its DLQ only, its own log group, ENI actions on "*", nothing else', () => {
    // Act
    const all = roleStatements(template, roleId);
    const sqs = all.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    const onStar = all.filter((s) => s.Resource === '*');
    const logs = all.filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
    const other = all.flatMap(actionsOf).filter((a) => !a.startsWith('sqs:') && !a.startsWith('logs:') && !a.startsWith('ec2:'));

    // Assess
    expect((template.toJSON().Resources[roleId] as Resource).Properties.ManagedPolicyArns ?? []).toEqual([]);
    expect(sqs.flatMap(actionsOf).sort()).toEqual(['sqs:SendMessage', 'sqs:SendMessage']);
    expect(sqs.map((s) => s.Resource)).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [requestQueueId, 'Arn'] }, { 'Fn::GetAtt': [dlqId, 'Arn'] }]));
    expect(onStar.flatMap(actionsOf).every((a) => a.startsWith('ec2:'))).toBe(true);
    expect(logs.flatMap(actionsOf).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(other).toEqual([]);
  });

  it('may reach ZooKeeper and HTTPS only', () => {
    // Act
    const sgId = (fn.Properties.VpcConfig as { SecurityGroupIds: Array<{ 'Fn::GetAtt': [string, string] }> }).SecurityGroupIds[0]!['Fn::GetAtt'][0];
    const sg = template.toJSON().Resources[sgId] as Resource;
    const inline = (sg.Properties.SecurityGroupEgress as Array<Record<string, unknown>>).map((r) => `${String(r.CidrIp)}:${String(r.FromPort)}`);

    // Assess
    expect(inline).toEqual(['0.0.0.0/0:443']);
    template.hasResourceProperties('AWS::EC2::SecurityGroupEgress', { GroupId: { 'Fn::GetAtt': [sgId, 'GroupId'] }, DestinationSecurityGroupId: 'sg-0123456789abcdef0', FromPort: 2181, ToPort: 2181 });
  });

  it('alarms to the topic when an alarm event reaches the DLQ', () => {
    const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      Threshold: 1,
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
  });
});
