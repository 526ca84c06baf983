import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { FailoutStack, type FailoutStackProps, type ZooKeeperAclIds } from '../../infra/lib';
import { digestId } from '../../lib/zk';

/** A bootstrap the bridge's parser accepts: a primary and a fallback control plane. */
export const BOOTSTRAP = {
  xds_servers: [
    { server_uri: 'xds-primary.internal:18000', channel_creds: [{ type: 'insecure' }] },
    { server_uri: 'xds-fallback.internal:18000', channel_creds: [{ type: 'insecure' }] },
  ],
  node: { id: 'xds-bridge' },
};

/** The request worker's digest secret (the Lambda's `ZK_DIGEST_SECRET_ARN`). */
export const WRITER_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:failout/zk/writer-AbCdEf';
/** The bridge's digest secret (the task's ECS secret `ZK_CREDENTIALS`). */
export const BRIDGE_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:failout/zk/bridge-GhIjKl';

/** Each role's digest id, as `digestId(user, password)` makes it (the passwords stay here). */
export const ACL_IDS = {
  bridge: digestId('bridge', 'bridge-password'),
  requestWriter: digestId('writer', 'writer-password'),
  announcer: digestId('announcer', 'announcer-password'),
  admin: digestId('admin', 'admin-password'),
} as const satisfies Required<ZooKeeperAclIds>;

/** The ZooKeeper props with both secrets and every role's id; spread and override per test. */
export const ZOOKEEPER = {
  connectString: 'zk1.internal:2181,zk2.internal:2181,zk3.internal:2181',
  securityGroupId: 'sg-0123456789abcdef0',
  writerSecretArn: WRITER_SECRET_ARN,
  bridgeSecretArn: BRIDGE_SECRET_ARN,
  aclIds: ACL_IDS,
} as const satisfies FailoutStackProps['zooKeeper'];

/** The same as `-c` context strings (docs/deployers.md "Deploy with CDK"): both secrets and every role's id. */
export const IDENTITY_CONTEXT: Readonly<Record<string, string>> = {
  zkWriterSecretArn: WRITER_SECRET_ARN,
  zkBridgeSecretArn: BRIDGE_SECRET_ARN,
  zkAclBridgeId: ACL_IDS.bridge,
  zkAclWriterId: ACL_IDS.requestWriter,
  zkAclAnnouncerId: ACL_IDS.announcer,
  zkAclAdminId: ACL_IDS.admin,
};

/** Props as a user would give them; the image comes from a registry so no Docker and no staging. */
export function stackProps(overrides: Partial<FailoutStackProps> = {}): FailoutStackProps {
  return {
    zooKeeper: ZOOKEEPER,
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

/** A template resource as the assertions read it. */
export type Resource = { Type: string; Properties: Record<string, unknown> };
/** An IAM policy statement as the assertions read it. */
export type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** A statement's actions as a list (CloudFormation allows a single string). */
export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** The one Lambda function whose `POWERTOOLS_SERVICE_NAME` is `service`, as [logical id, resource]; expects exactly one. */
export function byService(template: Template, service: string): [string, Resource] {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
    ([, f]) => (f as Resource).Properties.Environment !== undefined && ((f as Resource).Properties.Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_SERVICE_NAME === service,
  ) as Array<[string, Resource]>;
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Every statement that reaches `roleId`: its inline policies, and AWS::IAM::Policy resources attached to it. */
export function roleStatements(template: Template, roleId: string): Statement[] {
  const role = template.toJSON().Resources[roleId] as Resource;
  const inline = ((role.Properties.Policies ?? []) as Array<{ PolicyDocument: { Statement: Statement[] } }>).flatMap((p) => p.PolicyDocument.Statement);
  const attached = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
    .filter((p) => (p.Properties.Roles as Array<{ Ref: string }>).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  return [...inline, ...attached];
}
