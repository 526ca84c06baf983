import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { SubnetType, type IPeer, type ISecurityGroup, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { parseDuration } from '../../lib/requests';
import { allowAwsApis, allowZooKeeper, zooKeeperTlsEnvironment, type ZooKeeperAccess } from './network';
import { zooKeeperAclEnvironment, type ZooKeeperAclIds } from './zookeeper-identities';

/** Repository root: the NodejsFunction project root (package.json "imports" and the lock file live there). */
const REPO_ROOT = join(__dirname, '..', '..');

/** The CloudWatch namespace and `service` dimension of the handler's EMF metrics (Powertools Metrics). */
export const REQUESTS_METRICS = { namespace: 'failout', service: 'failout-requests' } as const;

/**
 * What a VPC-attached Lambda's role needs to create, find and remove its network interfaces (the ec2
 * half of AWSLambdaVPCAccessExecutionRole, without its `logs:*` on every log group). These are the only
 * actions on `*`: the Describe actions have no resource-level permissions, and Lambda manages the
 * interfaces (names and ids it picks) in the subnets and security group of the function.
 */
const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/** Props of {@link FailoutRequestsFunction}. */
export interface FailoutRequestsFunctionProps {
  readonly vpc: IVpc;
  /** Default: the VPC's private subnets with egress. */
  readonly vpcSubnets?: SubnetSelection;
  readonly zooKeeper: ZooKeeperAccess;
  /**
   * The request writer's own ZooKeeper digest credential, `user:password` (or JSON `{user, password}`),
   * as `ZK_DIGEST_SECRET_ARN`. Only this function is granted read on it: give the bridge another secret.
   */
  readonly digestSecret: ISecret;
  /** The roles' digest ids (`ZK_ACL_*`), for the ACLs of the nodes the writer creates. */
  readonly aclIds: ZooKeeperAclIds;
  /** `MAX_FAILOUT_WINDOW`: ISO-8601 (`PT72H`) or short (`72h`). Default `72h`. */
  readonly maxFailoutWindow?: string;
  /** `D2_BASE_PATH`. Default `/d2`. */
  readonly d2BasePath?: string;
  /** `FAILOUT_REQUESTS_PATH`. Default `/failout/requests`. */
  readonly requestsPath?: string;
  /** Destination of the HTTPS egress to Secrets Manager. Default any IPv4 (see `allowAwsApis`). */
  readonly awsApiPeer?: IPeer;
  /** Default one month. */
  readonly logRetention?: RetentionDays;
  /** Default 30 s: room for a first ZooKeeper connect (10 s) plus a batch of CAS writes. */
  readonly timeout?: Duration;
  /** Default 256 MB. */
  readonly memorySize?: number;
  /** Extra environment (e.g. `ZK_SESSION_TIMEOUT_MS`, `POWERTOOLS_LOG_LEVEL`); wins over the defaults. */
  readonly environment?: Record<string, string>;
}

/**
 * What the function's bundle is made with, besides the target: the local stack and the bundle test
 * build the same artefact (lib/local `LAMBDA_BUNDLING`; a test keeps the two equal).
 */
export const FAILOUT_REQUESTS_BUNDLING = Object.freeze({ minify: true, format: 'cjs' as const, externalModules: Object.freeze(['@aws-sdk/*']) });

/**
 * The `failout-requests` Lambda (`functions/failout-requests/handler.ts`) with the defaults fixed, in
 * the style of Powertools' `FunctionWithLogGroup`: Node.js 22 (named, not "latest"), ARM64, bundled
 * locally by esbuild (minified, source maps, CommonJS, `@aws-sdk/*` from the runtime; esbuild resolves
 * the package.json `#powertools/*` and `#commons/*` imports), in the VPC's private subnets with its own
 * security group (egress to ZooKeeper and HTTPS only), a log group with retention, read access to the
 * request writer's digest secret and nothing wider, and the roles' digest ids as `ZK_ACL_*`. {@link bindQueue} subscribes it to the request queue.
 *
 * Its role has no AWS-managed policy (issue 14): AWSLambdaBasicExecutionRole and
 * AWSLambdaVPCAccessExecutionRole both allow log writes to every log group of the account. Inline
 * policies grant `logs:CreateLogStream`/`logs:PutLogEvents` on the function's own log group, and the
 * network-interface actions a VPC function needs on `*` (the one cdk-nag acknowledgement, IAM5).
 */
export class FailoutRequestsFunction extends NodejsFunction {
  /** Timeout when not given. */
  static readonly DEFAULT_TIMEOUT = Duration.seconds(30);

  readonly securityGroup: ISecurityGroup;
  /** The function's timeout, for the queue's visibility timeout. */
  readonly functionTimeout: Duration;

  constructor(scope: Construct, id: string, props: FailoutRequestsFunctionProps) {
    const maxWindow = props.maxFailoutWindow ?? '72h';
    if (!((parseDuration(maxWindow) ?? 0) > 0)) throw new Error(`maxFailoutWindow must be a positive duration such as PT72H or 72h, got "${maxWindow}"`);
    const timeout = props.timeout ?? FailoutRequestsFunction.DEFAULT_TIMEOUT;
    // Created before super() (as Powertools' FunctionWithLogGroup does): the function needs it at construction.
    const logGroup = new LogGroup(scope, `${id}LogGroup`, { retention: props.logRetention ?? RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const role = FailoutRequestsFunction.createRole(scope, `${id}ServiceRole`, logGroup);
    super(scope, id, {
      entry: join(REPO_ROOT, 'functions', 'failout-requests', 'handler.ts'),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout,
      memorySize: props.memorySize ?? 256,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets ?? { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      allowAllOutbound: false,
      role,
      logGroup,
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
        MAX_FAILOUT_WINDOW: maxWindow,
        ZK_DIGEST_SECRET_ARN: props.digestSecret.secretArn,
        POWERTOOLS_SERVICE_NAME: REQUESTS_METRICS.service,
        POWERTOOLS_METRICS_NAMESPACE: REQUESTS_METRICS.namespace,
        NODE_OPTIONS: '--enable-source-maps',
        ...zooKeeperTlsEnvironment(props.zooKeeper),
        ...zooKeeperAclEnvironment(props.aclIds),
        ...props.environment,
      },
    });
    this.securityGroup = this.connections.securityGroups[0]!;
    const securityGroup = this.securityGroup;
    this.functionTimeout = timeout;
    allowZooKeeper(securityGroup, props.zooKeeper);
    allowAwsApis(securityGroup, props.awsApiPeer);
    props.digestSecret.grantRead(this);

    // cdk-nag AwsSolutions findings accepted on purpose.
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The runtime is pinned to a named Node.js version (22) on purpose: the bundle is built and tested for it, and NODEJS_LATEST would move under us.',
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        `Only the VPC network-interface actions are on "*" (${VPC_NETWORK_INTERFACE_ACTIONS.join(', ')}): Lambda creates and removes the function's interfaces under names it picks, ` +
        'and the Describe actions have no resource-level permissions. Log writes are scoped to the function\'s own log group; the secret and the queue to their ARNs.',
    });
  }

  /** The execution role: its own log group and the VPC network interfaces, no managed policy. */
  private static createRole(scope: Construct, id: string, logGroup: LogGroup): Role {
    return new Role(scope, id, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'failout-requests: its own log group, VPC network interfaces; grants add the secret and the queue',
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
      },
    });
  }

  /**
   * Subscribes to the request queue: batches of 10 with partial batch responses, so a transient
   * failure retries only its record (and the rest of its message group, Powertools' FIFO processor).
   */
  bindQueue(queue: IQueue): SqsEventSource {
    const source = new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true });
    this.addEventSource(source);
    return source;
  }

  /** The handler's EMF metric `name` (`Applied`, `Rejected`, `Duplicate`, `TransientFailure`, …); Sum per 5 minutes by default. */
  metricRequests(name: string, options: MetricOptions = {}): Metric {
    return new Metric({
      namespace: REQUESTS_METRICS.namespace,
      metricName: name,
      dimensionsMap: { service: REQUESTS_METRICS.service },
      statistic: 'Sum',
      period: Duration.minutes(5),
      ...options,
    });
  }
}
