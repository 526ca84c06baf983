import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SubnetType, type IPeer, type ISecurityGroup, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { Rule } from 'aws-cdk-lib/aws-events';
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

/** The CloudWatch namespace and `service` dimension of the guard's EMF metrics (`RestoresSent`, `MalformedEvents`, …). */
export const GUARD_METRICS = { namespace: 'failout', service: 'failout-guard' } as const;

/** The network-interface actions a VPC Lambda's role needs on `*` (as for failout-requests). */
const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/** Props of {@link FailoutGuard}. */
export interface FailoutGuardProps {
  readonly vpc: IVpc;
  /** Default: the VPC's private subnets with egress. */
  readonly vpcSubnets?: SubnetSelection;
  /** ZooKeeper, read without a credential (cluster nodes are world-readable). */
  readonly zooKeeper: ZooKeeperAccess;
  /** The request queue the restores go to. */
  readonly queue: IQueue;
  /** `D2_BASE_PATH`. Default `/d2`. */
  readonly d2BasePath?: string;
  /** Destination of the HTTPS egress to SQS. Default any IPv4. */
  readonly awsApiPeer?: IPeer;
  /** Default one month. */
  readonly logRetention?: RetentionDays;
  /** Where the `GuardFailures` alarm goes; none when absent. */
  readonly alarmAction?: IAlarmAction;
}

/**
 * Stop conditions on AWS (issue 16): the `failout-guard` Lambda (`functions/failout-guard/handler.ts`)
 * and the EventBridge rule that hands it every CloudWatch alarm of the account that goes to ALARM
 * (`source: aws.cloudwatch`, `detail-type: CloudWatch Alarm State Change`, `detail.state.value: ALARM`).
 * The guard finds the failouts naming the alarm in `stopAlarms` and sends `restore` requests to the
 * request queue.
 *
 * Delivery: EventBridge invokes asynchronously, retrying its own delivery failures (up to 8 times within
 * an hour); the function retries its own errors twice (ZooKeeper out of reach, a restore not sent; the
 * same request ids each time). Events that still fail go to one encrypted DLQ (14 days) and raise the
 * `GuardFailures` alarm: a stop that did not happen is worth a page.
 *
 * Least privilege: the role writes its own log group, manages the VPC network interfaces (the one
 * `*`), may `sqs:SendMessage` to the request queue (SQS-managed encryption: no KMS grant; a customer
 * key, when the queue has one, gets `kms:GenerateDataKey`/`kms:Decrypt`) and to its DLQ, nothing else.
 * It holds no ZooKeeper credential.
 */
export class FailoutGuard extends Construct {
  readonly function: NodejsFunction;
  readonly rule: Rule;
  /** Alarm events the guard could not handle after every retry (EventBridge's and Lambda's). */
  readonly deadLetterQueue: Queue;
  readonly logGroup: LogGroup;
  readonly securityGroup: ISecurityGroup;
  /** The DLQ has a message; undefined without `alarmAction`. */
  readonly failuresAlarm: Alarm | undefined;

  constructor(scope: Construct, id: string, props: FailoutGuardProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'LogGroup', { retention: props.logRetention ?? RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    const role = new Role(this, 'ServiceRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'failout-guard: its own log group, VPC network interfaces, SendMessage to the request queue and its DLQ',
      inlinePolicies: {
        Logs: new PolicyDocument({
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.logGroup.logGroupArn] })],
        }),
        VpcNetworkInterfaces: new PolicyDocument({
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: [...VPC_NETWORK_INTERFACE_ACTIONS], resources: ['*'] })],
        }),
        SendRestores: new PolicyDocument({
          statements: [new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [props.queue.queueArn] })],
        }),
      },
    });
    props.queue.encryptionMasterKey?.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(REPO_ROOT, 'functions', 'failout-guard', 'handler.ts'),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      // A first ZooKeeper connect (10 s) plus reading every cluster and a few sends.
      timeout: Duration.seconds(30),
      memorySize: 256,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets ?? { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      allowAllOutbound: false,
      role,
      logGroup: this.logGroup,
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
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
        FAILOUT_QUEUE_URL: props.queue.queueUrl,
        POWERTOOLS_SERVICE_NAME: GUARD_METRICS.service,
        POWERTOOLS_METRICS_NAMESPACE: GUARD_METRICS.namespace,
        NODE_OPTIONS: '--enable-source-maps',
        ...zooKeeperTlsEnvironment(props.zooKeeper),
      },
    });
    this.securityGroup = this.function.connections.securityGroups[0]!;
    allowZooKeeper(this.securityGroup, props.zooKeeper);
    allowAwsApis(this.securityGroup, props.awsApiPeer);

    this.rule = new Rule(this, 'AlarmRule', {
      description: 'failout stop conditions: every CloudWatch alarm that goes to ALARM, to the failout-guard Lambda',
      eventPattern: { source: ['aws.cloudwatch'], detailType: ['CloudWatch Alarm State Change'], detail: { state: { value: ['ALARM'] } } },
      targets: [new LambdaFunction(this.function, { deadLetterQueue: this.deadLetterQueue, retryAttempts: 8, maxEventAge: Duration.hours(1) })],
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
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter queue of the guard (the EventBridge target and the function\'s asynchronous invocations): a DLQ of a DLQ would only hide what the alarm on it reports.',
    });
  }

  /** The DLQ has a message: an alarm event the guard failed on after every retry, a failout that may not have been stopped. */
  private createFailuresAlarm(action: IAlarmAction): Alarm {
    const alarm = new Alarm(this, 'GuardFailures', {
      alarmDescription: 'failout: the stop-conditions guard failed on an alarm event after every retry (see its DLQ and logs): a failout naming that alarm may still be active; restore it by hand',
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
