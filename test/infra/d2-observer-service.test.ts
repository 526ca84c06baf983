/**
 * The D2 observers in the stack (issue 25): a Fargate service of at least two tasks behind an internal
 * NLB, least-privilege roles, health on /healthz, the admin token from Secrets Manager, and alarms for
 * "not ready" and "ZooKeeper lag"; off unless asked for, and switched on from context.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { ContextError, failoutPropsFromContext, type FailoutStackProps } from '../../infra/lib';
import { actionsOf, IDENTITY_CONTEXT, roleStatements, synthStack, ZOOKEEPER, type Resource } from './helpers';

const OBSERVERS: NonNullable<FailoutStackProps['observers']> = { image: ContainerImage.fromRegistry('public.ecr.aws/example/d2-observer:test') };

/** The observer task definition's one container. */
function observerContainer(template: Template): Record<string, unknown> {
  const tasks = Object.values(template.findResources('AWS::ECS::TaskDefinition')) as Resource[];
  const containers = tasks.flatMap((t) => t.Properties.ContainerDefinitions as Array<Record<string, unknown>>).filter((c) => c.Name === 'd2-observer');
  expect(containers).toHaveLength(1);
  return containers[0]!;
}

/** The logical id of the observer task definition's `role` (`ExecutionRoleArn` or `TaskRoleArn`). */
function observerRoleId(template: Template, role: 'ExecutionRoleArn' | 'TaskRoleArn'): string {
  const [task] = Object.values(template.findResources('AWS::ECS::TaskDefinition', { Properties: { ContainerDefinitions: [Match.objectLike({ Name: 'd2-observer' })] } })) as Resource[];
  return (task!.Properties[role] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

describe('the D2 observers', () => {
  const { template } = synthStack({ observers: OBSERVERS });
  const observerSecretId = Object.keys(template.findResources('AWS::SecretsManager::Secret', { Properties: { Description: Match.stringLikeRegexp('d2-observer') } }))[0]!;

  it('are not deployed unless asked for', () => {
    const { stack, template: without } = synthStack();

    expect(stack.observers).toBeUndefined();
    without.resourceCountIs('AWS::ElasticLoadBalancingV2::LoadBalancer', 0);
  });

  it('run two Fargate tasks with the circuit breaker, no public IP, behind an internal NLB listening on TCP 32123', () => {
    template.resourceCountIs('AWS::ECS::Service', 2);
    template.hasResourceProperties('AWS::ECS::Service', {
      DesiredCount: 2,
      DeploymentConfiguration: Match.objectLike({ MinimumHealthyPercent: 100, DeploymentCircuitBreaker: { Enable: true, Rollback: true } }),
      LoadBalancers: [Match.objectLike({ ContainerName: 'd2-observer', ContainerPort: 32123 })],
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) },
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Type: 'network', Scheme: 'internal', LoadBalancerAttributes: Match.arrayWith([{ Key: 'load_balancing.cross_zone.enabled', Value: 'true' }]) });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 32123, Protocol: 'TCP' });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 32123,
      Protocol: 'TCP',
      TargetType: 'ip',
      HealthCheckProtocol: 'HTTP',
      HealthCheckPort: '9901',
      HealthCheckPath: '/healthz',
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '15' }]),
    });
    expect(Object.keys(template.findOutputs('ObserverServerUri'))).toEqual(['ObserverServerUri']);
  });

  it('refuse fewer than two replicas', () => {
    expect(() => synthStack({ observers: { ...OBSERVERS, desiredCount: 1 } })).toThrow(/desiredCount must be at least 2/);
  });

  it('check health on /healthz, take the admin token as an ECS secret, and bind ADS and admin on the task address with EMF on', () => {
    const container = observerContainer(template);
    const env = Object.fromEntries((container.Environment as Array<{ Name: string; Value: string }>).map((e) => [e.Name, e.Value]));

    expect((container.HealthCheck as { Command: string[] }).Command.join(' ')).toContain("fetch('http://127.0.0.1:9901/healthz')");
    expect(container.Secrets).toEqual([{ Name: 'OBSERVER_ADMIN_TOKEN', ValueFrom: { Ref: observerSecretId } }]);
    expect(env).toEqual({
      ZK_CONNECT: ZOOKEEPER.connectString,
      D2_BASE_PATH: '/d2',
      OBSERVER_GRPC_HOST: '0.0.0.0',
      OBSERVER_GRPC_PORT: '32123',
      OBSERVER_ADMIN_HOST: '0.0.0.0',
      OBSERVER_ADMIN_PORT: '9901',
      OBSERVER_EMF_NAMESPACE: 'failout',
    });
    expect(container.LogConfiguration).toMatchObject({ LogDriver: 'awslogs' });
  });

  it('give the execution role only the admin token secret and its log group, and the task role nothing', () => {
    const execution = roleStatements(template, observerRoleId(template, 'ExecutionRoleArn'));
    const task = roleStatements(template, observerRoleId(template, 'TaskRoleArn'));

    expect(execution.map((s) => [actionsOf(s).sort(), s.Resource])).toEqual([
      [['logs:CreateLogStream', 'logs:PutLogEvents'], { 'Fn::GetAtt': [expect.stringMatching(/^D2ObserversLogGroup/), 'Arn'] }],
      [['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'], { Ref: observerSecretId }],
    ]);
    expect(JSON.stringify(execution)).not.toContain('failout/zk/');
    expect(task).toEqual([]);
  });

  it('take ADS and health checks only from the NLB, and ADS at the NLB only from the VPC', () => {
    const sgId = Object.keys(template.findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('^d2-observer tasks') } }))[0]!;
    const lbSgId = Object.keys(template.findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('^d2-observer NLB') } }))[0]!;
    const ingress = (Object.values(template.findResources('AWS::EC2::SecurityGroupIngress')) as Resource[]).filter((r) => JSON.stringify(r.Properties.GroupId).includes(sgId));
    const lbSg = template.toJSON().Resources[lbSgId] as Resource;

    expect(ingress.map((r) => [r.Properties.FromPort, (r.Properties.SourceSecurityGroupId as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]]).sort()).toEqual([
      [32123, lbSgId],
      [9901, lbSgId],
    ]);
    expect(lbSg.Properties.SecurityGroupIngress).toEqual([expect.objectContaining({ FromPort: 32123, ToPort: 32123, CidrIp: { 'Fn::GetAtt': [expect.stringMatching(/^SandboxVpc/), 'CidrBlock'] } })]);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a replica is not ready (or silent) for 5 minutes', { Namespace: 'failout', MetricName: 'Ready', Dimensions: [{ Name: 'service', Value: 'd2-observer' }], Statistic: 'Minimum', ComparisonOperator: 'LessThanThreshold', Threshold: 1, EvaluationPeriods: 5, TreatMissingData: 'breaching' }],
    ['a replica has been cut off from ZooKeeper for 60 s, two minutes running', { Namespace: 'failout', MetricName: 'ZkDisconnectedSeconds', Dimensions: [{ Name: 'service', Value: 'd2-observer' }], Statistic: 'Maximum', ComparisonOperator: 'GreaterThanOrEqualToThreshold', Threshold: 60, EvaluationPeriods: 2, DatapointsToAlarm: 2 }],
    ['the NLB has an unhealthy target for 5 minutes', { Namespace: 'AWS/NetworkELB', MetricName: 'UnHealthyHostCount', Statistic: 'Maximum', Threshold: 1, EvaluationPeriods: 5 }],
  ])('alarm when %s, to the alarm topic', (_name, props) => {
    const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0];

    template.hasResourceProperties('AWS::CloudWatch::Alarm', { ...props, AlarmActions: [{ Ref: topicId }], OKActions: [{ Ref: topicId }] });
  });

  it('are switched on from context, with their count and client CIDRs; their keys are refused without observers=true', () => {
    const context = (extra: Record<string, string>) => ({
      tryGetContext: (key: string): unknown =>
        ({ zkConnect: 'zk1:2181', zkCidr: '10.0.0.0/24', ...IDENTITY_CONTEXT, bridgeBootstrap: '{"xds_servers":[{"server_uri":"cp:18000","channel_creds":[{"type":"insecure"}]}]}', bridgeServices: 'greetings', controlPlanes: '10.1.0.0/16:18000', ...extra })[key],
    });

    expect(failoutPropsFromContext(context({})).props.observers).toBeUndefined();
    expect(failoutPropsFromContext(context({ observers: 'true', observerCount: '3', observerClientCidrs: '10.0.0.0/8' })).props.observers).toMatchObject({ desiredCount: 3, clientPeers: [{ uniqueId: '10.0.0.0/8' }] });
    expect(() => failoutPropsFromContext(context({ observerCount: '3' }))).toThrow(new ContextError('observerCount', 'needs observers=true'));
    expect(() => failoutPropsFromContext(context({ observers: 'true', observerCount: '1' }))).toThrow(new ContextError('observerCount', 'must be at least 2'));
  });
});
