import { join } from 'node:path';
import { Arn, ArnFormat, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SubnetType, type IPeer, type ISecurityGroup, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { Rule, type RuleProps } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { loadRequestsConfig } from '../../lib/requests';
import { loadDrillRunnerConfig, loadGuardConfig } from '../../lib/safety';
import { allowAwsApis, allowZooKeeper, zooKeeperTlsEnvironment, type ZooKeeperAccess } from './network';

/**
 * The set-up every failout Lambda shares (failout-requests, failout-guard, failout-drills): the
 * function's own log group, a role without AWS-managed policies, the NodejsFunction defaults (Node.js
 * 22, ARM64, local esbuild bundle, private subnets, no open egress), the environment every handler
 * reads, the security group's egress, and the cdk-nag acknowledgements they all need.
 * {@link FailoutQueueSenderFunction} adds what the functions that send to the request queue on an
 * EventBridge rule (guard, drills) share.
 */

/** Repository root: the NodejsFunction project root (package.json "imports" and the lock file live there). */
const REPO_ROOT = join(__dirname, '..', '..');

/**
 * What a VPC-attached Lambda's role needs to create, find and remove its network interfaces (the ec2
 * half of AWSLambdaVPCAccessExecutionRole, without its `logs:*` on every log group). These are the only
 * actions on `*`: the Describe actions have no resource-level permissions, and Lambda manages the
 * interfaces (names and ids it picks) in the subnets and security group of the function.
 */
export const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/**
 * What every function's bundle is made with, besides the target: the local stack and the bundle test
 * build the same artefact (lib/local `LAMBDA_BUNDLING`; a test keeps the two equal).
 */
export const FAILOUT_REQUESTS_BUNDLING = Object.freeze({ minify: true, format: 'cjs' as const, externalModules: Object.freeze(['@aws-sdk/*']) });

/** A function's CloudWatch namespace and `service` dimension (Powertools `POWERTOOLS_*`). */
export interface FunctionMetrics {
  readonly namespace: string;
  readonly service: string;
}

/** What {@link failoutFunctionProps} needs. */
export interface FailoutFunctionSettings {
  /** The directory under `functions/` holding `handler.ts`, e.g. `failout-guard`. */
  readonly name: string;
  readonly vpc: IVpc;
  /** Default: the VPC's private subnets with egress. */
  readonly vpcSubnets?: SubnetSelection;
  readonly zooKeeper: ZooKeeperAccess;
  /** `D2_BASE_PATH`. Default `/d2`. */
  readonly d2BasePath?: string;
  readonly metrics: FunctionMetrics;
  readonly role: IRole;
  readonly logGroup: ILogGroup;
  readonly timeout: Duration;
  readonly memorySize: number;
  /** The function's own variables, after `ZK_CONNECT` and `D2_BASE_PATH`. */
  readonly environment: Record<string, string>;
  /** Variables after the common ones (ZooKeeper TLS), which may override them. */
  readonly trailingEnvironment?: Record<string, string>;
}

/** Each function's own configuration parser: what its handler reads its environment with at run time. */
const ENVIRONMENT_PARSERS: Readonly<Record<string, (env: Readonly<Record<string, string | undefined>>) => unknown>> = {
  'failout-requests': loadRequestsConfig,
  'failout-guard': loadGuardConfig,
  'failout-drills': loadDrillRunnerConfig,
};

/**
 * What stands in at synth for a value CloudFormation resolves at deploy (a queue's URL, an imported
 * secret's ARN): a value of the right form, so the rest of the environment can still be checked.
 */
const DEPLOY_TIME_PLACEHOLDERS: Readonly<Record<string, string>> = {
  FAILOUT_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/failout-requests.fifo',
  ZK_DIGEST_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:failout-zk-writer-AbCdEf',
  ZK_CONNECT: 'zookeeper.internal:2181',
};

/**
 * Refuses, at synth, an environment the function's own parser would refuse at run time (the way the
 * bridge's and the observers' configurations are checked with their parsers): a relative or malformed
 * `D2_BASE_PATH`, a connect string with a chroot, an extra variable out of range. Without it, `cdk
 * deploy` succeeds and every invocation then fails on its configuration: requests wait and end in the
 * DLQ, alarm events and drill ticks in their functions' DLQs. Values resolved at deploy stand in as
 * placeholders; `ZK_TLS_*` name files in the deployed function (a layer), which synth cannot read.
 * @throws Error naming the function and the variable at fault.
 */
function assertFunctionEnvironment(name: string, environment: Readonly<Record<string, string>>): void {
  const parse = ENVIRONMENT_PARSERS[name];
  if (parse === undefined) return;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(environment)) {
    if (key.startsWith('ZK_TLS_')) continue;
    if (!Token.isUnresolved(value)) env[key] = value;
    else if (DEPLOY_TIME_PLACEHOLDERS[key] !== undefined) env[key] = DEPLOY_TIME_PLACEHOLDERS[key];
  }
  try {
    parse(env);
  } catch (err) {
    throw new Error(`${name}: the function would refuse this environment at run time: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * The NodejsFunction props every failout Lambda shares: `functions/<name>/handler.ts` bundled locally
 * (minified, source maps, CommonJS, `@aws-sdk/*` from the runtime), Node.js 22 named (not "latest"),
 * ARM64, in the private subnets with its own security group and no open egress, its role and log group.
 * @throws Error when the function's own parser would refuse the environment ({@link assertFunctionEnvironment}).
 */
export function failoutFunctionProps(settings: FailoutFunctionSettings): NodejsFunctionProps {
  const environment: Record<string, string> = {
    ZK_CONNECT: settings.zooKeeper.connectString,
    D2_BASE_PATH: settings.d2BasePath ?? '/d2',
    ...settings.environment,
    POWERTOOLS_SERVICE_NAME: settings.metrics.service,
    POWERTOOLS_METRICS_NAMESPACE: settings.metrics.namespace,
    NODE_OPTIONS: '--enable-source-maps',
    ...zooKeeperTlsEnvironment(settings.zooKeeper),
    ...settings.trailingEnvironment,
  };
  assertFunctionEnvironment(settings.name, environment);
  return {
    entry: join(REPO_ROOT, 'functions', settings.name, 'handler.ts'),
    handler: 'handler',
    projectRoot: REPO_ROOT,
    depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    timeout: settings.timeout,
    memorySize: settings.memorySize,
    vpc: settings.vpc,
    vpcSubnets: settings.vpcSubnets ?? { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
    allowAllOutbound: false,
    role: settings.role,
    logGroup: settings.logGroup,
    bundling: {
      minify: FAILOUT_REQUESTS_BUNDLING.minify,
      sourceMap: true,
      format: OutputFormat.CJS,
      target: 'node22',
      externalModules: [...FAILOUT_REQUESTS_BUNDLING.externalModules],
      forceDockerBundling: false,
    },
    environment,
  };
}

/** The function's own log group (default retention one month), destroyed with the stack. */
export function createFunctionLogGroup(scope: Construct, id: string, retention: RetentionDays | undefined): LogGroup {
  return new LogGroup(scope, id, { retention: retention ?? RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
}

/**
 * The execution role, with no AWS-managed policy (issue 14: AWSLambdaBasicExecutionRole and
 * AWSLambdaVPCAccessExecutionRole both allow log writes to every log group of the account): inline
 * `logs:CreateLogStream`/`logs:PutLogEvents` on the function's own log group, the VPC network-interface
 * actions on `*`, then `policies` (name → statements).
 */
export function createFunctionRole(scope: Construct, id: string, description: string, logGroup: LogGroup, policies: Record<string, PolicyStatement[]> = {}): Role {
  const documents: Record<string, PolicyDocument> = {};
  for (const [name, statements] of Object.entries(policies)) documents[name] = new PolicyDocument({ statements });
  return new Role(scope, id, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description,
    // Inline (not a separate AWS::IAM::Policy): the role carries them when CloudFormation creates the
    // function, which needs the ENI actions before it can attach to the VPC.
    inlinePolicies: {
      Logs: new PolicyDocument({
        statements: [
          // logGroupArn ends in `:*`, which covers the group's log streams (PutLogEvents acts on a stream).
          new PolicyStatement({ effect: Effect.ALLOW, actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }),
        ],
      }),
      VpcNetworkInterfaces: new PolicyDocument({
        statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: [...VPC_NETWORK_INTERFACE_ACTIONS], resources: ['*'] })],
      }),
      ...documents,
    },
  });
}

/** The function's security group may reach ZooKeeper and HTTPS (the AWS APIs) only; returns it. */
export function connectFunction(fn: NodejsFunction, zooKeeper: ZooKeeperAccess, awsApiPeer: IPeer | undefined): ISecurityGroup {
  const securityGroup = fn.connections.securityGroups[0]!;
  allowZooKeeper(securityGroup, zooKeeper);
  allowAwsApis(securityGroup, awsApiPeer);
  return securityGroup;
}

/**
 * The cdk-nag AwsSolutions findings every failout function accepts on purpose: the pinned runtime (L1)
 * and the network-interface actions on `*` (IAM5). `interfaces` and `scoped` finish the IAM5 reason.
 */
export function acknowledgeFunctionFindings(fn: IFunction, role: Role, interfaces: string, scoped: string): void {
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason: 'The runtime is pinned to a named Node.js version (22) on purpose: the bundle is built and tested for it, and NODEJS_LATEST would move under us.',
  });
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: `Only the VPC network-interface actions are on "*" (${VPC_NETWORK_INTERFACE_ACTIONS.join(', ')}): Lambda creates and removes the function's interfaces${interfaces}, and the Describe actions have no resource-level permissions. Log writes are scoped to the function's own log group; ${scoped}.`,
  });
}

/**
 * `cloudwatch:DescribeAlarms` on every alarm of the stack's account and region: the alarms are named at
 * run time (a failout's stop alarms, a drill's outcome and blocking alarms), so no list of alarm ARNs
 * exists at deploy time. Read-only: it returns alarm states and configurations.
 */
export function describeAlarmsStatement(scope: Construct, sid?: string): PolicyStatement {
  const alarms = Arn.format({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }, Stack.of(scope));
  return new PolicyStatement({ sid, effect: Effect.ALLOW, actions: ['cloudwatch:DescribeAlarms'], resources: [alarms] });
}

/** The cdk-nag acknowledgement of {@link describeAlarmsStatement}'s wildcard on the role or policy holding it; `who` says who names the alarms. */
export function acknowledgeDescribeAlarms(holder: IConstruct, who: string): void {
  Validations.of(holder).acknowledge({
    // cdk-nag names the resource with its tokens spelled as <AWS::Partition> and so on.
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudwatch:<AWS::Region>:<AWS::AccountId>:alarm:*]',
    reason: `DescribeAlarms on this account's and region's alarms: ${who} name the alarms at run time, so no list of alarm ARNs exists at deploy time. It only reads states.`,
  });
}

/** Props of {@link FailoutQueueSenderFunction}, which its subclasses' props extend. */
export interface FailoutQueueSenderProps {
  readonly vpc: IVpc;
  /** Default: the VPC's private subnets with egress. */
  readonly vpcSubnets?: SubnetSelection;
  readonly zooKeeper: ZooKeeperAccess;
  /** The request queue the function sends to. */
  readonly queue: IQueue;
  /** `D2_BASE_PATH`. Default `/d2`. */
  readonly d2BasePath?: string;
  /** Destination of the HTTPS egress to the AWS APIs. Default any IPv4. */
  readonly awsApiPeer?: IPeer;
  /** Default one month. */
  readonly logRetention?: RetentionDays;
  /** Where the failures alarm goes; none when absent. */
  readonly alarmAction?: IAlarmAction;
}

/** What a {@link FailoutQueueSenderFunction} subclass decides. */
export interface QueueSenderSettings {
  /** The directory under `functions/`. */
  readonly name: string;
  readonly metrics: FunctionMetrics;
  readonly roleDescription: string;
  /** Name of the inline policy allowing `sqs:SendMessage` to the request queue. */
  readonly sendPolicyName: string;
  /** Further inline policies (name → statements), after the send policy. */
  readonly policies?: Record<string, PolicyStatement[]>;
  /** The function's own variables, after `ZK_CONNECT` and `D2_BASE_PATH`. */
  readonly environment: Record<string, string>;
  /** Lambda's retries of the function's own errors on an asynchronous invocation. */
  readonly retryAttempts: number;
  readonly maxEventAge?: Duration;
  /** The EventBridge rule's id and props (without targets); its target gets the DLQ. */
  readonly ruleId: string;
  readonly rule: Omit<RuleProps, 'targets'>;
  /** EventBridge's retries of its own delivery. */
  readonly targetRetryAttempts: number;
  readonly targetMaxEventAge: Duration;
  /** The failures alarm's id and description. */
  readonly alarmId: string;
  readonly alarmDescription: string;
  /** Why this queue, the DLQ, has no DLQ of its own (cdk-nag SQS3). */
  readonly deadLetterReason: string;
}

/**
 * A failout Lambda invoked by an EventBridge rule that sends requests to the request queue (the
 * stop-conditions guard, the drills runner): its log group, an encrypted DLQ (14 days) for the events
 * that fail after every retry (EventBridge's and Lambda's), a least-privilege role (its log group, the
 * VPC network interfaces, `sqs:SendMessage` to the request queue, and to its DLQ, the queue's customer
 * key when it has one, and the subclass's policies), the function, the rule, and an alarm on the DLQ
 * when an alarm action is given. It holds no ZooKeeper credential.
 */
export abstract class FailoutQueueSenderFunction extends Construct {
  readonly function: NodejsFunction;
  readonly rule: Rule;
  /** The events the function failed on after every retry. */
  readonly deadLetterQueue: Queue;
  readonly logGroup: LogGroup;
  readonly securityGroup: ISecurityGroup;
  /** The execution role. */
  readonly role: Role;
  /** The DLQ has a message; undefined without `alarmAction`. */
  readonly failuresAlarm: Alarm | undefined;

  protected constructor(scope: Construct, id: string, props: FailoutQueueSenderProps, settings: QueueSenderSettings) {
    super(scope, id);
    this.logGroup = createFunctionLogGroup(this, 'LogGroup', props.logRetention);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    this.role = createFunctionRole(this, 'ServiceRole', settings.roleDescription, this.logGroup, {
      [settings.sendPolicyName]: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [props.queue.queueArn] })],
      ...settings.policies,
    });
    props.queue.encryptionMasterKey?.grant(this.role, 'kms:GenerateDataKey', 'kms:Decrypt');

    this.function = new NodejsFunction(this, 'Function', {
      ...failoutFunctionProps({
        name: settings.name,
        vpc: props.vpc,
        vpcSubnets: props.vpcSubnets,
        zooKeeper: props.zooKeeper,
        d2BasePath: props.d2BasePath,
        metrics: settings.metrics,
        role: this.role,
        logGroup: this.logGroup,
        // A first ZooKeeper connect (10 s) plus reading from ZooKeeper and a few sends.
        timeout: Duration.seconds(30),
        memorySize: 256,
        environment: { ...settings.environment, FAILOUT_QUEUE_URL: props.queue.queueUrl },
      }),
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: settings.retryAttempts,
      maxEventAge: settings.maxEventAge,
    });
    this.securityGroup = connectFunction(this.function, props.zooKeeper, props.awsApiPeer);

    this.rule = new Rule(this, settings.ruleId, {
      ...settings.rule,
      targets: [new LambdaFunction(this.function, { deadLetterQueue: this.deadLetterQueue, retryAttempts: settings.targetRetryAttempts, maxEventAge: settings.targetMaxEventAge })],
    });

    this.failuresAlarm = props.alarmAction === undefined ? undefined : this.createFailuresAlarm(settings.alarmId, settings.alarmDescription, props.alarmAction);

    acknowledgeFunctionFindings(this.function, this.role, '', "SendMessage to the two queues' ARNs");
    Validations.of(this.deadLetterQueue).acknowledge({ id: 'AwsSolutions-SQS3', reason: settings.deadLetterReason });
  }

  /** The DLQ has a message: an event the function failed on after every retry. */
  private createFailuresAlarm(id: string, description: string, action: IAlarmAction): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    return alarm;
  }
}
