import { ACL_IDS, BRIDGE_SECRET_ARN, nagFindings, synthStack, WRITER_SECRET_ARN } from './helpers';

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['the default props (sandbox VPC)', {}],
    ['an imported VPC with ZooKeeper by CIDR', { vpc: { vpcId: 'vpc-0123456789abcdef0', privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa'] }, zooKeeper: { connectString: '10.9.0.10:2181', cidr: '10.9.0.0/24', writerSecretArn: WRITER_SECRET_ARN, bridgeSecretArn: BRIDGE_SECRET_ARN, aclIds: ACL_IDS } }],
  ])('finds no unacknowledged error with %s', (_name, overrides) => {
    const { stack } = synthStack(overrides);

    expect(nagFindings(stack, 'error')).toEqual([]);
  });

  it('finds no unacknowledged warning either', () => {
    const { stack } = synthStack();

    expect(nagFindings(stack, 'warning')).toEqual([]);
  });
});
