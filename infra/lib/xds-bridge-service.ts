import { Duration } from 'aws-cdk-lib';
import type { Metric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { Peer, Port, SecurityGroup, SubnetType, type IPeer, type IVpc, type SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { FargateService, LogDrivers, Secret as EcsSecret, type Cluster, type ContainerDefinition, type ContainerImage, type FargateTaskDefinition } from 'aws-cdk-lib/aws-ecs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { BRIDGE_EMF_METRICS, parseBridgeConfig } from '../../lib/bridge/contract';
import { acknowledgeTaskFindings, adminHealthCheck, createFargateBase, emfMetric, generateAdminToken, imageFromDockerfile } from './fargate-parts';
import { allowAwsApis, allowZooKeeper, zooKeeperTlsEnvironment, type ControlPlane, type ZooKeeperAccess } from './network';
import { zooKeeperAclEnvironment, type ZooKeeperAclIds } from './zookeeper-identities';

const DOCKERFILE = 'functions/xds-bridge/Dockerfile';

/** The CloudWatch namespace and `service` dimension of the bridge's EMF lines (`lib/bridge/emf.ts`). */
export const BRIDGE_METRICS = { namespace: 'failout', service: 'xds-bridge', ...BRIDGE_EMF_METRICS } as const;

/** The admin port: `/healthz` (open), and `/readyz`, `/status`, `/config_dump`, `/metrics` (bearer token). */
export const BRIDGE_ADMIN_PORT = 9901;

/** Props of {@link XdsBridgeService}. */
export interface XdsBridgeServiceProps {
  readonly vpc: IVpc;
  /** Default: the VPC's private subnets with egress. */
  readonly vpcSubnets?: SubnetSelection;
  readonly zooKeeper: ZooKeeperAccess;
  /**
   * The bridge's own ZooKeeper digest credential, `user:password` (or JSON `{user, password}`): the
   * whole secret string becomes `ZK_CREDENTIALS`, read by the worker's rule (lib/zk `parseDigestCredential`).
   * Only the task's execution role is granted read on it: give the request worker another secret.
   */
  readonly digestSecret: ISecret;
  /** The roles' digest ids (`ZK_ACL_*`), for the ACLs of the nodes the bridge creates. */
  readonly aclIds: ZooKeeperAclIds;
  /** The gRPC xDS bootstrap (`xds_servers` in priority order, `node`, …), inlined into `XDS_BRIDGE_CONFIG`. */
  readonly bootstrap: Record<string, unknown>;
  /** The followed services: names, or `{name, listener?, path?, loadBalancerStrategyList?}`. */
  readonly services: ReadonlyArray<string | Record<string, unknown>>;
  /** The control planes the bootstrap names, as CIDR + port: the only other egress. */
  readonly controlPlanes: readonly ControlPlane[];
  /** D2 base path. Default `/d2`. */
  readonly d2BasePath?: string;
  /**
   * The image. Default: built from `functions/xds-bridge/Dockerfile` with the repository root as
   * context (staged at synth, built by Docker at deploy). Tests pass `ContainerImage.fromRegistry(...)`.
   */
  readonly image?: ContainerImage;
  /** Replicas; one leads through ZooKeeper leader election, the others stand by warm. Default 2. */
  readonly desiredCount?: number;
  /** Destination of the HTTPS egress the Fargate agent needs (ECR, Secrets Manager, Logs). Default any IPv4. */
  readonly awsApiPeer?: IPeer;
  /** Default one month. */
  readonly logRetention?: RetentionDays;
  /**
   * The admin bearer token (`BRIDGE_ADMIN_TOKEN`, at least 32 characters), as a plain-text secret.
   * Default: a generated 48-character secret ({@link XdsBridgeService.adminTokenSecret}).
   */
  readonly adminTokenSecret?: ISecret;
  /** Who may connect to the admin port from outside the task (Prometheus, an operator's bastion). Default: nobody. */
  readonly adminPeers?: readonly IPeer[];
}

/**
 * The `xds-bridge` Fargate service: its own ECS cluster (Container Insights on), an ARM64 task
 * definition, two tasks for leader election, the bridge's digest secret as the ECS secret
 * `ZK_CREDENTIALS` (never in the task definition's environment; read by the execution role only), the
 * roles' digest ids as `ZK_ACL_*`, a container health check on `/healthz`, a deployment circuit breaker
 * that rolls back, logs with retention through the awslogs driver (which also carries the EMF lines of
 * {@link metricFallbackActive} and {@link metricReady}), no public IP, and egress only to ZooKeeper,
 * the control planes and HTTPS for the AWS APIs. The configuration is validated at synth with the
 * bridge's own parser, so a bad bootstrap fails `cdk synth`, not the task.
 *
 * Admin endpoints (issue 14): the bridge binds 0.0.0.0 in the task, not only loopback, so that peers
 * given in `adminPeers` (and nothing else: the security group has no other ingress) can scrape it;
 * with awsvpc networking the task's interfaces are its loopback and its own ENI, so this is the
 * task's private address. 0.0.0.0 rather than the ENI's address because the container health check
 * runs inside the task and dials 127.0.0.1. Every path but `/healthz` needs the bearer token, passed
 * from Secrets Manager as the ECS secret `BRIDGE_ADMIN_TOKEN`; the health check needs none.
 */
export class XdsBridgeService extends Construct {
  readonly cluster: Cluster;
  readonly taskDefinition: FargateTaskDefinition;
  readonly container: ContainerDefinition;
  readonly service: FargateService;
  readonly securityGroup: SecurityGroup;
  readonly logGroup: LogGroup;
  /** The admin bearer token: the given secret, or the generated one. */
  readonly adminTokenSecret: ISecret;

  constructor(scope: Construct, id: string, props: XdsBridgeServiceProps) {
    super(scope, id);
    const config = {
      bootstrap: props.bootstrap,
      services: props.services,
      zookeeper: { connectString: props.zooKeeper.connectString, basePath: props.d2BasePath ?? '/d2' },
      admin: { host: '0.0.0.0', port: BRIDGE_ADMIN_PORT },
    };
    parseBridgeConfig(config);
    if (props.controlPlanes.length === 0) throw new Error('the bridge needs at least one control plane (CIDR and port) to reach');

    this.securityGroup = new SecurityGroup(this, 'SecurityGroup', { vpc: props.vpc, allowAllOutbound: false, description: 'xds-bridge tasks: egress to ZooKeeper, the xDS control planes and HTTPS only' });
    allowZooKeeper(this.securityGroup, props.zooKeeper);
    for (const cp of props.controlPlanes) this.securityGroup.addEgressRule(Peer.ipv4(cp.cidr), Port.tcp(cp.port), `xDS control plane ${cp.cidr}:${cp.port}`);
    allowAwsApis(this.securityGroup, props.awsApiPeer);
    for (const peer of props.adminPeers ?? []) this.securityGroup.addIngressRule(peer, Port.tcp(BRIDGE_ADMIN_PORT), 'xds-bridge admin (bearer token beyond /healthz)');
    this.adminTokenSecret = props.adminTokenSecret ?? generateAdminToken(this, 'AdminToken', 'xds-bridge admin bearer token (BRIDGE_ADMIN_TOKEN): /readyz, /status, /config_dump, /metrics');

    ({ cluster: this.cluster, logGroup: this.logGroup, taskDefinition: this.taskDefinition } = createFargateBase(this, props));
    this.container = this.taskDefinition.addContainer('xds-bridge', {
      image: props.image ?? bridgeImageFromDockerfile(),
      essential: true,
      environment: {
        XDS_BRIDGE_CONFIG: JSON.stringify(config),
        ZK_CONNECT: props.zooKeeper.connectString,
        ...zooKeeperTlsEnvironment(props.zooKeeper),
        ...zooKeeperAclEnvironment(props.aclIds),
        ADMIN_PORT: String(BRIDGE_ADMIN_PORT),
        BRIDGE_EMF_NAMESPACE: BRIDGE_METRICS.namespace,
      },
      secrets: { ZK_CREDENTIALS: EcsSecret.fromSecretsManager(props.digestSecret), BRIDGE_ADMIN_TOKEN: EcsSecret.fromSecretsManager(this.adminTokenSecret) },
      portMappings: [{ containerPort: BRIDGE_ADMIN_PORT, name: 'admin' }],
      // /healthz is the one admin path open without the token.
      healthCheck: adminHealthCheck(BRIDGE_ADMIN_PORT, '/healthz'),
      stopTimeout: Duration.seconds(10),
      logging: LogDrivers.awsLogs({ streamPrefix: 'xds-bridge', logGroup: this.logGroup }),
    });
    this.service = new FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: props.desiredCount ?? 2,
      // Replace one task at a time while the other keeps (or takes over) leadership.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      vpcSubnets: props.vpcSubnets ?? { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [this.securityGroup],
      assignPublicIp: false,
    });

    acknowledgeTaskFindings(
      this.taskDefinition,
      'The environment holds only non-secret configuration (bootstrap, service list, connect string, ports, the ZooKeeper roles\' digest ids, which are hashes); ' +
        'the bridge\'s ZooKeeper credential and the admin bearer token are ECS secrets from Secrets Manager.',
    );
  }

  /** 1 while a replica serves some authority from a fallback xDS server; Maximum per minute by default. */
  metricFallbackActive(options: MetricOptions = {}): Metric {
    return this.emfMetric(BRIDGE_METRICS.fallbackActive, 'Maximum', options);
  }

  /** 1 while a replica is ready; Minimum per minute by default (any replica not ready → 0). */
  metricReady(options: MetricOptions = {}): Metric {
    return this.emfMetric(BRIDGE_METRICS.ready, 'Minimum', options);
  }

  private emfMetric(metricName: string, statistic: string, options: MetricOptions): Metric {
    return emfMetric(BRIDGE_METRICS, metricName, statistic, options);
  }
}

/** The image from `functions/xds-bridge/Dockerfile`, context the repository root ({@link imageFromDockerfile}). */
export function bridgeImageFromDockerfile(): ContainerImage {
  return imageFromDockerfile(DOCKERFILE);
}
