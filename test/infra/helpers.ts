import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { FailoutStack, type FailoutStackProps } from '../../infra/lib';

/** A bootstrap the bridge's parser accepts: a primary and a fallback control plane. */
export const BOOTSTRAP = {
  xds_servers: [
    { server_uri: 'xds-primary.internal:18000', channel_creds: [{ type: 'insecure' }] },
    { server_uri: 'xds-fallback.internal:18000', channel_creds: [{ type: 'insecure' }] },
  ],
  node: { id: 'xds-bridge' },
};

export const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:failout/zk-digest-AbCdEf';

/** Props as a user would give them; the image comes from a registry so no Docker and no staging. */
export function stackProps(overrides: Partial<FailoutStackProps> = {}): FailoutStackProps {
  return {
    zooKeeper: { connectString: 'zk1.internal:2181,zk2.internal:2181,zk3.internal:2181', securityGroupId: 'sg-0123456789abcdef0', digestSecretArn: SECRET_ARN },
    bridge: {
      bootstrap: BOOTSTRAP,
      services: ['greetings', { name: 'billing', listener: 'billing-listener' }],
      controlPlanes: [
        { cidr: '10.1.0.0/16', port: 18000 },
        { cidr: '10.2.0.0/16', port: 18000 },
      ],
      image: ContainerImage.fromRegistry('public.ecr.aws/example/xds-bridge:test'),
    },
    alarms: { email: 'oncall@example.com' },
    ...overrides,
  };
}

/** A synthesized stack with bundling skipped (`aws:cdk:bundling-stacks: []`). */
export function synthStack(overrides: Partial<FailoutStackProps> = {}): { app: App; stack: FailoutStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new FailoutStack(app, 'FailoutTest', stackProps(overrides));
  return { app, stack, template: Template.fromStack(stack) };
}

/** cdk-nag AwsSolutions findings left after acknowledgements, as `ruleId at path` lines. */
export function nagFindings(stack: FailoutStack, severity: 'error' | 'warning'): string[] {
  const report = new AwsSolutionsChecks().validateScope(stack);
  return report.violations.filter((v) => v.severity === severity).flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath ?? '?'}`));
}
