import { Duration } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import type { IPeer, ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { parseDuration } from '../../lib/requests';
import { acknowledgeDescribeAlarms, acknowledgeFunctionFindings, connectFunction, createFunctionLogGroup, createFunctionRole, describeAlarmsStatement, failoutFunctionProps } from './failout-function';
import type { ZooKeeperAccess } from './network';
import { zooKeeperAclEnvironment, type ZooKeeperAclIds } from './zookeeper-identities';

export { FAILOUT_REQUESTS_BUNDLING } from './failout-function';

/** The CloudWatch namespace and `service` dimension of the handler's EMF metrics (Powertools Metrics). */
export const REQUESTS_METRICS = { namespace: 'failout', service: 'failout-requests' } as const;

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
 * The `failout-requests` Lambda (`functions/failout-requests/handler.ts`) with the defaults fixed, in
 * the style of Powertools' `FunctionWithLogGroup`: Node.js 22 (named, not "latest"), ARM64, bundled
 * locally by esbuild (minified, source maps, CommonJS, `@aws-sdk/*` from the runtime; esbuild resolves
 * the package.json `#powertools/*` and `#commons/*` imports), in the VPC's private subnets with its own
 * security group (egress to ZooKeeper and HTTPS only), a log group with retention, read access to the
 * request writer's digest secret and nothing wider, and the roles' digest ids as `ZK_ACL_*`. {@link bindQueue} subscribes it to the request queue.
 * It reads the alarms requests name with CloudWatch `DescribeAlarms` (`FAILOUT_ALARMS_CLOUDWATCH=1`;
 * on this account's and region's alarms, the only other wildcard): behind a VPC endpoint policy, the
 * subnets need a `monitoring` interface endpoint or a NAT, as they need one for Secrets Manager.
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
    const logGroup = createFunctionLogGroup(scope, `${id}LogGroup`, props.logRetention);
    // DescribeAlarms (issue 21): a failout's stop alarms must exist and not be firing, a drill's must exist.
    const role = createFunctionRole(scope, `${id}ServiceRole`, 'failout-requests: its own log group, VPC network interfaces, DescribeAlarms; grants add the secret and the queue', logGroup, {
      ReadAlarms: [describeAlarmsStatement(scope)],
    });
    super(
      scope,
      id,
      failoutFunctionProps({
        name: 'failout-requests',
        vpc: props.vpc,
        vpcSubnets: props.vpcSubnets,
        zooKeeper: props.zooKeeper,
        d2BasePath: props.d2BasePath,
        metrics: REQUESTS_METRICS,
        role,
        logGroup,
        timeout,
        memorySize: props.memorySize ?? 256,
        environment: {
          FAILOUT_REQUESTS_PATH: props.requestsPath ?? '/failout/requests',
          MAX_FAILOUT_WINDOW: maxWindow,
          ZK_DIGEST_SECRET_ARN: props.digestSecret.secretArn,
          // The alarms requests name are read from CloudWatch (lib/requests `alarm-check.ts`).
          FAILOUT_ALARMS_CLOUDWATCH: '1',
        },
        trailingEnvironment: { ...zooKeeperAclEnvironment(props.aclIds), ...props.environment },
      }),
    );
    this.functionTimeout = timeout;
    this.securityGroup = connectFunction(this, props.zooKeeper, props.awsApiPeer);
    props.digestSecret.grantRead(this);

    // cdk-nag AwsSolutions findings accepted on purpose.
    acknowledgeFunctionFindings(this, role, ' under names it picks', 'the secret and the queue to their ARNs');
    acknowledgeDescribeAlarms(role, "failouts' stop alarms and drills' outcome and blocking alarms, as requests");
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

  /** The handler's EMF metric `name` (`Applied`, `Rejected`, `Duplicate`, `UnreadableRecord`, `UnreadableFailoutRemoved`, `AlarmsUnchecked`, `TransientFailure`, …); Sum per 5 minutes by default. */
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
