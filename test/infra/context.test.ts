import { ContextError, failoutPropsFromContext, zooKeeperPorts } from '../../infra/lib';
import { ACL_IDS, BOOTSTRAP, BRIDGE_SECRET_ARN, IDENTITY_CONTEXT, WRITER_SECRET_ARN } from './helpers';

/** What `-c key=value` gives: strings. */
const CLI_CONTEXT: Record<string, string> = {
  zkConnect: 'zk1:2181,zk2:2181',
  zkCidr: '10.0.0.0/24',
  ...IDENTITY_CONTEXT,
  bridgeBootstrap: JSON.stringify(BOOTSTRAP),
  bridgeServices: 'greetings, billing',
  controlPlanes: '10.1.0.0/16:18000,10.2.0.0/16:443',
};

const nodeOf = (context: Record<string, unknown>) => ({ tryGetContext: (key: string): unknown => context[key] });

function keyAtFault(context: Record<string, unknown>): string | undefined {
  try {
    failoutPropsFromContext(nodeOf(context));
  } catch (err) {
    if (err instanceof ContextError) return err.key;
    throw err;
  }
  return undefined;
}

describe('app context', () => {
  it('reads the -c strings into stack props, with a sandbox VPC when no vpcId', () => {
    const { stackName, props } = failoutPropsFromContext(nodeOf({ ...CLI_CONTEXT, bridgeFallbackAlarmMinutes: '15', zkManageIngress: 'false', logRetentionDays: '14' }));

    expect(stackName).toBe('Failout');
    expect(props.vpc).toBeUndefined();
    expect(props.zooKeeper).toMatchObject({ connectString: 'zk1:2181,zk2:2181', cidr: '10.0.0.0/24', manageIngress: false, writerSecretArn: WRITER_SECRET_ARN, bridgeSecretArn: BRIDGE_SECRET_ARN });
    expect(props.zooKeeper.aclIds).toEqual({ bridge: [ACL_IDS.bridge], requestWriter: [ACL_IDS.requestWriter], announcer: [ACL_IDS.announcer], admin: [ACL_IDS.admin] });
    expect(props.bridge).toMatchObject({ bootstrap: BOOTSTRAP, services: ['greetings', 'billing'], controlPlanes: [{ cidr: '10.1.0.0/16', port: 18000 }, { cidr: '10.2.0.0/16', port: 443 }] });
    expect(props.alarms?.fallbackThreshold?.toMinutes()).toBe(15);
    expect(props.logRetention).toBe(14);
  });

  it('accepts JSON values from cdk.json and an imported VPC', () => {
    const { props } = failoutPropsFromContext(
      nodeOf({ ...CLI_CONTEXT, bridgeBootstrap: BOOTSTRAP, bridgeServices: ['greetings', { name: 'billing' }], controlPlanes: [{ cidr: '10.1.0.0/16', port: 18000 }], vpcId: 'vpc-1', privateSubnetIds: 'subnet-1,subnet-2', stackName: 'FailoutProd' }),
    );

    expect(props.vpc).toEqual({ vpcId: 'vpc-1', privateSubnetIds: ['subnet-1', 'subnet-2'] });
    expect(props.bridge.services).toEqual(['greetings', { name: 'billing' }]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no connect string', { zkConnect: undefined }, 'zkConnect'],
    ['no writer secret', { zkWriterSecretArn: undefined }, 'zkWriterSecretArn'],
    ['no bridge secret', { zkBridgeSecretArn: undefined }, 'zkBridgeSecretArn'],
    ['both a security group and a CIDR', { zkSecurityGroupId: 'sg-1' }, 'zkCidr'],
    ['neither a security group nor a CIDR', { zkCidr: undefined }, 'zkSecurityGroupId'],
    ['a bootstrap that is not JSON', { bridgeBootstrap: '{nope' }, 'bridgeBootstrap'],
    ['an unreadable bootstrap file', { bridgeBootstrap: undefined, bridgeBootstrapFile: '/nonexistent/bootstrap.json' }, 'bridgeBootstrapFile'],
    ['no services', { bridgeServices: undefined }, 'bridgeServices'],
    ['a control plane without a port', { controlPlanes: '10.1.0.0/16' }, 'controlPlanes'],
    ['subnets without a VPC', { privateSubnetIds: 'subnet-1' }, 'privateSubnetIds'],
    ['a retention CloudWatch does not offer', { logRetentionDays: '2' }, 'logRetentionDays'],
    ['one secret for both components', { zkBridgeSecretArn: WRITER_SECRET_ARN }, 'zkBridgeSecretArn'],
    ['the single secret of earlier versions', { zkDigestSecretArn: WRITER_SECRET_ARN }, 'zkDigestSecretArn'],
    ['no bridge id', { zkAclBridgeId: undefined }, 'zkAclBridgeId'],
    ['no request writer id', { zkAclWriterId: '' }, 'zkAclWriterId'],
    ['an announcer id that is not a digest id', { zkAclAnnouncerId: 'announcer:plain-password' }, 'zkAclAnnouncerId'],
    ['an admin id list that is not JSON', { zkAclAdminId: '[admin:x' }, 'zkAclAdminId'],
    ['the bridge id given for the writer too', { zkAclWriterId: `${ACL_IDS.requestWriter},${ACL_IDS.bridge}` }, 'zkAclWriterId'],
    // docs/observer.md: observerClientCidrs is "required with privateSubnetIds" (such a VPC is imported without its CIDR).
    ['observers in a VPC imported by subnet ids, without client CIDRs', { observers: 'true', vpcId: 'vpc-1', privateSubnetIds: 'subnet-1,subnet-2' }, 'observerClientCidrs'],
  ])('names the key at fault for %s', (_name, change, key) => {
    expect(keyAtFault({ ...CLI_CONTEXT, ...change })).toBe(key);
  });

  it('takes observers in a VPC imported by subnet ids when their client CIDRs are given', () => {
    // Act
    const { props } = failoutPropsFromContext(nodeOf({ ...CLI_CONTEXT, observers: 'true', vpcId: 'vpc-1', privateSubnetIds: 'subnet-1,subnet-2', observerClientCidrs: '10.0.0.0/8' }));

    // Assess
    expect(props.observers?.clientPeers?.map((p) => p.uniqueId)).toEqual(['10.0.0.0/8']);
  });

  it('reads comma lists and JSON arrays of ids, and leaves the optional roles out when not given', () => {
    // Prepare
    const context = { ...CLI_CONTEXT, zkAclWriterId: ` ${ACL_IDS.requestWriter} , ${ACL_IDS.admin} `, zkAclBridgeId: JSON.stringify([ACL_IDS.bridge]), zkAclAnnouncerId: undefined, zkAclAdminId: undefined };

    // Act
    const { props } = failoutPropsFromContext(nodeOf(context));

    // Assess
    expect(props.zooKeeper.aclIds).toEqual({ bridge: [ACL_IDS.bridge], requestWriter: [ACL_IDS.requestWriter, ACL_IDS.admin] });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a password where an id belongs', { zkAclAnnouncerId: 'announcer:hunter2-secret' }, /^context "zkAclAnnouncerId": entry 1 is not a digest id/],
    ['a malformed JSON list', { zkAclAdminId: '["admin:hunter2-secret"' }, /^context "zkAclAdminId": is not a valid JSON array/],
    ['the replaced key', { zkDigestSecretArn: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:hunter2-secret-AbCdEf' }, /^context "zkDigestSecretArn": was replaced by zkWriterSecretArn .* and zkBridgeSecretArn/],
  ])('says what is wrong with %s without echoing the value', (_name, change, message) => {
    // Act
    const read = (): unknown => failoutPropsFromContext(nodeOf({ ...CLI_CONTEXT, ...change }));

    // Assess
    expect(read).toThrow(message);
    expect(read).not.toThrow(/hunter2/);
  });

  it.each<[string, number[]]>([
    ['zk1:2181,zk2:2181,zk3:2181', [2181]],
    ['10.0.0.1:2182,10.0.0.2:2181/chroot', [2181, 2182]],
  ])('takes the ZooKeeper ports from %s', (connect, ports) => {
    expect(zooKeeperPorts(connect)).toEqual(ports);
  });

  it('refuses a connect string without ports', () => {
    expect(() => zooKeeperPorts('zk1,zk2')).toThrow(/host:port/);
  });
});
