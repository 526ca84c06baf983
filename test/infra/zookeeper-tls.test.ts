import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { failoutPropsFromContext, FailoutStack } from '../../infra/lib';
import { IDENTITY_CONTEXT, stackProps, synthStack } from './helpers';

// ZooKeeper over TLS in the CDK app (issue 14): `zooKeeper.tls` (context `zkTlsCaPath`,
// `zkTlsServername`) becomes ZK_TLS_CA / ZK_TLS_SERVERNAME in the Lambda's and the bridge's
// environment, and the guard's and the drill runner's; without it none gets any ZK_TLS_* variable (plain TCP).

type Resource = { Properties: Record<string, unknown> };
type Container = { Environment: Array<{ Name: string; Value: string }> };

function functionEnv(template: Template): Record<string, unknown> {
  const fns = Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
  const requests = fns.find((f) => (f.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.ZK_CONNECT !== undefined);
  return (requests?.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

function bridgeEnv(template: Template): Record<string, string> {
  const task = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0] as Resource;
  const container = (task.Properties.ContainerDefinitions as Container[])[0]!;
  return Object.fromEntries(container.Environment.map((e) => [e.Name, e.Value]));
}

const zkTlsKeys = (env: Record<string, unknown>): string[] => Object.keys(env).filter((k) => k.startsWith('ZK_TLS_'));

describe('ZooKeeper TLS in the CDK app', () => {
  it('hands ZK_TLS_CA and ZK_TLS_SERVERNAME to the Lambda and the bridge when zooKeeper.tls is set', () => {
    // Prepare
    const base = stackProps();
    const zooKeeper = { ...base.zooKeeper, connectString: '10.0.0.5:2182', tls: { caPath: '/opt/zk-ca.pem', servername: 'zk.internal' } };

    // Act
    const { template } = synthStack({ zooKeeper });

    // Assess
    expect(functionEnv(template)).toMatchObject({ ZK_TLS_CA: '/opt/zk-ca.pem', ZK_TLS_SERVERNAME: 'zk.internal' });
    expect(bridgeEnv(template)).toMatchObject({ ZK_TLS_CA: '/opt/zk-ca.pem', ZK_TLS_SERVERNAME: 'zk.internal' });
  });

  it('hands ZK_TLS_CA to every Lambda function, and stack.functions reaches each one for the layer holding the CA', () => {
    // Prepare: the guard and the drill runner connect to ZooKeeper too; a layer given to the worker alone
    // leaves them failing on a missing CA file (docs/deployers.md "ZooKeeper over TLS").
    const base = stackProps();
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new FailoutStack(app, 'FailoutTls', stackProps({ zooKeeper: { ...base.zooKeeper, connectString: '10.0.0.5:2182', tls: { caPath: '/opt/zk-ca.pem' } } }));
    const layerArn = 'arn:aws:lambda:eu-west-1:111111111111:layer:zk-ca:1';
    const layer = LayerVersion.fromLayerVersionArn(stack, 'ZooKeeperCa', layerArn);

    // Act
    for (const fn of stack.functions) fn.addLayers(layer);
    const fns = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')) as Resource[];
    const ours = fns.filter((f) => (f.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.ZK_CONNECT !== undefined);

    // Assess: the worker, the guard and the drill runner, each with the CA's path and the layer
    expect(ours.map((f) => (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_SERVICE_NAME).sort()).toEqual(['failout-drills', 'failout-guard', 'failout-requests']);
    for (const f of ours) {
      expect((f.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({ ZK_TLS_CA: '/opt/zk-ca.pem' });
      expect(f.Properties.Layers).toEqual([layerArn]);
    }
  });

  it('synthesizes the observers with ZooKeeper TLS: the CA path goes to their tasks, the file is not read at synth', () => {
    // Prepare: the CA lives in the observers' image (docs/deployers.md "ZooKeeper over TLS"), not on the synth machine
    const base = stackProps();
    const zooKeeper = { ...base.zooKeeper, connectString: '10.0.0.5:2182', tls: { caPath: '/nonexistent/zk-ca.pem', servername: 'zk.internal' } };

    // Act
    const { template } = synthStack({ zooKeeper, observers: { image: ContainerImage.fromRegistry('public.ecr.aws/example/d2-observer:test') } });

    // Assess
    const tasks = Object.values(template.findResources('AWS::ECS::TaskDefinition')) as Resource[];
    const observer = tasks.flatMap((t) => t.Properties.ContainerDefinitions as Array<Container & { Name: string }>).find((c) => c.Name === 'd2-observer')!;
    expect(Object.fromEntries(observer.Environment.map((e) => [e.Name, e.Value]))).toMatchObject({ ZK_TLS_CA: '/nonexistent/zk-ca.pem', ZK_TLS_SERVERNAME: 'zk.internal' });
  });

  it('sets no ZK_TLS_* variable without it', () => {
    // Act
    const { template } = synthStack();

    // Assess
    expect(zkTlsKeys(functionEnv(template))).toEqual([]);
    expect(zkTlsKeys(bridgeEnv(template))).toEqual([]);
  });

  it('reads zkTlsCaPath and zkTlsServername from context, and refuses a servername without a CA path', () => {
    // Prepare
    const context: Record<string, string> = {
      zkConnect: 'zk1:2182',
      zkCidr: '10.0.0.0/24',
      ...IDENTITY_CONTEXT,
      bridgeBootstrap: JSON.stringify({ xds_servers: [{ server_uri: 'xds:18000', channel_creds: [{ type: 'insecure' }] }], node: { id: 'b' } }),
      bridgeServices: 'greetings',
      controlPlanes: '10.1.0.0/16:18000',
    };
    const read = (extra: Record<string, string>) => failoutPropsFromContext({ tryGetContext: (key: string): unknown => ({ ...context, ...extra })[key] });

    // Act
    const props = read({ zkTlsCaPath: '/opt/zk-ca.pem', zkTlsServername: 'zk.internal' }).props;

    // Assess
    expect(props.zooKeeper.tls).toEqual({ caPath: '/opt/zk-ca.pem', servername: 'zk.internal' });
    expect(read({}).props.zooKeeper.tls).toBeUndefined();
    expect(() => read({ zkTlsServername: 'zk.internal' })).toThrow(/zkTlsServername.*needs zkTlsCaPath/);
  });
});
