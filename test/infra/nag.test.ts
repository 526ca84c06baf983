import { Peer } from 'aws-cdk-lib/aws-ec2';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { ACL_IDS, BRIDGE_SECRET_ARN, nagFindings, synthStack, WRITER_SECRET_ARN } from './helpers';

const OBSERVER_IMAGE = ContainerImage.fromRegistry('public.ecr.aws/example/d2-observer:test');

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['the default props (sandbox VPC)', {}],
    ['an imported VPC with ZooKeeper by CIDR', { vpc: { vpcId: 'vpc-0123456789abcdef0', privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa'] }, zooKeeper: { connectString: '10.9.0.10:2181', cidr: '10.9.0.0/24', writerSecretArn: WRITER_SECRET_ARN, bridgeSecretArn: BRIDGE_SECRET_ARN, aclIds: ACL_IDS } }],
    ['the D2 observers on (sandbox VPC)', { observers: { image: OBSERVER_IMAGE } }],
    [
      'the D2 observers on in an imported VPC',
      {
        vpc: { vpcId: 'vpc-0123456789abcdef0', privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'] },
        zooKeeper: { connectString: '10.9.0.10:2181', cidr: '10.9.0.0/24', writerSecretArn: WRITER_SECRET_ARN, bridgeSecretArn: BRIDGE_SECRET_ARN, aclIds: ACL_IDS },
        observers: { image: OBSERVER_IMAGE, clientPeers: [Peer.ipv4('10.0.0.0/8')] },
      },
    ],
  ])('finds no unacknowledged error with %s', (_name, overrides) => {
    const { stack } = synthStack(overrides);

    expect(nagFindings(stack, 'error')).toEqual([]);
  });

  it('finds no unacknowledged warning either, observers on', () => {
    const { stack } = synthStack({ observers: { image: OBSERVER_IMAGE } });

    expect(nagFindings(stack, 'warning')).toEqual([]);
  });
});
