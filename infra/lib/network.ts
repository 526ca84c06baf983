/**
 * Who the failout compute may talk to. Security groups are created with `allowAllOutbound: false`;
 * these helpers add the only egress rules: ZooKeeper (its security group or CIDR, on the ports of the
 * connect string), the xDS control planes (CIDR + port), and HTTPS to the AWS APIs.
 */
import { Peer, Port, type IPeer, type ISecurityGroup } from 'aws-cdk-lib/aws-ec2';

/** How the compute reaches the ZooKeeper ensemble. Exactly one of `securityGroup` and `cidr`. */
export interface ZooKeeperAccess {
  /** `host:port[,host:port…]`, handed to the Lambda and the bridge as `ZK_CONNECT`. */
  readonly connectString: string;
  /**
   * The ensemble's security group. Egress goes to it; when it was imported mutable (the stack's
   * default), an ingress rule from our security group is added to it as well.
   */
  readonly securityGroup?: ISecurityGroup;
  /** The ensemble's CIDR, when it is not reachable by security group (peered VPC, on premises). */
  readonly cidr?: string;
  /** TLS to the ensemble's `secureClientPort` (the ports in `connectString` are then the secure ones). Plain TCP when absent. */
  readonly tls?: ZooKeeperTls;
}

/**
 * Where the Lambdas (worker, guard, drills), the bridge and the observers find the CA that verifies
 * ZooKeeper over TLS, handed to each as `ZK_TLS_CA` / `ZK_TLS_SERVERNAME` (docs/deployers.md "ZooKeeper
 * over TLS"). The PEM file itself is not deployed by the stack: a layer on every Lambda
 * (`FailoutStack.functions`) puts it under `/opt`, the bridge's and the observers' images carry it.
 */
export interface ZooKeeperTls {
  /** Path of the CA's PEM file at run time, the same in every Lambda, the bridge and the observer containers (e.g. `/opt/zk-ca.pem`). */
  readonly caPath: string;
  /** Name the servers' certificates carry, when the connect string's hosts are addresses. */
  readonly servername?: string;
}

/** The `ZK_TLS_*` environment for {@link ZooKeeperAccess.tls}; empty for plain TCP. */
export function zooKeeperTlsEnvironment(access: ZooKeeperAccess): Record<string, string> {
  if (!access.tls) return {};
  return { ZK_TLS_CA: access.tls.caPath, ...(access.tls.servername ? { ZK_TLS_SERVERNAME: access.tls.servername } : {}) };
}

/** One xDS control plane (or a CIDR holding several), as the bridge dials it. */
export interface ControlPlane {
  readonly cidr: string;
  readonly port: number;
}

const CONNECT_STRING = /^[^\s,/]+:\d+(,[^\s,/]+:\d+)*(\/[^\s]*)?$/;

/** The distinct TCP ports of a connect string (`zk1:2181,zk2:2181` → `[2181]`). @throws on a bad string. */
export function zooKeeperPorts(connectString: string): number[] {
  if (!CONNECT_STRING.test(connectString)) throw new Error(`ZooKeeper connect string must be host:port[,host:port…], got "${connectString}"`);
  const hosts = connectString.replace(/\/.*$/, '').split(',');
  return [...new Set(hosts.map((h) => Number(h.slice(h.lastIndexOf(':') + 1))))].sort((a, b) => a - b);
}

/** Validates a ZooKeeperAccess: a well-formed connect string and exactly one destination. */
export function assertZooKeeperAccess(access: ZooKeeperAccess): void {
  zooKeeperPorts(access.connectString);
  if ((access.securityGroup === undefined) === (access.cidr === undefined)) {
    throw new Error('ZooKeeper access needs exactly one of a security group or a CIDR');
  }
}

/** Lets `sg` open connections to ZooKeeper, on each port of the connect string only. */
export function allowZooKeeper(sg: ISecurityGroup, access: ZooKeeperAccess): void {
  assertZooKeeperAccess(access);
  for (const port of zooKeeperPorts(access.connectString)) {
    if (access.securityGroup) sg.connections.allowTo(access.securityGroup, Port.tcp(port), `ZooKeeper ${port}`);
    else sg.addEgressRule(Peer.ipv4(access.cidr!), Port.tcp(port), `ZooKeeper ${port}`);
  }
}

/**
 * HTTPS to the AWS APIs: the Lambda reads its Secrets Manager secret; a Fargate task pulls its image
 * from ECR, reads its ECS secrets and ships its logs through the task's own network interface. Behind
 * a NAT gateway those endpoints have public addresses, hence the default of any IPv4 on 443 only; with
 * interface endpoints (and the S3 gateway endpoint's prefix list) narrow it through `peer`.
 */
export function allowAwsApis(sg: ISecurityGroup, peer: IPeer = Peer.anyIpv4()): void {
  sg.addEgressRule(peer, Port.tcp(443), 'HTTPS to the AWS APIs (ECR, Secrets Manager, CloudWatch Logs)');
}
