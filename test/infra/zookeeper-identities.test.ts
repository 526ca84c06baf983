import type { Template } from 'aws-cdk-lib/assertions';
import { loadBridgeConfig } from '../../lib/bridge/contract';
import { loadRequestsConfig } from '../../lib/requests/config';
import { ACL_IDS, BRIDGE_SECRET_ARN, stackProps, synthStack, WRITER_SECRET_ARN, ZOOKEEPER } from './helpers';

// One ZooKeeper identity per component (issue 14, docs/deployers.md "Access control"): the request worker and the
// bridge each read their own digest secret, which nothing else may read, and both get every role's
// digest id as ZK_ACL_* to build the ACLs of what they create. One shared secret ran both as one
// identity holding both roles' permissions.

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Action: string | string[]; Resource: unknown };
type Container = { Environment: Array<{ Name: string; Value: string }>; Secrets: Array<{ Name: string; ValueFrom: unknown }> };

const refOf = (v: unknown): string => (v as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];

/** The logical ids of the roles any policy of the template lets read `arn` (inline, attached or managed). */
function readersOf(template: Template, arn: string): string[] {
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const names = (s: Statement): boolean => JSON.stringify(s.Resource).includes(arn);
  const readers = new Set<string>();
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::IAM::Role') {
      const inline = (r.Properties.Policies ?? []) as Array<{ PolicyDocument: { Statement: Statement[] } }>;
      if (inline.some((p) => p.PolicyDocument.Statement.some(names))) readers.add(id);
    }
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') {
      if (!(r.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some(names)) continue;
      for (const role of (r.Properties.Roles ?? []) as Array<{ Ref: string }>) readers.add(role.Ref);
      // A policy on users or groups would be a reader we cannot name by role: fail loudly.
      if ((r.Properties.Users ?? r.Properties.Groups) !== undefined) readers.add(`${id} (users or groups)`);
    }
  }
  return [...readers].sort();
}

function components(template: Template): { fn: Resource; task: Resource; container: Container } {
  // The request writer's function; the failout-guard reads ZooKeeper without any credential (test/infra/failout-guard.test.ts).
  const fns = (Object.values(template.findResources('AWS::Lambda::Function')) as Resource[]).filter((f) => functionEnv(f).POWERTOOLS_SERVICE_NAME === 'failout-requests');
  const tasks = Object.values(template.findResources('AWS::ECS::TaskDefinition')) as Resource[];
  expect(fns).toHaveLength(1);
  expect(tasks).toHaveLength(1);
  return { fn: fns[0]!, task: tasks[0]!, container: (tasks[0]!.Properties.ContainerDefinitions as Container[])[0]! };
}

const functionEnv = (fn: Resource): Record<string, string> => (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
const containerEnv = (c: Container): Record<string, string> => Object.fromEntries(c.Environment.map((e) => [e.Name, e.Value]));
const aclVariables = (env: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('ZK_ACL_')));

describe('ZooKeeper identities in the CDK app', () => {
  describe('every role given', () => {
    const { template } = synthStack();
    const { fn, task, container } = components(template);

    it('lets only the Lambda’s role read the writer secret, its ZK_DIGEST_SECRET_ARN', () => {
      expect(readersOf(template, WRITER_SECRET_ARN)).toEqual([refOf(fn.Properties.Role)]);
      expect(functionEnv(fn).ZK_DIGEST_SECRET_ARN).toBe(WRITER_SECRET_ARN);
    });

    it('lets only the bridge task’s execution role read the bridge secret, its ECS secret ZK_CREDENTIALS', () => {
      // Prepare
      const executionRole = refOf(task.Properties.ExecutionRoleArn);

      // Assess
      expect(readersOf(template, BRIDGE_SECRET_ARN)).toEqual([executionRole]);
      expect(executionRole).not.toBe(refOf(task.Properties.TaskRoleArn));
      expect(container.Secrets).toContainEqual({ Name: 'ZK_CREDENTIALS', ValueFrom: BRIDGE_SECRET_ARN });
    });

    it('never hands one component the other’s secret', () => {
      expect(JSON.stringify(fn)).not.toContain(BRIDGE_SECRET_ARN);
      expect(JSON.stringify(task)).not.toContain(WRITER_SECRET_ARN);
      expect(Object.keys(containerEnv(container))).not.toContain('ZK_CREDENTIALS');
    });

    it('sets every role’s digest id as ZK_ACL_* in the Lambda and the bridge', () => {
      const expected = { ZK_ACL_BRIDGE_ID: ACL_IDS.bridge, ZK_ACL_WRITER_ID: ACL_IDS.requestWriter, ZK_ACL_ANNOUNCER_ID: ACL_IDS.announcer, ZK_ACL_ADMIN_ID: ACL_IDS.admin };

      expect(aclVariables(functionEnv(fn))).toEqual(expected);
      expect(aclVariables(containerEnv(container))).toEqual(expected);
    });

    it('wires what the bridge’s own loader reads: its credential from ZK_CREDENTIALS, the others’ ids from ZK_ACL_*', () => {
      // Prepare: the task's environment, and the ECS secret as the agent injects it (the whole secret string).
      const env = { ...containerEnv(container), ZK_CREDENTIALS: 'bridge:bridge-password' };

      // Act
      const config = loadBridgeConfig(env);

      // Assess
      expect(config.zookeeper.credentials).toEqual([{ user: 'bridge', password: 'bridge-password' }]);
      expect(config.acl).toEqual({ bridge: [ACL_IDS.bridge], requestWriter: [ACL_IDS.requestWriter], announcer: [ACL_IDS.announcer], admin: [ACL_IDS.admin] });
    });

    it('wires what the worker’s own loader reads: its secret’s ARN, the others’ ids', () => {
      // Act
      const config = loadRequestsConfig(functionEnv(fn));

      // Assess
      expect(config.digest).toEqual({ source: 'secret', arn: WRITER_SECRET_ARN });
      expect(config.aclRoles).toEqual({ bridge: [ACL_IDS.bridge], requestWriter: [ACL_IDS.requestWriter], announcer: [ACL_IDS.announcer], admin: [ACL_IDS.admin] });
    });
  });

  it('sets no ZK_ACL_ANNOUNCER_ID or ZK_ACL_ADMIN_ID without those roles, and joins several ids with commas', () => {
    // Prepare
    const rotating = [ACL_IDS.requestWriter, ACL_IDS.admin];

    // Act
    const { template } = synthStack({ zooKeeper: { ...ZOOKEEPER, aclIds: { bridge: ACL_IDS.bridge, requestWriter: rotating } } });
    const { fn, container } = components(template);

    // Assess
    for (const env of [functionEnv(fn), containerEnv(container)]) {
      expect(Object.keys(aclVariables(env)).sort()).toEqual(['ZK_ACL_BRIDGE_ID', 'ZK_ACL_WRITER_ID']);
      expect(env.ZK_ACL_WRITER_ID).toBe(rotating.join(','));
    }
  });

  describe('refuses at synth, naming the field and never the value', () => {
    const PASSWORD = 'hunter2-not-an-id';
    const zooKeeper = (change: Record<string, unknown>) => ({ zooKeeper: { ...ZOOKEEPER, ...change } as ReturnType<typeof stackProps>['zooKeeper'] });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['no bridge id', { aclIds: { requestWriter: ACL_IDS.requestWriter } }, /^zooKeeper\.aclIds\.bridge: is required/],
      ['no request writer id', { aclIds: { bridge: ACL_IDS.bridge, requestWriter: ' ' } }, /^zooKeeper\.aclIds\.requestWriter: is required/],
      ['no ids at all', { aclIds: undefined }, /^zooKeeper\.aclIds\.bridge: is required/],
      ['a password where an id belongs', { aclIds: { ...ACL_IDS, announcer: `announcer:${PASSWORD}` } }, /^zooKeeper\.aclIds\.announcer: entry 1 is not a digest id/],
      ['a bad id in a list', { aclIds: { ...ACL_IDS, admin: [ACL_IDS.admin, PASSWORD] } }, /^zooKeeper\.aclIds\.admin: entry 2 is not a digest id/],
      ['one identity for two roles', { aclIds: { ...ACL_IDS, requestWriter: ACL_IDS.bridge } }, /^zooKeeper\.aclIds\.requestWriter: holds an id also given for zooKeeper\.aclIds\.bridge/],
      ['no writer secret', { writerSecretArn: undefined }, /^zooKeeper\.writerSecretArn is required/],
      ['no bridge secret', { bridgeSecretArn: '' }, /^zooKeeper\.bridgeSecretArn is required/],
      ['a partial secret ARN', { bridgeSecretArn: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:failout/zk/bridge' }, /^zooKeeper\.bridgeSecretArn must be a secret's full ARN/],
      ['one secret for both', { bridgeSecretArn: WRITER_SECRET_ARN }, /^zooKeeper\.bridgeSecretArn is the same secret as zooKeeper\.writerSecretArn/],
      ['the single secret of earlier versions', { digestSecretArn: WRITER_SECRET_ARN }, /^zooKeeper\.digestSecretArn was replaced by zooKeeper\.writerSecretArn .* and zooKeeper\.bridgeSecretArn/],
    ])('%s', (_name, change, message) => {
      // Act
      const synth = (): unknown => synthStack(zooKeeper(change));

      // Assess
      expect(synth).toThrow(message);
      expect(synth).not.toThrow(PASSWORD);
    });
  });
});
