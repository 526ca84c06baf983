/**
 * What the failout Fargate services (the xds-bridge, the d2-observers) share, so the two constructs
 * only say what differs: the image built from a Dockerfile without a Docker engine at synth, the
 * generated admin bearer token, the container health check that asks node itself (the images are
 * node:slim, no curl), the EMF metrics the alarms read, and the cdk-nag findings accepted for a task.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, IgnoreMode, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import type { IVpc } from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { Cluster, ContainerImage, ContainerInsights, CpuArchitecture, FargateTaskDefinition, OperatingSystemFamily, type HealthCheck } from 'aws-cdk-lib/aws-ecs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

const REPO_ROOT = join(__dirname, '..', '..');

/**
 * The image from `dockerfile` (relative to the repository root, which is the context). CDK stages the
 * context at synth, so the Dockerfile's own allow-list (`<dockerfile>.dockerignore`) is applied here
 * too: otherwise node_modules and cdk.out would be copied into every synth. Docker builds it at deploy.
 */
export function imageFromDockerfile(dockerfile: string): ContainerImage {
  const ignore = readFileSync(join(REPO_ROOT, `${dockerfile}.dockerignore`), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  return ContainerImage.fromAsset(REPO_ROOT, { file: dockerfile, platform: Platform.LINUX_ARM64, ignoreMode: IgnoreMode.DOCKER, exclude: ignore });
}

/** The pieces under a failout Fargate service: its own cluster, its log group, its task definition. */
export interface FargateBase {
  readonly cluster: Cluster;
  readonly logGroup: LogGroup;
  readonly taskDefinition: FargateTaskDefinition;
}

/**
 * An ECS cluster of its own (Container Insights on), a log group with retention, and an ARM64 task
 * definition of 0.25 vCPU and 512 MiB, as `Cluster`, `LogGroup` and `TaskDefinition` under `scope`.
 */
export function createFargateBase(scope: Construct, props: { readonly vpc: IVpc; readonly logRetention?: RetentionDays | undefined }): FargateBase {
  return {
    cluster: new Cluster(scope, 'Cluster', { vpc: props.vpc, containerInsightsV2: ContainerInsights.ENABLED }),
    logGroup: new LogGroup(scope, 'LogGroup', { retention: props.logRetention ?? RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
    taskDefinition: new FargateTaskDefinition(scope, 'TaskDefinition', {
      cpu: 256,
      memoryLimitMiB: 512,
      runtimePlatform: { cpuArchitecture: CpuArchitecture.ARM64, operatingSystemFamily: OperatingSystemFamily.LINUX },
    }),
  };
}

/**
 * A generated admin bearer token (48 letters and digits: the value goes into an Authorization header
 * as is), with the cdk-nag rotation finding acknowledged for why.
 */
export function generateAdminToken(scope: Construct, id: string, description: string): Secret {
  const secret = new Secret(scope, id, { description, generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false } });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'A static bearer token the tasks read at start; rotate it with put-secret-value and a forced new deployment of the service (docs/deployers.md "Deploy with CDK"). A rotation Lambda would add a function with write access to the secret for no gain.',
  });
  return secret;
}

/** A container health check that GETs `http://127.0.0.1:<port><path>` with node's fetch: healthy on 2xx. */
export function adminHealthCheck(port: number, path: string): HealthCheck {
  return {
    // The image is node:slim (no curl): ask node itself, as the Dockerfile's HEALTHCHECK does.
    command: ['CMD', 'node', '-e', `fetch('http://127.0.0.1:${port}${path}').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`],
    interval: Duration.seconds(10),
    timeout: Duration.seconds(3),
    retries: 3,
    startPeriod: Duration.seconds(30),
  };
}

/** A metric a task writes as EMF (namespace, one `service` dimension), per minute. */
export function emfMetric(names: { readonly namespace: string; readonly service: string }, metricName: string, statistic: string, options: MetricOptions = {}): Metric {
  return new Metric({ namespace: names.namespace, metricName, dimensionsMap: { service: names.service }, statistic, period: Duration.minutes(1), ...options });
}

/** Acknowledges the cdk-nag findings every failout task definition has on purpose, `environment` saying what its environment holds. */
export function acknowledgeTaskFindings(taskDefinition: FargateTaskDefinition, environment: string): void {
  Validations.of(taskDefinition).acknowledge({ id: 'AwsSolutions-ECS2', reason: environment });
  Validations.of(taskDefinition.obtainExecutionRole()).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'ecr:GetAuthorizationToken (added for an image asset) has no resource-level permissions; the layer pulls and the secret reads stay scoped to their repository and secrets.',
  });
}
