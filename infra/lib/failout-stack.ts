import { ArnFormat, CfnOutput, Duration, Fn, Stack, Token, type StackProps } from 'aws-cdk-lib';
import { FlowLogDestination, IpAddresses, Peer, SecurityGroup, Subnet, SubnetType, Vpc, type IPeer, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { D2ObserverService } from './d2-observer-service';
import { FailoutAlarms } from './failout-alarms';
import { FailoutGuard } from './failout-guard';
import { FailoutDrills } from './failout-drills';
import type { FailoutQueueSenderProps } from './failout-function';
import { FailoutRequestQueue } from './failout-request-queue';
import { FailoutRequestsFunction } from './failout-requests-function';
import type { ControlPlane, ZooKeeperAccess, ZooKeeperTls } from './network';
import { OperatorPolicy } from './operator-policy';
import { XdsBridgeService } from './xds-bridge-service';
import { aclIdFields, assertZooKeeperAclIds, type ZooKeeperAclIds } from './zookeeper-identities';

/** An existing VPC by id. With `privateSubnetIds` the stack stays environment-agnostic; without, it is looked up (needs an account and region). */
export interface VpcReference {
  readonly vpcId: string;
  readonly privateSubnetIds?: readonly string[];
}

/** Props of {@link FailoutStack}. */
export interface FailoutStackProps extends StackProps {
  /** The VPC: a construct, a reference by id, or nothing for a sandbox VPC (2 AZs, one NAT gateway, flow logs). */
  readonly vpc?: IVpc | VpcReference;
  readonly zooKeeper: {
    /** `host:port[,host:port…]`. */
    readonly connectString: string;
    /** The ensemble's security group id; exactly one of this and `cidr`. */
    readonly securityGroupId?: string;
    /** The ensemble's CIDR. */
    readonly cidr?: string;
    /** Add ingress rules from our security groups to the ensemble's security group. Default true. */
    readonly manageIngress?: boolean;
    /**
     * Full ARN of the request worker's secret: its digest credential `user:password` (or JSON
     * `{user, password}`), read by the Lambda only (`ZK_DIGEST_SECRET_ARN`).
     */
    readonly writerSecretArn: string;
    /**
     * Full ARN of the bridge's secret: its digest credential `user:password` (or JSON `{user, password}`), read by the
     * bridge task's execution role only (the ECS secret `ZK_CREDENTIALS`). Another secret, and another
     * user, than `writerSecretArn`.
     */
    readonly bridgeSecretArn: string;
    /** The roles' digest ids, handed to the Lambda and the bridge as `ZK_ACL_*` (`bridge` and `requestWriter` required). */
    readonly aclIds: ZooKeeperAclIds;
    /** D2 base path. Default `/d2`. */
    readonly d2BasePath?: string;
    /** TLS to the ensemble: the CA's path in every Lambda ({@link FailoutStack.functions}: give each the layer holding it) and the bridge's and observers' images (`ZK_TLS_CA`). Default plain TCP. */
    readonly tls?: ZooKeeperTls;
  };
  readonly bridge: {
    readonly bootstrap: Record<string, unknown>;
    readonly services: ReadonlyArray<string | Record<string, unknown>>;
    readonly controlPlanes: readonly ControlPlane[];
    /** Default: built from `functions/xds-bridge/Dockerfile`. */
    readonly image?: ContainerImage;
    /** Full ARN of a secret holding the admin bearer token (≥ 32 characters). Default: a generated secret. */
    readonly adminTokenSecretArn?: string;
    /** Who may reach the admin port from outside the tasks. Default: nobody. */
    readonly adminPeers?: readonly IPeer[];
  };
  /**
   * The D2 observers (issue 25: services read D2 data over xDS from them), in the same VPC, subnets and
   * ZooKeeper access as the bridge. Default: none.
   */
  readonly observers?: {
    /** Replicas, at least 2. Default 2. */
    readonly desiredCount?: number;
    /** Who may open ADS streams through the NLB. Default: the VPC's CIDR (required for a VPC imported by subnet ids). */
    readonly clientPeers?: readonly IPeer[];
    /** Default: built from `functions/d2-observer/Dockerfile`. */
    readonly image?: ContainerImage;
    /** Full ARN of a secret holding the admin bearer token (≥ 32 characters). Default: a generated secret. */
    readonly adminTokenSecretArn?: string;
    /** Who may reach the admin port from outside the tasks. Default: nobody. */
    readonly adminPeers?: readonly IPeer[];
  };
  readonly alarms?: {
    /** Subscribed to the created topic. */
    readonly email?: string;
    /** Use this topic instead of creating one. */
    readonly topicArn?: string;
    /** Default 10 minutes. */
    readonly fallbackThreshold?: Duration;
    /** Age of the oldest queued request that means a blocked FIFO group. Default: the queue's visibility timeout. */
    readonly blockedGroupThreshold?: Duration;
  };
  /** `MAX_FAILOUT_WINDOW`. Default `72h`. */
  readonly maxFailoutWindow?: string;
  /** Destination CIDR of the HTTPS egress to the AWS APIs. Default `0.0.0.0/0`. */
  readonly awsApiCidr?: string;
  /** Default one month. */
  readonly logRetention?: RetentionDays;
}

/**
 * failout on AWS (ARCHITECTURE.md "Data flow"): the request queue and its DLQ, the `failout-requests`
 * Lambda, the `failout-guard` Lambda and its alarm rule (stop conditions), the `failout-drills` Lambda and
 * its every-minute schedule, the `xds-bridge` Fargate
 * service, optionally the `d2-observer` Fargate service behind its internal NLB, the operator policy,
 * the alarms and their topic. Outputs: `QueueUrl`, `DeadLetterQueueUrl`, `OperatorPolicyArn`,
 * `BridgeAdminTokenSecretArn`, `AlarmTopicArn`, and with observers `ObserverServerUri` and
 * `ObserverAdminTokenSecretArn`.
 */
export class FailoutStack extends Stack {
  readonly vpc: IVpc;
  readonly requests: FailoutRequestQueue;
  readonly requestsFunction: FailoutRequestsFunction;
  readonly bridge: XdsBridgeService;
  readonly operatorPolicy: OperatorPolicy;
  readonly alarmTopic: ITopic;
  readonly alarms: FailoutAlarms;
  /** Stop conditions: the failout-guard Lambda and its EventBridge rule (CloudWatch alarms in ALARM). */
  readonly guard: FailoutGuard;
  /** Drills: the failout-drills Lambda and its every-minute EventBridge rule. */
  readonly drills: FailoutDrills;
  /** The D2 observers behind their NLB, when {@link FailoutStackProps.observers} asks for them. */
  readonly observers: D2ObserverService | undefined;
  /**
   * Every Lambda function of the stack: the request worker, the guard and the drill runner. Each
   * connects to ZooKeeper, so with `zooKeeper.tls` each reads the CA at `caPath` and needs the layer
   * that holds it: `for (const fn of stack.functions) fn.addLayers(layer)`. One without it fails every
   * invocation on its configuration (the file is missing).
   */
  readonly functions: readonly NodejsFunction[];

  constructor(scope: Construct, id: string, props: FailoutStackProps) {
    super(scope, id, props);
    assertSeparateIdentities(props.zooKeeper);
    const { vpc, subnets } = this.resolveVpc(props.vpc);
    this.vpc = vpc;
    const zooKeeper: ZooKeeperAccess = {
      connectString: props.zooKeeper.connectString,
      securityGroup: props.zooKeeper.securityGroupId
        ? SecurityGroup.fromSecurityGroupId(this, 'ZooKeeperSecurityGroup', props.zooKeeper.securityGroupId, { mutable: props.zooKeeper.manageIngress ?? true })
        : undefined,
      cidr: props.zooKeeper.cidr,
      tls: props.zooKeeper.tls,
    };
    const writerSecret = Secret.fromSecretCompleteArn(this, 'ZooKeeperWriterDigest', props.zooKeeper.writerSecretArn);
    const bridgeSecret = Secret.fromSecretCompleteArn(this, 'ZooKeeperBridgeDigest', props.zooKeeper.bridgeSecretArn);
    const awsApiPeer = Peer.ipv4(props.awsApiCidr ?? '0.0.0.0/0');
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;

    this.requestsFunction = new FailoutRequestsFunction(this, 'FailoutRequests', {
      vpc,
      vpcSubnets: subnets,
      zooKeeper,
      digestSecret: writerSecret,
      aclIds: props.zooKeeper.aclIds,
      maxFailoutWindow: props.maxFailoutWindow,
      d2BasePath: props.zooKeeper.d2BasePath,
      awsApiPeer,
      logRetention,
    });
    this.requests = new FailoutRequestQueue(this, 'Requests', { consumerTimeout: this.requestsFunction.functionTimeout });
    this.requestsFunction.bindQueue(this.requests.queue);

    this.bridge = new XdsBridgeService(this, 'XdsBridge', {
      vpc,
      vpcSubnets: subnets,
      zooKeeper,
      digestSecret: bridgeSecret,
      aclIds: props.zooKeeper.aclIds,
      bootstrap: props.bridge.bootstrap,
      services: props.bridge.services,
      controlPlanes: props.bridge.controlPlanes,
      d2BasePath: props.zooKeeper.d2BasePath,
      image: props.bridge.image,
      adminTokenSecret: props.bridge.adminTokenSecretArn ? Secret.fromSecretCompleteArn(this, 'BridgeAdminToken', props.bridge.adminTokenSecretArn) : undefined,
      adminPeers: props.bridge.adminPeers,
      awsApiPeer,
      logRetention,
    });

    this.operatorPolicy = new OperatorPolicy(this, 'Operators', {
      queue: this.requests.queue,
      deadLetterQueue: this.requests.deadLetterQueue,
      requestsLogGroup: this.requestsFunction.logGroup,
    });

    this.alarmTopic = props.alarms?.topicArn ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarms.topicArn) : this.createAlarmTopic();
    if (props.alarms?.email) this.alarmTopic.addSubscription(new EmailSubscription(props.alarms.email));
    this.alarms = new FailoutAlarms(this, 'Alarms', {
      queue: this.requests,
      requestsFunction: this.requestsFunction,
      bridge: this.bridge,
      topic: this.alarmTopic,
      fallbackThreshold: props.alarms?.fallbackThreshold,
      blockedGroupThreshold: props.alarms?.blockedGroupThreshold,
    });
    // The guard and the drills send to the request queue from the same network, and page the same topic.
    const queueSender: FailoutQueueSenderProps = {
      vpc,
      vpcSubnets: subnets,
      zooKeeper,
      queue: this.requests.queue,
      d2BasePath: props.zooKeeper.d2BasePath,
      awsApiPeer,
      logRetention,
      alarmAction: new SnsAction(this.alarmTopic),
    };
    this.guard = new FailoutGuard(this, 'FailoutGuard', queueSender);
    this.drills = new FailoutDrills(this, 'FailoutDrills', queueSender);
    this.functions = [this.requestsFunction, this.guard.function, this.drills.function];
    this.observers = props.observers
      ? new D2ObserverService(this, 'D2Observers', {
          vpc,
          vpcSubnets: subnets,
          zooKeeper,
          d2BasePath: props.zooKeeper.d2BasePath,
          desiredCount: props.observers.desiredCount,
          clientPeers: props.observers.clientPeers,
          image: props.observers.image,
          adminTokenSecret: props.observers.adminTokenSecretArn ? Secret.fromSecretCompleteArn(this, 'ObserverAdminToken', props.observers.adminTokenSecretArn) : undefined,
          adminPeers: props.observers.adminPeers,
          awsApiPeer,
          logRetention,
          alarmAction: new SnsAction(this.alarmTopic),
        })
      : undefined;

    new CfnOutput(this, 'QueueUrl', { value: this.requests.queue.queueUrl, description: 'Change-request queue (FAILOUT_QUEUE_URL for the failout CLI)' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.requests.deadLetterQueue.queueUrl, description: 'Dead-letter queue of the change requests' });
    new CfnOutput(this, 'OperatorPolicyArn', { value: this.operatorPolicy.managedPolicyArn, description: 'Attach to operator roles' });
    new CfnOutput(this, 'BridgeAdminTokenSecretArn', { value: this.bridge.adminTokenSecret.secretArn, description: 'The xds-bridge admin bearer token (Authorization: Bearer …) beyond /healthz' });
    if (this.observers) {
      new CfnOutput(this, 'ObserverServerUri', { value: this.observers.serverUri, description: 'The D2 observers\' ADS endpoint: a server_uri of the services\' xDS bootstrap (docs/observer.md)' });
      new CfnOutput(this, 'ObserverAdminTokenSecretArn', { value: this.observers.adminTokenSecret.secretArn, description: 'The d2-observer admin bearer token (Authorization: Bearer …) beyond /healthz' });
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'Where the failout alarms go' });
  }

  private resolveVpc(input: FailoutStackProps['vpc']): { vpc: IVpc; subnets: SubnetSelection | undefined } {
    if (input === undefined) return { vpc: this.createSandboxVpc(), subnets: undefined };
    if (!('vpcId' in input) || 'node' in input) return { vpc: input as IVpc, subnets: undefined };
    const ref = input;
    if (ref.privateSubnetIds && ref.privateSubnetIds.length > 0) {
      // Environment-agnostic import: no lookup, so no credentials at synth. The AZs are never read:
      // the subnets are selected explicitly.
      const vpc = Vpc.fromVpcAttributes(this, 'Vpc', { vpcId: ref.vpcId, availabilityZones: Fn.getAzs() });
      const subnets = ref.privateSubnetIds.map((id, i) => Subnet.fromSubnetId(this, `PrivateSubnet${i}`, id));
      return { vpc, subnets: { subnets } };
    }
    return { vpc: Vpc.fromLookup(this, 'Vpc', { vpcId: ref.vpcId }), subnets: undefined };
  }

  private createSandboxVpc(): Vpc {
    return new Vpc(this, 'SandboxVpc', {
      ipAddresses: IpAddresses.cidr('10.40.0.0/16'),
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
      flowLogs: { all: { destination: FlowLogDestination.toCloudWatchLogs() } },
    });
  }

  /**
   * The alarm topic, encrypted with a customer key (SNS's AWS-managed key does not let CloudWatch
   * publish). CloudWatch alarms are the key's only service user: it encrypts nothing else (the log
   * groups use CloudWatch Logs' own encryption). CloudWatch gets the key and the topic only for alarms
   * of this account and region (`aws:SourceAccount` + `aws:SourceArn`, issue 14): a bare service
   * principal would let CloudWatch act for an alarm in any account that names this topic (the
   * confused deputy). Alarm ARNs are not used one by one because the alarms reference the topic, which
   * references the key: naming them in the key policy would be a dependency cycle.
   */
  private createAlarmTopic(): Topic {
    const key = new Key(this, 'AlarmTopicKey', { enableKeyRotation: true, description: 'failout alarm topic' });
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': this.account },
      ArnLike: { 'aws:SourceArn': this.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
    };
    key.addToResourcePolicy(new PolicyStatement({ effect: Effect.ALLOW, principals: [cloudWatch], actions: ['kms:Decrypt', 'kms:GenerateDataKey*'], resources: ['*'], conditions: fromOurAlarms }));
    const topic = new Topic(this, 'AlarmTopic', { displayName: 'failout alarms', masterKey: key, enforceSSL: true });
    // enforceSSL gives the topic a policy of its own, which replaces SNS's default (the account may publish):
    // CloudWatch needs an explicit Allow next to the TLS Deny.
    topic.addToResourcePolicy(new PolicyStatement({ effect: Effect.ALLOW, principals: [cloudWatch], actions: ['sns:Publish'], resources: [topic.topicArn], conditions: fromOurAlarms }));
    return topic;
  }
}

/** A Secrets Manager secret's complete ARN: the name ends in `-` and the 6 random characters. */
const SECRET_COMPLETE_ARN = /^arn:[^:]+:secretsmanager:[^:]*:\d{12}:secret:.+-[A-Za-z0-9]{6}$/;

/**
 * One identity per component (issue 14): two secrets, never the same one, and each role's own digest
 * ids. Also refuses the single `digestSecretArn` of earlier versions, which plain JavaScript (or a
 * cast) could still pass, instead of ignoring it.
 * @throws Error naming the props field at fault, never a value.
 */
function assertSeparateIdentities(zooKeeper: FailoutStackProps['zooKeeper']): void {
  if ('digestSecretArn' in zooKeeper) {
    throw new Error('zooKeeper.digestSecretArn was replaced by zooKeeper.writerSecretArn (the request worker\'s credential) and zooKeeper.bridgeSecretArn (the bridge\'s): one secret ran both as one identity');
  }
  for (const field of ['writerSecretArn', 'bridgeSecretArn'] as const) {
    const arn: unknown = zooKeeper[field];
    if (typeof arn !== 'string' || arn === '') throw new Error(`zooKeeper.${field} is required: the full ARN of a Secrets Manager secret holding user:password`);
    // CDK checks the suffix too, but without saying which of the two secrets is at fault.
    if (!Token.isUnresolved(arn) && !SECRET_COMPLETE_ARN.test(arn)) throw new Error(`zooKeeper.${field} must be a secret's full ARN, arn:…:secretsmanager:REGION:ACCOUNT:secret:NAME-XXXXXX (as create-secret prints it)`);
  }
  const { writerSecretArn, bridgeSecretArn } = zooKeeper;
  if (!Token.isUnresolved(writerSecretArn) && !Token.isUnresolved(bridgeSecretArn) && writerSecretArn === bridgeSecretArn) {
    throw new Error('zooKeeper.bridgeSecretArn is the same secret as zooKeeper.writerSecretArn: give each component its own credential, or both run as one identity with both roles\' permissions');
  }
  assertZooKeeperAclIds(zooKeeper.aclIds, aclIdFields('zooKeeper.aclIds'));
}
