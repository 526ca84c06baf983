import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IAlarmAction, type Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { Peer, Port, SecurityGroup, SubnetType, type IPeer, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { FargateService, LogDrivers, Secret as EcsSecret, type Cluster, type ContainerDefinition, type ContainerImage, type FargateTaskDefinition } from 'aws-cdk-lib/aws-ecs';
import { NetworkLoadBalancer, Protocol, type NetworkListener, type NetworkTargetGroup } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { DEFAULT_ADMIN_PORT, DEFAULT_GRPC_PORT, loadObserverConfig, OBSERVER_EMF_METRICS } from '../../lib/observer';
import { wholeMinutes } from './failout-alarms';
import { acknowledgeTaskFindings, adminHealthCheck, createFargateBase, emfMetric, generateAdminToken, imageFromDockerfile } from './fargate-parts';
import { allowAwsApis, allowZooKeeper, zooKeeperTlsEnvironment, type ZooKeeperAccess } from './network';

/** The CloudWatch namespace and `service` dimension of the observer's EMF lines (`lib/observer/emf.ts`). */
export const OBSERVER_METRICS = { namespace: 'failout', service: 'd2-observer', ...OBSERVER_EMF_METRICS } as const;

/** The ADS port clients dial (the NLB listener and the tasks). */
export const OBSERVER_GRPC_PORT = DEFAULT_GRPC_PORT;
/** The admin port: `/healthz` (open), and `/readyz`, `/status`, `/metrics` (bearer token). */
export const OBSERVER_ADMIN_PORT = DEFAULT_ADMIN_PORT;

/** Props of {@link D2ObserverService}. */
export interface D2ObserverServiceProps {
  readonly vpc: IVpc;
  /** Default: the VPC's private subnets with egress. The NLB uses the same subnets. */
  readonly vpcSubnets?: SubnetSelection;
  readonly zooKeeper: ZooKeeperAccess;
  /** D2 base path. Default `/d2`. */
  readonly d2BasePath?: string;
  /** Who may open ADS streams through the NLB. Default: the VPC's CIDR (needs a VPC that knows it). */
  readonly clientPeers?: readonly IPeer[];
  /** Replicas, at least 2 (no leader: every replica serves every client). Default 2. */
  readonly desiredCount?: number;
  /**
   * The image. Default: built from `functions/d2-observer/Dockerfile` with the repository root as
   * context (staged at synth, built by Docker at deploy). Tests pass `ContainerImage.fromRegistry(...)`.
   */
  readonly image?: ContainerImage;
  /** Destination of the HTTPS egress the Fargate agent needs (ECR, Secrets Manager, Logs). Default any IPv4. */
  readonly awsApiPeer?: IPeer;
  /** Default one month. */
  readonly logRetention?: RetentionDays;
  /** The admin bearer token (`OBSERVER_ADMIN_TOKEN`, ≥ 32 characters), plain text. Default: a generated 48-character secret. */
  readonly adminTokenSecret?: ISecret;
  /** Who may reach the admin port from outside the task (Prometheus, a bastion). Default: nobody. */
  readonly adminPeers?: readonly IPeer[];
  /** Where the alarms (and their recovery) go. Default: no action (the alarms still show in CloudWatch). */
  readonly alarmAction?: IAlarmAction;
  /** How long a replica may be not ready (or silent) before `ObserverNotReady` fires. Default 5 minutes; whole minutes. */
  readonly notReadyThreshold?: Duration;
  /** How long a replica's ZooKeeper session may be disconnected (its view lagging) before `ObserverZooKeeperLag` fires. Default 60 s. */
  readonly zooKeeperLagThreshold?: Duration;
}

/**
 * The `d2-observer` Fargate service (issue 25): at least two tasks, independent (no leader), each
 * holding one ZooKeeper view of the D2 tree and serving it over ADS, behind an internal Network Load
 * Balancer (TCP passthrough on {@link OBSERVER_GRPC_PORT}, so an observer's own TLS stays end to end).
 *
 * Why an NLB and not Cloud Map: a client's bootstrap lists one stable `server_uri` per fabric (its own
 * observers first, another fabric's as A71 fallback); the NLB keeps that name stable across task
 * replacements without clients re-resolving DNS (Cloud Map A records change with every task and are
 * cached for their TTL), spreads new streams over healthy tasks across zones, can be reached from
 * another fabric's VPC (peering or a PrivateLink endpoint service), and gives per-target health
 * metrics. gRPC streams are long-lived, so L4 balancing per connection is what ADS needs.
 *
 * Health: the container health check and the NLB's target health check ask `/healthz` (liveness,
 * open without the token). Not `/readyz`: readiness follows the ZooKeeper session, and a ZooKeeper
 * outage would then make ECS replace every observer at once, throwing away the last good views they
 * still serve (clients keep working from them; ARCHITECTURE "keeps service discovery alive"). An
 * observer that cannot reach ZooKeeper at start exits (30 s), so ECS and the circuit breaker see it.
 * Readiness is watched by the alarms instead, from the EMF lines each task writes once a minute:
 * - `ObserverNotReady`: some replica's `Ready` was 0 (or no replica reported) in every minute of the threshold.
 * - `ObserverZooKeeperLag`: some replica's `ZkDisconnectedSeconds` reached the threshold two minutes
 *   running: its view may lag ZooKeeper by that much.
 * - `ObserverTargetsUnhealthy`: the NLB saw an unhealthy target for 5 minutes (a task up but not serving).
 *
 * Least privilege: the observer only reads ZooKeeper, whose D2 tree everyone may read (ARCHITECTURE
 * "ZooKeeper layout"), so it gets no ZooKeeper credential at all; the execution role reads only the
 * admin token secret, pulls the image and writes the log group; the task role holds nothing (metrics
 * leave as log lines). Egress goes only to ZooKeeper and HTTPS for the AWS APIs.
 */
export class D2ObserverService extends Construct {
  readonly cluster: Cluster;
  readonly taskDefinition: FargateTaskDefinition;
  readonly container: ContainerDefinition;
  readonly service: FargateService;
  readonly securityGroup: SecurityGroup;
  readonly logGroup: LogGroup;
  readonly loadBalancer: NetworkLoadBalancer;
  readonly listener: NetworkListener;
  readonly targetGroup: NetworkTargetGroup;
  /** The admin bearer token: the given secret, or the generated one. */
  readonly adminTokenSecret: ISecret;
  readonly notReadyAlarm: Alarm;
  readonly zooKeeperLagAlarm: Alarm;
  readonly targetsUnhealthyAlarm: Alarm;

  constructor(scope: Construct, id: string, props: D2ObserverServiceProps) {
    super(scope, id);
    const desiredCount = props.desiredCount ?? 2;
    if (!Number.isInteger(desiredCount) || desiredCount < 2) throw new Error(`desiredCount must be at least 2 (a client needs another observer while one is replaced), got ${desiredCount}`);
    const environment = {
      ZK_CONNECT: props.zooKeeper.connectString,
      ...zooKeeperTlsEnvironment(props.zooKeeper),
      D2_BASE_PATH: props.d2BasePath ?? '/d2',
      // 0.0.0.0 in the task (awsvpc: its loopback and its own ENI): the NLB and the health check reach it.
      OBSERVER_GRPC_HOST: '0.0.0.0',
      OBSERVER_GRPC_PORT: String(OBSERVER_GRPC_PORT),
      OBSERVER_ADMIN_HOST: '0.0.0.0',
      OBSERVER_ADMIN_PORT: String(OBSERVER_ADMIN_PORT),
      OBSERVER_EMF_NAMESPACE: OBSERVER_METRICS.namespace,
    };
    // The observer's own parser, so a bad base path fails `cdk synth`, not the task (the token is a
    // placeholder). Without ZK_TLS_*: they name files in the task's image, which the parser would read
    // here, on the machine running synth.
    loadObserverConfig({ ...withoutZooKeeperTls(environment), OBSERVER_ADMIN_TOKEN: 'x'.repeat(32) });

    this.securityGroup = new SecurityGroup(this, 'SecurityGroup', { vpc: props.vpc, allowAllOutbound: false, description: 'd2-observer tasks: ADS and health checks from the NLB, egress to ZooKeeper and HTTPS only' });
    allowZooKeeper(this.securityGroup, props.zooKeeper);
    allowAwsApis(this.securityGroup, props.awsApiPeer);
    for (const peer of props.adminPeers ?? []) this.securityGroup.addIngressRule(peer, Port.tcp(OBSERVER_ADMIN_PORT), 'd2-observer admin (bearer token beyond /healthz)');
    this.adminTokenSecret = props.adminTokenSecret ?? generateAdminToken(this, 'AdminToken', 'd2-observer admin bearer token (OBSERVER_ADMIN_TOKEN): /readyz, /status, /metrics');

    ({ cluster: this.cluster, logGroup: this.logGroup, taskDefinition: this.taskDefinition } = createFargateBase(this, props));
    this.container = this.taskDefinition.addContainer('d2-observer', {
      image: props.image ?? imageFromDockerfile('functions/d2-observer/Dockerfile'),
      essential: true,
      environment,
      secrets: { OBSERVER_ADMIN_TOKEN: EcsSecret.fromSecretsManager(this.adminTokenSecret) },
      portMappings: [
        { containerPort: OBSERVER_GRPC_PORT, name: 'ads' },
        { containerPort: OBSERVER_ADMIN_PORT, name: 'admin' },
      ],
      healthCheck: adminHealthCheck(OBSERVER_ADMIN_PORT, '/healthz'),
      stopTimeout: Duration.seconds(10),
      logging: LogDrivers.awsLogs({ streamPrefix: 'd2-observer', logGroup: this.logGroup }),
    });
    const vpcSubnets = props.vpcSubnets ?? { subnetType: SubnetType.PRIVATE_WITH_EGRESS };
    this.service = new FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount,
      // Replace one task at a time: the others keep serving (clients reconnect through the NLB).
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      vpcSubnets,
      securityGroups: [this.securityGroup],
      assignPublicIp: false,
    });

    ({ loadBalancer: this.loadBalancer, listener: this.listener, targetGroup: this.targetGroup } = this.createLoadBalancer(props, vpcSubnets));
    ({ notReady: this.notReadyAlarm, zooKeeperLag: this.zooKeeperLagAlarm, targetsUnhealthy: this.targetsUnhealthyAlarm } = this.createAlarms(props));

    acknowledgeTaskFindings(this.taskDefinition, 'The environment holds only non-secret configuration (connect string, base path, addresses, ports); the admin bearer token is an ECS secret from Secrets Manager.');
  }

  /** `host:port` of the NLB's ADS listener: a `server_uri` of the clients' bootstrap. */
  get serverUri(): string {
    return `${this.loadBalancer.loadBalancerDnsName}:${OBSERVER_GRPC_PORT}`;
  }

  /** 1 while a replica is ready; Minimum per minute by default (any replica not ready → 0). */
  metricReady(options: MetricOptions = {}): Metric {
    return emfMetric(OBSERVER_METRICS, OBSERVER_METRICS.ready, 'Minimum', options);
  }

  /** Seconds a replica's ZooKeeper session has been disconnected; Maximum per minute by default. */
  metricZooKeeperDisconnectedSeconds(options: MetricOptions = {}): Metric {
    return emfMetric(OBSERVER_METRICS, OBSERVER_METRICS.zkDisconnectedSeconds, 'Maximum', options);
  }

  /** Every alarm of this construct. */
  alarms(): Alarm[] {
    return [this.notReadyAlarm, this.zooKeeperLagAlarm, this.targetsUnhealthyAlarm];
  }

  private createLoadBalancer(props: D2ObserverServiceProps, vpcSubnets: SubnetSelection): { loadBalancer: NetworkLoadBalancer; listener: NetworkListener; targetGroup: NetworkTargetGroup } {
    const lbSecurityGroup = new SecurityGroup(this, 'LoadBalancerSecurityGroup', { vpc: props.vpc, allowAllOutbound: false, description: 'd2-observer NLB: ADS from the clients, to the observer tasks only' });
    for (const peer of props.clientPeers ?? [vpcPeer(props.vpc)]) lbSecurityGroup.addIngressRule(peer, Port.tcp(OBSERVER_GRPC_PORT), 'ADS clients');
    if (props.clientPeers === undefined) {
      Validations.of(lbSecurityGroup).acknowledge({
        id: 'AwsSolutions-EC23',
        reason: "The only ingress source is the VPC's own CIDR (Fn::GetAtt CidrBlock), which cdk-nag cannot resolve at synth and reads as open; given clientPeers are checked as usual.",
      });
    }
    this.securityGroup.connections.allowFrom(lbSecurityGroup, Port.tcp(OBSERVER_GRPC_PORT), 'ADS through the NLB');
    this.securityGroup.connections.allowFrom(lbSecurityGroup, Port.tcp(OBSERVER_ADMIN_PORT), 'NLB health checks (/healthz)');
    const loadBalancer = new NetworkLoadBalancer(this, 'LoadBalancer', { vpc: props.vpc, vpcSubnets, internetFacing: false, crossZoneEnabled: true, securityGroups: [lbSecurityGroup] });
    const listener = loadBalancer.addListener('Ads', { port: OBSERVER_GRPC_PORT, protocol: Protocol.TCP });
    const targetGroup = listener.addTargets('Observers', {
      port: OBSERVER_GRPC_PORT,
      protocol: Protocol.TCP,
      targets: [this.service.loadBalancerTarget({ containerName: this.container.containerName, containerPort: OBSERVER_GRPC_PORT })],
      healthCheck: { protocol: Protocol.HTTP, port: String(OBSERVER_ADMIN_PORT), path: '/healthz', interval: Duration.seconds(10), healthyThresholdCount: 2, unhealthyThresholdCount: 2 },
      // A stopping task ends its streams itself (UNAVAILABLE, clients reconnect): no need to wait 300 s.
      deregistrationDelay: Duration.seconds(15),
    });
    Validations.of(loadBalancer).acknowledge({
      id: 'AwsSolutions-ELB2',
      reason: 'A TCP passthrough listener: NLB access logs are written for TLS listeners only; ADS streams are logged by the observers and the VPC flow logs.',
    });
    return { loadBalancer, listener, targetGroup };
  }

  private createAlarms(props: D2ObserverServiceProps): { notReady: Alarm; zooKeeperLag: Alarm; targetsUnhealthy: Alarm } {
    const notReadyMinutes = wholeMinutes(props.notReadyThreshold ?? Duration.minutes(5), 'notReadyThreshold');
    const lagSeconds = (props.zooKeeperLagThreshold ?? Duration.seconds(60)).toSeconds();
    const notReady = new Alarm(this, 'ObserverNotReady', {
      alarmDescription: `failout: a d2-observer replica has not been ready (or not reporting) for ${notReadyMinutes} minutes; see its /readyz and logs`,
      metric: this.metricReady(),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: notReadyMinutes,
      datapointsToAlarm: notReadyMinutes,
      // No EMF line at all means no replica runs: that is not ready.
      treatMissingData: TreatMissingData.BREACHING,
    });
    const zooKeeperLag = new Alarm(this, 'ObserverZooKeeperLag', {
      alarmDescription: `failout: a d2-observer's ZooKeeper session has been disconnected for ${lagSeconds} s or more: the D2 data it serves may lag ZooKeeper`,
      metric: this.metricZooKeeperDisconnectedSeconds(),
      threshold: lagSeconds,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      // Silence is ObserverNotReady's to report.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const targetsUnhealthy = new Alarm(this, 'ObserverTargetsUnhealthy', {
      alarmDescription: 'failout: the d2-observer NLB has had an unhealthy target for 5 minutes',
      metric: this.targetGroup.metrics.unHealthyHostCount({ statistic: 'Maximum', period: Duration.minutes(1) }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmAction) {
      for (const alarm of [notReady, zooKeeperLag, targetsUnhealthy]) {
        alarm.addAlarmAction(props.alarmAction);
        alarm.addOkAction(props.alarmAction);
      }
    }
    return { notReady, zooKeeperLag, targetsUnhealthy };
  }
}

/** `env` without the `ZK_TLS_*` variables (file paths in the deployed task). */
function withoutZooKeeperTls(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('ZK_TLS_')));
}

/** The VPC's CIDR as a peer. @throws when the VPC was imported without it: give `clientPeers` then. */
function vpcPeer(vpc: IVpc): IPeer {
  try {
    return Peer.ipv4(vpc.vpcCidrBlock);
  } catch (err) {
    throw new Error('the observers need clientPeers (who may open ADS streams) when the VPC was imported without its CIDR', { cause: err });
  }
}
