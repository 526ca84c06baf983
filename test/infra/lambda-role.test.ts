import { Validations } from 'aws-cdk-lib';
import { actionsOf, roleStatements, synthStack, type Resource } from './helpers';

// Issue 14: AWSLambdaBasicExecutionRole (and AWSLambdaVPCAccessExecutionRole) grant logs:* writes on
// every log group of the account. The worker writes its own log group and nothing else.
describe('failout-requests Lambda role', () => {
  const { stack, template } = synthStack();
  const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as Resource;
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const logGroupId = ((fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup).Ref;

  it('has no managed policy', () => {
    const role = template.toJSON().Resources[roleId] as Resource;

    expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);
  });

  it('writes log events only to the function’s own log group', () => {
    const logs = roleStatements(template, roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));

    expect(logs).toHaveLength(1);
    expect(actionsOf(logs[0]!).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(logs[0]!.Resource).toEqual({ 'Fn::GetAtt': [logGroupId, 'Arn'] });
  });

  it('grants on "*" only the network-interface actions a VPC Lambda needs, and the nag acknowledgement names exactly those', () => {
    // Prepare
    const onStar = roleStatements(template, roleId).filter((s) => s.Resource === '*');
    const actions = onStar.flatMap(actionsOf).sort();
    const acknowledged = stack.requestsFunction.role!.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .map((m) => m.data as Record<string, string>);

    // Act
    const keys = acknowledged.flatMap((a) => Object.keys(a));
    const reason = acknowledged.map((a) => Object.values(a).join(' ')).join(' ');

    // Assess
    expect(actions).toEqual(['ec2:AssignPrivateIpAddresses', 'ec2:CreateNetworkInterface', 'ec2:DeleteNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets', 'ec2:UnassignPrivateIpAddresses']);
    expect(keys.every((k) => !k.includes('IAM4'))).toBe(true);
    expect(keys.some((k) => k.includes('AwsSolutions-IAM5[Resource::*]'))).toBe(true);
    for (const action of actions) expect(reason).toContain(action);
    expect(reason).not.toMatch(/logs:/);
  });
});
