/**
 * The deployed wiring is the tested wiring: the environment the CDK app gives each Lambda is one its
 * own configuration parser accepts (lib/requests `loadRequestsConfig`, lib/safety `loadGuardConfig` and
 * `loadDrillRunnerConfig`, what the handlers read `process.env` with), and synth refuses an input the
 * functions would refuse at run time, instead of a deploy whose every invocation fails on its
 * configuration (requests waiting and then dead-lettered, alarm events and drill ticks in their DLQs).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Vpc } from 'aws-cdk-lib/aws-ec2';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { FailoutRequestsFunction } from '../../infra/lib';
import { loadRequestsConfig } from '../../lib/requests';
import { loadDrillRunnerConfig, loadGuardConfig } from '../../lib/safety';
import { ACL_IDS, byService, synthStack, WRITER_SECRET_ARN, ZOOKEEPER } from './helpers';

/** A template value: a literal, or what CloudFormation resolves at deploy (a queue's `Ref`), given a value of its form. */
function resolved(key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (key === 'FAILOUT_QUEUE_URL') return 'https://sqs.eu-west-1.amazonaws.com/111111111111/failout-requests.fifo';
  throw new Error(`${key}: an unexpected deploy-time value ${JSON.stringify(value)}`);
}

describe('the environment each Lambda function is deployed with', () => {
  const { template } = synthStack();

  it.each([
    ['failout-requests', loadRequestsConfig],
    ['failout-guard', loadGuardConfig],
    ['failout-drills', loadDrillRunnerConfig],
  ] as const)('%s: its own parser accepts it', (service, parse) => {
    // Prepare
    const [, fn] = byService(template, service);
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, resolved(k, v)]));

    // Act
    const config = parse(env) as { zkConnect: string; d2BasePath: string };

    // Assess
    expect(config).toMatchObject({ zkConnect: ZOOKEEPER.connectString, d2BasePath: '/d2' });
  });

  it('refuses at synth a D2 base path the functions refuse (not absolute), naming the variable', () => {
    expect(() => synthStack({ zooKeeper: { ...ZOOKEEPER, d2BasePath: 'd2' } })).toThrow(/failout-requests: the function would refuse this environment at run time: .*D2_BASE_PATH must be an absolute znode path/);
  });

  it('refuses at synth a connect string with a chroot, which the functions refuse', () => {
    expect(() => synthStack({ zooKeeper: { ...ZOOKEEPER, connectString: 'zk1.internal:2181,zk2.internal:2181/failout' } })).toThrow(/the function would refuse this environment at run time: .*ZK_CONNECT must be host:port/);
  });

  it("refuses at synth extra worker environment its parser refuses (a record retention under a day), and takes one it accepts", () => {
    // Prepare
    const make = (environment: Record<string, string>): FailoutRequestsFunction => {
      const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Worker');
      return new FailoutRequestsFunction(stack, 'Requests', {
        vpc: new Vpc(stack, 'Vpc'),
        zooKeeper: { connectString: ZOOKEEPER.connectString, cidr: '10.0.0.0/24' },
        digestSecret: Secret.fromSecretCompleteArn(stack, 'Writer', WRITER_SECRET_ARN),
        aclIds: ACL_IDS,
        environment,
      });
    };

    // Act + Assess
    expect(() => make({ FAILOUT_RECORD_RETENTION: '1h' })).toThrow(/failout-requests: .*FAILOUT_RECORD_RETENTION must be a duration of at least one day/);
    expect(() => make({ FAILOUT_RECORD_RETENTION: '14d', ZK_SESSION_TIMEOUT_MS: '20000' })).not.toThrow();
  });
});
