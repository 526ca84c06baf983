/**
 * The app's inputs from CDK context (`-c key=value` or the `context` block of cdk.json). Values given
 * with `-c` arrive as strings, so every list and object also accepts its JSON (or comma-list) text.
 *
 * | key | meaning | default |
 * | --- | --- | --- |
 * | `stackName` | the stack's name | `Failout` |
 * | `vpcId` | existing VPC; without it a sandbox VPC is created | — |
 * | `privateSubnetIds` | with `vpcId`: the private subnets (comma list); without, the VPC is looked up | — |
 * | `zkConnect` | ZooKeeper `host:port[,host:port…]` | required |
 * | `zkSecurityGroupId` / `zkCidr` | how to reach ZooKeeper (exactly one) | required |
 * | `zkManageIngress` | add ingress from our security groups to `zkSecurityGroupId` | `true` |
 * | `zkWriterSecretArn` | full ARN of the request worker's secret (`user:password`), read by the Lambda only | required |
 * | `zkBridgeSecretArn` | full ARN of the bridge's secret (`user:password` or JSON `{user, password}`), read by the bridge task only | required |
 * | `zkAclBridgeId` / `zkAclWriterId` | the bridge's / the request writer's digest id(s) (`ZK_ACL_BRIDGE_ID` / `ZK_ACL_WRITER_ID`) | required |
 * | `zkAclAnnouncerId` / `zkAclAdminId` | announcing services' / the admin's digest id(s) (`ZK_ACL_ANNOUNCER_ID` / `ZK_ACL_ADMIN_ID`) | — |
 * | `zkTlsCaPath` / `zkTlsServername` | TLS to ZooKeeper: the CA's PEM path in every Lambda (a layer) and the bridge's and observers' images, the servers' certificate name | plain TCP |
 * | `d2BasePath` | D2 base path | `/d2` |
 * | `bridgeBootstrap` / `bridgeBootstrapFile` | gRPC xDS bootstrap JSON, inline or a file read at synth (exactly one) | required |
 * | `bridgeServices` | services to follow: comma list or JSON array | required |
 * | `controlPlanes` | `cidr:port` comma list, or JSON `[{"cidr","port"}]` | required |
 * | `observers` | `true` deploys the D2 observers (Fargate behind an internal NLB, docs/observer.md) | `false` |
 * | `observerCount` | observer replicas (≥ 2) | `2` |
 * | `observerClientCidrs` | who may open ADS streams to the observers: comma list of CIDRs | the VPC's CIDR (required with `privateSubnetIds`) |
 * | `alarmEmail` / `alarmTopicArn` | alarm destination (a topic is created when no ARN) | — |
 * | `bridgeFallbackAlarmMinutes` | minutes on a fallback server before the alarm | `10` |
 * | `maxFailoutWindow` | `MAX_FAILOUT_WINDOW` | `72h` |
 * | `awsApiCidr` | destination of the HTTPS egress to the AWS APIs | `0.0.0.0/0` |
 * | `logRetentionDays` | log retention (a CloudWatch Logs value: 1, 3, 5, 7, 14, 30, …) | `30` |
 *
 * A digest id is `user:base64(sha1(user:password))`, one or a comma list (JSON array in cdk.json).
 * `zkDigestSecretArn` (one secret for both components) is refused, naming the keys that replace it.
 */
import { readFileSync } from 'node:fs';
import { Duration } from 'aws-cdk-lib';
import { Peer } from 'aws-cdk-lib/aws-ec2';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import type { FailoutStackProps } from './failout-stack';
import type { ControlPlane } from './network';
import { assertZooKeeperAclIds, ZooKeeperIdentityError, type AclRole, type ZooKeeperAclIds } from './zookeeper-identities';

/** Every context key the app reads. */
export const CONTEXT_KEYS = [
  'stackName',
  'vpcId',
  'privateSubnetIds',
  'zkConnect',
  'zkSecurityGroupId',
  'zkCidr',
  'zkManageIngress',
  'zkWriterSecretArn',
  'zkBridgeSecretArn',
  'zkAclBridgeId',
  'zkAclWriterId',
  'zkAclAnnouncerId',
  'zkAclAdminId',
  'zkTlsCaPath',
  'zkTlsServername',
  'd2BasePath',
  'bridgeBootstrap',
  'bridgeBootstrapFile',
  'bridgeServices',
  'controlPlanes',
  'observers',
  'observerCount',
  'observerClientCidrs',
  'alarmEmail',
  'alarmTopicArn',
  'bridgeFallbackAlarmMinutes',
  'maxFailoutWindow',
  'awsApiCidr',
  'logRetentionDays',
] as const;

type Key = (typeof CONTEXT_KEYS)[number];

/** The context key of each role's digest ids (each mirrors the `ZK_ACL_*` variable it becomes). */
const ACL_ID_KEYS = { bridge: 'zkAclBridgeId', requestWriter: 'zkAclWriterId', announcer: 'zkAclAnnouncerId', admin: 'zkAclAdminId' } as const satisfies Record<AclRole, Key>;

/** Keys earlier versions read, refused with what replaces them rather than ignored. */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  zkDigestSecretArn:
    'was replaced by zkWriterSecretArn (the request worker\'s credential) and zkBridgeSecretArn (the bridge\'s), two secrets holding two users, ' +
    'plus the roles\' digest ids zkAclBridgeId and zkAclWriterId (docs/deployers.md "Deploy with CDK"): one secret ran both components as one identity holding both roles\' permissions',
};

/** A context problem, naming the key. */
export class ContextError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`context "${key}": ${message}`);
    this.name = 'ContextError';
  }
}

/** The stack's name and props from context. @throws ContextError naming the first bad or missing key. */
export function failoutPropsFromContext(node: Pick<Node, 'tryGetContext'>): { stackName: string; props: FailoutStackProps } {
  const get = (key: Key): unknown => {
    const v: unknown = node.tryGetContext(key);
    return v === '' || v === null ? undefined : v;
  };
  const str = (key: Key): string | undefined => {
    const v = get(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw new ContextError(key, 'must be a string');
    return v;
  };
  const required = (key: Key): string => str(key) ?? fail(key, 'is required');
  for (const [key, message] of Object.entries(REPLACED_KEYS)) if (node.tryGetContext(key) !== undefined) fail(key, message);

  const vpcId = str('vpcId');
  const subnetIds = list(get('privateSubnetIds'), 'privateSubnetIds');
  if (subnetIds && !vpcId) fail('privateSubnetIds', 'needs vpcId');
  if (str('zkSecurityGroupId') && str('zkCidr')) fail('zkCidr', 'give zkSecurityGroupId or zkCidr, not both');
  if (!str('zkSecurityGroupId') && !str('zkCidr')) fail('zkSecurityGroupId', 'give zkSecurityGroupId or zkCidr');
  const zkTlsCaPath = str('zkTlsCaPath');
  if (str('zkTlsServername') && !zkTlsCaPath) fail('zkTlsServername', 'needs zkTlsCaPath');
  const writerSecretArn = required('zkWriterSecretArn');
  const bridgeSecretArn = required('zkBridgeSecretArn');
  if (writerSecretArn === bridgeSecretArn) fail('zkBridgeSecretArn', 'is the same secret as zkWriterSecretArn: give each component its own credential, or both run as one identity with both roles\' permissions');
  const aclIds = aclIdsFrom(get);
  const topicArn = str('alarmTopicArn');
  const fallbackMinutes = int(get('bridgeFallbackAlarmMinutes'), 'bridgeFallbackAlarmMinutes');
  const retention = int(get('logRetentionDays'), 'logRetentionDays');
  const observers = observersFrom(get, subnetIds !== undefined);
  if (retention !== undefined && !Object.values(RetentionDays).includes(retention)) fail('logRetentionDays', `${retention} is not a CloudWatch Logs retention`);

  return {
    stackName: str('stackName') ?? 'Failout',
    props: {
      vpc: vpcId ? { vpcId, privateSubnetIds: subnetIds } : undefined,
      zooKeeper: {
        connectString: required('zkConnect'),
        securityGroupId: str('zkSecurityGroupId'),
        cidr: str('zkCidr'),
        manageIngress: bool(get('zkManageIngress'), 'zkManageIngress'),
        writerSecretArn,
        bridgeSecretArn,
        aclIds,
        d2BasePath: str('d2BasePath'),
        tls: zkTlsCaPath ? { caPath: zkTlsCaPath, servername: str('zkTlsServername') } : undefined,
      },
      bridge: {
        bootstrap: bootstrapFrom(get('bridgeBootstrap'), str('bridgeBootstrapFile')),
        services: servicesFrom(get('bridgeServices')),
        controlPlanes: controlPlanesFrom(get('controlPlanes')),
      },
      observers,
      alarms: { email: str('alarmEmail'), topicArn, fallbackThreshold: fallbackMinutes === undefined ? undefined : Duration.minutes(fallbackMinutes) },
      maxFailoutWindow: str('maxFailoutWindow'),
      awsApiCidr: str('awsApiCidr'),
      logRetention: retention as RetentionDays | undefined,
    },
  };
}

/**
 * The observers' props, or undefined unless `observers` is true (their other keys then refused, not
 * ignored). `importedSubnets`: the VPC is imported by subnet ids, without its CIDR, so the default
 * client peers (the VPC's CIDR) do not exist and `observerClientCidrs` is required.
 */
function observersFrom(get: (key: Key) => unknown, importedSubnets: boolean): FailoutStackProps['observers'] {
  const enabled = bool(get('observers'), 'observers') ?? false;
  const desiredCount = int(get('observerCount'), 'observerCount');
  const cidrs = list(get('observerClientCidrs'), 'observerClientCidrs');
  if (!enabled) {
    if (desiredCount !== undefined) fail('observerCount', 'needs observers=true');
    if (cidrs !== undefined) fail('observerClientCidrs', 'needs observers=true');
    return undefined;
  }
  if (desiredCount !== undefined && desiredCount < 2) fail('observerCount', 'must be at least 2');
  for (const cidr of cidrs ?? []) if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(cidr)) fail('observerClientCidrs', `${cidr} is not an IPv4 CIDR such as 10.0.0.0/8`);
  if (importedSubnets && cidrs === undefined) fail('observerClientCidrs', 'is required with privateSubnetIds (the VPC is imported without its CIDR, the default): the CIDRs whose clients may open ADS streams to the observers');
  return { desiredCount, clientPeers: cidrs?.map((cidr) => Peer.ipv4(cidr)) };
}

function fail(key: string, message: string): never {
  throw new ContextError(key, message);
}

function json(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    return fail(key, `is not valid JSON (${(err as Error).message})`);
  }
}

function list(v: unknown, key: string): string[] | undefined {
  if (v === undefined) return undefined;
  const items = Array.isArray(v) ? v : typeof v === 'string' && v.trim().startsWith('[') ? json(v, key) : typeof v === 'string' ? v.split(',') : fail(key, 'must be a list');
  if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) fail(key, 'must be a list of strings');
  const out = (items as string[]).map((s) => s.trim()).filter((s) => s !== '');
  return out.length > 0 ? out : undefined;
}

function int(v: unknown, key: string): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n > 0 ? n : fail(key, 'must be a positive integer');
}

function bool(v: unknown, key: string): boolean | undefined {
  if (v === undefined || typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  return fail(key, 'must be true or false');
}

/**
 * The roles' digest ids from their keys. A value is never echoed in an error (a password pasted by
 * mistake stays out of the output), so JSON arrays are parsed here without `json()`'s message.
 */
function aclIdsFrom(get: (key: Key) => unknown): ZooKeeperAclIds {
  const ids: { [R in AclRole]?: string[] } = {};
  for (const [role, key] of Object.entries(ACL_ID_KEYS) as Array<[AclRole, Key]>) {
    const v = get(key);
    if (v === undefined) continue;
    let items: unknown = v;
    if (typeof v === 'string' && v.trim().startsWith('[')) {
      try {
        items = JSON.parse(v);
      } catch {
        fail(key, 'is not a valid JSON array (give a comma list or a JSON array of digest ids)');
      }
    } else if (typeof v === 'string') {
      items = v.split(',');
    }
    if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) fail(key, 'must be a digest id, a comma list of them, or a JSON array of them');
    const list = (items as string[]).map((id) => id.trim()).filter((id) => id !== '');
    if (list.length > 0) ids[role] = list;
  }
  try {
    assertZooKeeperAclIds(ids, ACL_ID_KEYS);
  } catch (err) {
    if (err instanceof ZooKeeperIdentityError) fail(err.field, err.detail);
    throw err;
  }
  return ids;
}

function bootstrapFrom(inline: unknown, file: string | undefined): Record<string, unknown> {
  if (inline !== undefined && file !== undefined) fail('bridgeBootstrapFile', 'give bridgeBootstrap or bridgeBootstrapFile, not both');
  let value: unknown = inline;
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      return fail('bridgeBootstrapFile', `cannot read ${file}: ${(err as Error).message}`);
    }
    value = json(text, 'bridgeBootstrapFile');
  } else if (typeof inline === 'string') {
    value = json(inline, 'bridgeBootstrap');
  }
  if (value === undefined) fail('bridgeBootstrap', 'is required (or bridgeBootstrapFile)');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(file !== undefined ? 'bridgeBootstrapFile' : 'bridgeBootstrap', 'must be a JSON object');
  return value as Record<string, unknown>;
}

function servicesFrom(v: unknown): Array<string | Record<string, unknown>> {
  if (v === undefined) fail('bridgeServices', 'is required');
  const items = typeof v === 'string' && v.trim().startsWith('[') ? json(v, 'bridgeServices') : typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : v;
  if (!Array.isArray(items) || items.length === 0) fail('bridgeServices', 'must be a non-empty list');
  return items as Array<string | Record<string, unknown>>;
}

function controlPlanesFrom(v: unknown): ControlPlane[] {
  if (v === undefined) fail('controlPlanes', 'is required');
  const items: unknown =
    typeof v === 'string' && v.trim().startsWith('[')
      ? json(v, 'controlPlanes')
      : typeof v === 'string'
        ? v.split(',').map((entry) => {
            const at = entry.lastIndexOf(':');
            return { cidr: entry.slice(0, at).trim(), port: Number(entry.slice(at + 1)) };
          })
        : v;
  if (!Array.isArray(items) || items.length === 0) fail('controlPlanes', 'must be a non-empty list');
  return (items as unknown[]).map((item, i) => {
    const cp = item as Partial<ControlPlane>;
    if (typeof cp.cidr !== 'string' || !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(cp.cidr)) fail('controlPlanes', `entry ${i}: cidr must be an IPv4 CIDR such as 10.1.0.0/16`);
    if (typeof cp.port !== 'number' || !Number.isInteger(cp.port) || cp.port < 1 || cp.port > 65535) fail('controlPlanes', `entry ${i}: port must be 1–65535`);
    return { cidr: cp.cidr, port: cp.port };
  });
}
