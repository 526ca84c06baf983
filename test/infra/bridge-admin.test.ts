import { Peer } from 'aws-cdk-lib/aws-ec2';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { stackProps, synthStack } from './helpers';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Container = { Environment: Array<{ Name: string; Value: string }>; Secrets: Array<{ Name: string; ValueFrom: unknown }>; HealthCheck: { Command: string[] } };
type Statement = { Action: string | string[]; Resource: unknown };

const ADMIN_TOKEN_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:failout/bridge-admin-ZyXwVu';

function container(template: Template): Container {
  const task = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0] as Resource;
  return (task.Properties.ContainerDefinitions as Container[])[0]!;
}

function env(c: Container): Record<string, string> {
  return Object.fromEntries(c.Environment.map((e) => [e.Name, e.Value]));
}

function bridgeSecurityGroupId(template: Template): string {
  const ids = Object.keys(template.findResources('AWS::EC2::SecurityGroup', { Properties: Match.objectLike({ GroupDescription: Match.stringLikeRegexp('xds-bridge') }) }));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

// Issue 14: the bridge's admin server binds the task's interfaces (the health check dials 127.0.0.1
// inside the task, the security group decides who else may connect) and asks a bearer token, from
// Secrets Manager, for everything but /healthz.
describe('xds-bridge admin endpoints on Fargate', () => {
  describe('default props', () => {
    const { template } = synthStack();

    it('binds all of the task’s interfaces on the admin port, as validated config', () => {
      const config = JSON.parse(env(container(template)).XDS_BRIDGE_CONFIG!) as { admin: unknown };

      expect(config.admin).toEqual({ host: '0.0.0.0', port: 9901 });
    });

    it('passes a generated token from Secrets Manager as BRIDGE_ADMIN_TOKEN, never in the environment', () => {
      // Prepare
      const secrets = Object.entries(template.findResources('AWS::SecretsManager::Secret')) as Array<[string, Resource]>;
      const c = container(template);

      // Assess
      expect(secrets).toHaveLength(1);
      const [secretId, secret] = secrets[0]!;
      expect(secret.Properties.GenerateSecretString).toMatchObject({ ExcludePunctuation: true, PasswordLength: 48 });
      expect(c.Secrets).toContainEqual({ Name: 'BRIDGE_ADMIN_TOKEN', ValueFrom: { Ref: secretId } });
      expect(Object.keys(env(c))).not.toContain('BRIDGE_ADMIN_TOKEN');
      expect(template.findOutputs('BridgeAdminTokenSecretArn').BridgeAdminTokenSecretArn!.Value).toEqual({ Ref: secretId });
    });

    it('lets only the execution role read the token', () => {
      const secretId = Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0]!;
      const readers = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[]).filter((p) =>
        (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some((s) => JSON.stringify(s.Resource) === JSON.stringify({ Ref: secretId })),
      );

      expect(readers.map((p) => (p.Properties.Roles as Array<{ Ref: string }>)[0]!.Ref)).toEqual([expect.stringMatching(/^XdsBridgeTaskDefinitionExecutionRole/)]);
    });

    it('checks health on /healthz over loopback, with no token', () => {
      const command = container(template).HealthCheck.Command.join(' ');

      expect(command).toContain('http://127.0.0.1:9901/healthz');
      expect(command).not.toMatch(/authorization|bearer|BRIDGE_ADMIN_TOKEN/i);
    });

    it('opens the admin port to nobody', () => {
      const sgId = bridgeSecurityGroupId(template);
      const inline = (template.toJSON().Resources[sgId] as Resource).Properties.SecurityGroupIngress;
      const rules = (Object.values(template.findResources('AWS::EC2::SecurityGroupIngress')) as Resource[]).filter((r) => JSON.stringify(r.Properties.GroupId).includes(sgId));

      expect(inline ?? []).toEqual([]);
      expect(rules).toEqual([]);
    });
  });

  describe('an existing token secret and a scraper’s CIDR', () => {
    const { template } = synthStack({ bridge: { ...stackProps().bridge, adminTokenSecretArn: ADMIN_TOKEN_ARN, adminPeers: [Peer.ipv4('10.50.0.0/24')] } });

    it('uses the given secret and creates none', () => {
      template.resourceCountIs('AWS::SecretsManager::Secret', 0);
      expect(container(template).Secrets).toContainEqual({ Name: 'BRIDGE_ADMIN_TOKEN', ValueFrom: ADMIN_TOKEN_ARN });
    });

    it('opens the admin port, and only it, to the given peer', () => {
      const sg = template.toJSON().Resources[bridgeSecurityGroupId(template)] as Resource;

      expect(sg.Properties.SecurityGroupIngress).toEqual([expect.objectContaining({ CidrIp: '10.50.0.0/24', FromPort: 9901, ToPort: 9901, IpProtocol: 'tcp' })]);
    });
  });
});
