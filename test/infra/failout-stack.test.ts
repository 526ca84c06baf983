import { Match, type Template } from 'aws-cdk-lib/assertions';
import { ACL_IDS, BRIDGE_SECRET_ARN, synthStack, WRITER_SECRET_ARN } from './helpers';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

function only(template: Template, type: string, props: Record<string, unknown> = {}): Resource {
  const found = Object.values(template.findResources(type, props ? { Properties: Match.objectLike(props) } : undefined)) as Resource[];
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The failout-requests function (the stack has others: the failout-guard). */
function requestsFunction(template: Template): Resource {
  return only(template, 'AWS::Lambda::Function', { Environment: Match.objectLike({ Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'failout-requests' }) }) });
}

function statements(template: Template): Statement[] {
  const policies = [...Object.values(template.findResources('AWS::IAM::Policy')), ...Object.values(template.findResources('AWS::IAM::ManagedPolicy'))] as Resource[];
  return policies.flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

describe('FailoutStack (default props: sandbox VPC, ZooKeeper by security group)', () => {
  const { template } = synthStack();

  describe('request queue', () => {
    it('is FIFO without content-based deduplication, encrypted, and redrives to a FIFO DLQ after 5 receives', () => {
      const dlq = template.findResources('AWS::SQS::Queue', { Properties: Match.objectLike({ MessageRetentionPeriod: 14 * 24 * 3600 }) });
      const [dlqId] = Object.keys(dlq);
      expect(dlqId).toBeDefined();
      template.hasResourceProperties('AWS::SQS::Queue', {
        FifoQueue: true,
        ContentBasedDeduplication: false,
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      template.hasResourceProperties('AWS::SQS::Queue', {
        FifoQueue: true,
        ContentBasedDeduplication: false,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
      });
    });

    it('has a visibility timeout of at least six times the function timeout', () => {
      const fn = requestsFunction(template);
      const queue = only(template, 'AWS::SQS::Queue', { RedrivePolicy: Match.anyValue() });
      expect(queue.Properties.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * (fn.Properties.Timeout as number));
    });

    it('denies non-TLS access on the request queue, its DLQ and the guard\'s and the drills\' DLQs', () => {
      const policies = template.findResources('AWS::SQS::QueuePolicy', {
        Properties: {
          PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
        },
      });
      expect(Object.keys(policies)).toHaveLength(4);
    });
  });

  describe('failout-requests Lambda', () => {
    it('runs the named Node.js 22 runtime on ARM64 in the VPC with its environment', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        VpcConfig: { SubnetIds: Match.anyValue(), SecurityGroupIds: Match.anyValue() },
        Environment: {
          Variables: Match.objectLike({
            ZK_CONNECT: 'zk1.internal:2181,zk2.internal:2181,zk3.internal:2181',
            ZK_DIGEST_SECRET_ARN: WRITER_SECRET_ARN,
            MAX_FAILOUT_WINDOW: '72h',
            D2_BASE_PATH: '/d2',
            FAILOUT_REQUESTS_PATH: '/failout/requests',
            POWERTOOLS_METRICS_NAMESPACE: 'failout',
            POWERTOOLS_SERVICE_NAME: 'failout-requests',
          }),
        },
        LoggingConfig: { LogGroup: Match.anyValue() },
      });
    });

    it('runs in the private subnets only', () => {
      const fn = requestsFunction(template);
      const subnetRefs = ((fn.Properties.VpcConfig as { SubnetIds: Array<{ Ref: string }> }).SubnetIds).map((s) => s.Ref);
      expect(subnetRefs.length).toBe(2);
      for (const ref of subnetRefs) expect(ref).toMatch(/privateSubnet/);
    });

    it('consumes the queue in batches of 10 with partial batch responses', () => {
      const queueId = Object.keys(template.findResources('AWS::SQS::Queue', { Properties: Match.objectLike({ RedrivePolicy: Match.anyValue() }) }))[0];
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      });
    });

    it('logs to a log group with retention', () => {
      // failout-requests, the bridge, the failout-guard, failout-drills.
      template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, 4);
    });
  });

  describe('permissions', () => {
    it('lets the Lambda read the writer secret, the bridge its own, and nothing wider on Secrets Manager', () => {
      const secretStatements = statements(template).filter((s) => actionsOf(s).some((a) => a.startsWith('secretsmanager:')));
      const adminTokenId = Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0];
      // The Lambda's role on the writer secret; the bridge's execution role (ECS secrets) on the bridge
      // secret and the admin token (test/infra/zookeeper-identities.test.ts, bridge-admin.test.ts).
      expect(secretStatements.map((s) => s.Resource)).toEqual([WRITER_SECRET_ARN, BRIDGE_SECRET_ARN, { Ref: adminTokenId }]);
      for (const s of secretStatements) expect(actionsOf(s).sort()).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
    });

    it('grants no wildcard action and no "*" resource on SQS or Secrets Manager', () => {
      for (const s of statements(template)) {
        const scoped = actionsOf(s).filter((a) => a.startsWith('sqs:') || a.startsWith('secretsmanager:'));
        if (scoped.length === 0) continue;
        for (const a of actionsOf(s)) expect(a).not.toMatch(/\*/);
        expect(s.Resource).not.toBe('*');
      }
    });

    it('gives operators SendMessage on the request queue only, read access to outcomes, and DescribeAlarms (their checks before sending)', () => {
      const queueId = Object.keys(template.findResources('AWS::SQS::Queue', { Properties: Match.objectLike({ RedrivePolicy: Match.anyValue() }) }))[0];
      const policy = only(template, 'AWS::IAM::ManagedPolicy');
      const doc = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
      const send = doc.filter((s) => actionsOf(s).includes('sqs:SendMessage'));
      expect(send).toHaveLength(1);
      expect(send[0]!.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
      expect(doc.flatMap(actionsOf).sort()).toEqual(
        ['cloudwatch:DescribeAlarms', 'logs:DescribeLogStreams', 'logs:FilterLogEvents', 'logs:GetLogEvents', 'sqs:GetQueueAttributes', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].sort(),
      );
      const alarms = doc.filter((s) => actionsOf(s).includes('cloudwatch:DescribeAlarms'));
      expect(JSON.stringify(alarms.map((s) => s.Resource))).toMatch(/^\[\{"Fn::Join":.*:cloudwatch:.*:alarm:\*"\]\]\}\]$/);
    });
  });

  describe('xds-bridge Fargate service', () => {
    it('runs two ARM64 tasks with the deployment circuit breaker and rollback', () => {
      template.hasResourceProperties('AWS::ECS::Service', {
        LaunchType: 'FARGATE',
        DesiredCount: 2,
        DeploymentConfiguration: Match.objectLike({ DeploymentCircuitBreaker: { Enable: true, Rollback: true } }),
        NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) },
      });
      template.hasResourceProperties('AWS::ECS::TaskDefinition', { RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' } });
      template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
    });

    it('checks container health on /healthz, passes the secret as an ECS secret, and logs with retention', () => {
      const task = only(template, 'AWS::ECS::TaskDefinition');
      const [container] = task.Properties.ContainerDefinitions as Array<Record<string, unknown>>;
      const health = container!.HealthCheck as { Command: string[] };
      expect(health.Command[0]).toBe('CMD');
      expect(health.Command.join(' ')).toContain('/healthz');
      expect(container!.Secrets).toEqual([
        { Name: 'ZK_CREDENTIALS', ValueFrom: BRIDGE_SECRET_ARN },
        { Name: 'BRIDGE_ADMIN_TOKEN', ValueFrom: { Ref: Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0] } },
      ]);
      expect(container!.LogConfiguration).toMatchObject({ LogDriver: 'awslogs' });
      const env = Object.fromEntries((container!.Environment as Array<{ Name: string; Value: string }>).map((e) => [e.Name, e.Value]));
      expect(JSON.stringify(env)).not.toContain('password');
      expect(env.BRIDGE_EMF_NAMESPACE).toBe('failout');
      expect(JSON.parse(env.XDS_BRIDGE_CONFIG!)).toMatchObject({ services: ['greetings', { name: 'billing' }], zookeeper: { connectString: env.ZK_CONNECT } });
    });

    it('allows egress only to ZooKeeper, the control planes and HTTPS', () => {
      const sg = only(template, 'AWS::EC2::SecurityGroup', { GroupDescription: Match.stringLikeRegexp('xds-bridge') });
      const inline = (sg.Properties.SecurityGroupEgress as Array<Record<string, unknown>>).map((r) => `${String(r.CidrIp)}:${String(r.FromPort)}-${String(r.ToPort)}`);
      expect(inline.sort()).toEqual(['0.0.0.0/0:443-443', '10.1.0.0/16:18000-18000', '10.2.0.0/16:18000-18000']);
      // ZooKeeper by security group: an egress rule to it and an ingress rule on it, port 2181 only.
      template.hasResourceProperties('AWS::EC2::SecurityGroupEgress', { DestinationSecurityGroupId: 'sg-0123456789abcdef0', FromPort: 2181, ToPort: 2181, IpProtocol: 'tcp' });
      // From the failout-requests Lambda, the bridge, the failout-guard and the failout-drills Lambdas.
      template.resourcePropertiesCountIs('AWS::EC2::SecurityGroupIngress', { GroupId: 'sg-0123456789abcdef0', FromPort: 2181, ToPort: 2181 }, 4);
      const egress = Object.values(template.findResources('AWS::EC2::SecurityGroupEgress')) as Resource[];
      for (const rule of egress) expect(rule.Properties).toMatchObject({ DestinationSecurityGroupId: 'sg-0123456789abcdef0', FromPort: 2181 });
    });
  });

  describe('alarms', () => {
    it.each<[string, Record<string, unknown>]>([
      ['the DLQ has visible messages', { Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible', Statistic: 'Maximum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }],
      ['the Lambda reports errors', { Namespace: 'AWS/Lambda', MetricName: 'Errors', Statistic: 'Sum', Threshold: 1 }],
      ['requests are rejected', { Namespace: 'failout', MetricName: 'Rejected', Dimensions: [{ Name: 'service', Value: 'failout-requests' }], Statistic: 'Sum', Threshold: 1 }],
      [
        'a restore removed a failout no reader could read (another tool wrote it)',
        { Namespace: 'failout', MetricName: 'UnreadableFailoutRemoved', Dimensions: [{ Name: 'service', Value: 'failout-requests' }], Statistic: 'Sum', Period: 300, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1, TreatMissingData: 'notBreaching' },
      ],
      [
        'a request record no reader could read (another tool wrote it)',
        { Namespace: 'failout', MetricName: 'UnreadableRecord', Dimensions: [{ Name: 'service', Value: 'failout-requests' }], Statistic: 'Sum', Period: 300, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1, TreatMissingData: 'notBreaching' },
      ],
      [
        'a request was applied without its alarms checked (no answer from DescribeAlarms)',
        { Namespace: 'failout', MetricName: 'AlarmsUnchecked', Dimensions: [{ Name: 'service', Value: 'failout-requests' }], Statistic: 'Sum', Period: 300, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1, TreatMissingData: 'notBreaching' },
      ],
      [
        'the bridge is on a fallback server for 10 minutes',
        { Namespace: 'failout', MetricName: 'FallbackActive', Dimensions: [{ Name: 'service', Value: 'xds-bridge' }], Statistic: 'Maximum', Period: 60, EvaluationPeriods: 10, DatapointsToAlarm: 10, TreatMissingData: 'notBreaching' },
      ],
      [
        'the bridge is not ready',
        { Namespace: 'failout', MetricName: 'Ready', Dimensions: [{ Name: 'service', Value: 'xds-bridge' }], Statistic: 'Minimum', ComparisonOperator: 'LessThanThreshold', Threshold: 1, TreatMissingData: 'breaching' },
      ],
    ])('alarms when %s, to the alarm topic', (_name, props) => {
      const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0];
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { ...props, AlarmActions: [{ Ref: topicId }], OKActions: [{ Ref: topicId }] });
    });

    it('has exactly the eleven alarms and an encrypted topic with the e-mail subscription', () => {
      // The eight above, the blocked FIFO group (test/infra/blocked-group-alarm.test.ts), the guard's failures (test/infra/failout-guard.test.ts) and the drills' (test/infra/failout-drills.test.ts).
      template.resourceCountIs('AWS::CloudWatch::Alarm', 11);
      template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
      template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    });
  });

  it('outputs the queue URL, the DLQ URL and the operator policy ARN', () => {
    const queues = Object.keys(template.findResources('AWS::SQS::Queue'));
    const policyId = Object.keys(template.findResources('AWS::IAM::ManagedPolicy'))[0];
    const outputs = template.findOutputs('*');
    expect(queues).toContainEqual((outputs.QueueUrl!.Value as { Ref: string }).Ref);
    expect(queues).toContainEqual((outputs.DeadLetterQueueUrl!.Value as { Ref: string }).Ref);
    expect(outputs.QueueUrl!.Value).not.toEqual(outputs.DeadLetterQueueUrl!.Value);
    expect(outputs.OperatorPolicyArn!.Value).toEqual({ Ref: policyId });
  });
});

describe('FailoutStack (imported VPC by id and subnets, ZooKeeper by CIDR, existing topic)', () => {
  const { template } = synthStack({
    vpc: { vpcId: 'vpc-0123456789abcdef0', privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'] },
    zooKeeper: { connectString: '10.9.0.10:2181,10.9.0.11:2182', cidr: '10.9.0.0/24', writerSecretArn: WRITER_SECRET_ARN, bridgeSecretArn: BRIDGE_SECRET_ARN, aclIds: ACL_IDS },
    alarms: { topicArn: 'arn:aws:sns:eu-west-1:111111111111:oncall' },
    maxFailoutWindow: 'PT24H',
  });

  it('creates no VPC and places the Lambda and the tasks in the given subnets', () => {
    template.resourceCountIs('AWS::EC2::VPC', 0);
    template.hasResourceProperties('AWS::Lambda::Function', { VpcConfig: Match.objectLike({ SubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'] }), Environment: { Variables: Match.objectLike({ MAX_FAILOUT_WINDOW: 'PT24H' }) } });
    template.hasResourceProperties('AWS::ECS::Service', { NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ Subnets: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'] }) } });
  });

  it('opens each ZooKeeper port to the CIDR, and creates no topic', () => {
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('xds-bridge'),
      SecurityGroupEgress: Match.arrayWith([Match.objectLike({ CidrIp: '10.9.0.0/24', FromPort: 2181 }), Match.objectLike({ CidrIp: '10.9.0.0/24', FromPort: 2182 })]),
    });
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: ['arn:aws:sns:eu-west-1:111111111111:oncall'] });
  });
});
