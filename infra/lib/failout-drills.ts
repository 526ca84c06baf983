import { join } from 'node:path';
import { Arn, ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SubnetType, type IPeer, type ISecurityGroup, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FAILOUT_REQUESTS_BUNDLING } from './failout-requests-function';
import { allowAwsApis, allowZooKeeper, zooKeeperTlsEnvironment, type ZooKeeperAccess } from './network';

const REPO_ROOT = join(__dirname, '..', '..');

/** The CloudWatch namespace and `service` dimension of the drills' EMF metrics (`RunsStarted`, `RunsSkipped`, `DrillErrors`). */
export const DRILLS_METRICS = { namespace: 'failout', service: 'failout-drills' } as const;

/** The network-interface actions a VPC Lambda's role needs on `*` (as for failout-requests). */
const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/** Props of {@link FailoutDrills}. */
export interface FailoutDrillsProps {
  readonly vpc: IVpc;
  /** Default: the VPC's private subnets with egress. */
  readonly vpcSubnets?: SubnetSelection;
  /** ZooKeeper, read without a credential (drills, records and clusters are world-readable). */
  readonly zooKeeper: ZooKeeperAccess;
  /** The request queue the runs (failouts, skips) go to. */
  readonly queue: IQueue;
  /** `D2_BASE_PATH`. Default `/d2`. */
  readonly d2BasePath?: string;
  /** `FAILOUT_REQUESTS_PATH`. Default `/failout/requests`. */
  readonly requestsPath?: string;
  /** How often the runner ticks. Default every minute (a cron drill is due on a whole minute). */
  readonly tick?: Duration;
  /** Destination of the HTTPS egress to SQS and CloudWatch. Default any IPv4. */
  readonly awsApiPeer?: IPeer;
  /** Default one month. */
  readonly logRetention?: RetentionDays;
  /** Where the `DrillFailures` alarm goes; none when absent. */
  readonly alarmAction?: IAlarmAction;
}

/**
 * Drills on AWS (issue 16, "Drills"): the `failout-drills` Lambda (`functions/failout-drills/handler.ts`)
 * and an EventBridge rule that ticks it every minute. Each tick reads the drills from ZooKeeper, the
 * alarm states from CloudWatch (`DescribeAlarms`), and sends each due run's failout or `skipDrill` to
 * the request queue. `{"runNow": "<name>"}` (a manual `aws lambda invoke`) runs one drill now.
 *
 * Delivery: a tick that fails is not worth retrying for long (the next minute's tick decides afresh,
 * with the same run ids), so EventBridge retries twice within 2 minutes and the function not at all;
 * what still fails goes to an encrypted DLQ and raises the `DrillFailures` alarm.
 *
 * Least privilege: its own log group, the VPC network interfaces (the one `*`), `sqs:SendMessage` to
 * the request queue (and the queue's customer key, when it has one) and to its DLQ, and
 * `cloudwatch:DescribeAlarms` on this account's and region's alarms. No ZooKeeper credential.
 */
export class FailoutDrills extends Construct {
  readonly function: NodejsFunction;
  readonly rule: Rule;
  /** Ticks the runner failed on after every retry. */
  readonly deadLetterQueue: Queue;
  readonly logGroup: LogGroup;
  readonly securityGroup: ISecurityGroup;
  /** The DLQ has a message; undefined without `alarmAction`. */
  readonly failuresAlarm: Alarm | undefined;

  constructor(scope: Construct, id: string, props: FailoutDrillsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.logGroup = new LogGroup(this, 'LogGroup', { retention: props.logRetention ?? RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    // Every alarm of this account and region: the alarms are named by the drills, at run time.
    const alarms = Arn.format({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }, stack);
    const role = new Role(this, 'ServiceRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'failout-drills: its own log group, VPC network interfaces, SendMessage to the request queue and its DLQ, DescribeAlarms',
      inlinePolicies: {
        Logs: new PolicyDocument({
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.logGroup.logGroupArn] })],
        }),
        VpcNetworkInterfaces: new PolicyDocument({
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: [...VPC_NETWORK_INTERFACE_ACTIONS], resources: ['*'] })],
        }),
        SendRuns: new PolicyDocument({
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [props.queue.queueArn] })],
        }),
        ReadAlarms: new PolicyDocument({
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['cloudwatch:DescribeAlarms'], resources: [alarms] })],
        }),
      },
    });
    props.queue.encryptionMasterKey?.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(REPO_ROOT, 'functions', 'failout-drills', 'handler.ts'),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      // A first ZooKeeper connect (10 s) plus reading the drills, DescribeAlarms and a few sends.
      timeout: Duration.seconds(30),
      memorySize: 256,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets ?? { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      allowAllOutbound: false,
      role,
      logGroup: this.logGroup,
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: 0,
      bundling: {
        minify: FAILOUT_REQUESTS_BUNDLING.minify,
        sourceMap: true,
        format: OutputFormat.CJS,
        target: 'node22',
        externalModules: [...FAILOUT_REQUESTS_BUNDLING.externalModules],
        forceDockerBundling: false,
      },
      environment: {
        ZK_CONNECT: props.zooKeeper.connectString,
        D2_BASE_PATH: props.d2BasePath ?? '/d2',
        FAILOUT_REQUESTS_PATH: props.requestsPath ?? '/failout/requests',
        FAILOUT_QUEUE_URL: props.queue.queueUrl,
        POWERTOOLS_SERVICE_NAME: DRILLS_METRICS.service,
        POWERTOOLS_METRICS_NAMESPACE: DRILLS_METRICS.namespace,
        NODE_OPTIONS: '--enable-source-maps',
        ...zooKeeperTlsEnvironment(props.zooKeeper),
      },
    });
    this.securityGroup = this.function.connections.securityGroups[0]!;
    allowZooKeeper(this.securityGroup, props.zooKeeper);
    allowAwsApis(this.securityGroup, props.awsApiPeer);

    this.rule = new Rule(this, 'TickRule', {
      description: 'failout drills: tick the failout-drills Lambda, which starts (or skips) the drills that came due',
      schedule: Schedule.rate(props.tick ?? Duration.minutes(1)),
      targets: [new LambdaFunction(this.function, { deadLetterQueue: this.deadLetterQueue, retryAttempts: 2, maxEventAge: Duration.minutes(2) })],
    });

    this.failuresAlarm = props.alarmAction === undefined ? undefined : this.createFailuresAlarm(props.alarmAction);

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The runtime is pinned to a named Node.js version (22) on purpose: the bundle is built and tested for it, and NODEJS_LATEST would move under us.',
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `Only the VPC network-interface actions are on "*" (${VPC_NETWORK_INTERFACE_ACTIONS.join(', ')}): Lambda creates and removes the function's interfaces, and the Describe actions have no resource-level permissions. Log writes are scoped to the function's own log group; SendMessage to the two queues' ARNs.`,
    });
    Validations.of(role).acknowledge({
      // cdk-nag names the resource with its tokens spelled as <AWS::Partition> and so on.
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudwatch:<AWS::Region>:<AWS::AccountId>:alarm:*]',
      reason: "DescribeAlarms on this account's and region's alarms: drills name their outcome and blocking alarms at run time (their definitions live in ZooKeeper), so no list of alarm ARNs exists at deploy time. It only reads states.",
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This queue is itself the dead-letter queue of the drills' ticks (the EventBridge target and the function's asynchronous invocations): a DLQ of a DLQ would only hide what the alarm on it reports.",
    });
  }

  /** The DLQ has a message: a tick failed after every retry; drills due then may not have run or been recorded skipped. */
  private createFailuresAlarm(action: IAlarmAction): Alarm {
    const alarm = new Alarm(this, 'DrillFailures', {
      alarmDescription: "failout: the drills runner failed on a tick after every retry (see its DLQ and logs): a drill due then may not have run; check `failout drill history`",
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
