/**
 * Issue 21, "Alarms that can act", in the CDK app: the failout-requests Lambda reads the alarms
 * requests name from CloudWatch (`FAILOUT_ALARMS_CLOUDWATCH=1`, no local alarm URL), its role may
 * call `cloudwatch:DescribeAlarms` on this account's and region's alarms and nothing else of
 * CloudWatch, and cdk-nag has no finding of it left unacknowledged.
 */
import { actionsOf, byService, nagFindings, roleStatements, synthStack } from './helpers';

describe('failout-requests alarm source', () => {
  const { stack, template } = synthStack();
  const [, fn] = byService(template, 'failout-requests');
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];

  it('reads alarm states from CloudWatch: FAILOUT_ALARMS_CLOUDWATCH=1 and no FAILOUT_ALARMS_URL', () => {
    // Act
    const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

    // Assess
    expect(env.FAILOUT_ALARMS_CLOUDWATCH).toBe('1');
    expect(env).not.toHaveProperty('FAILOUT_ALARMS_URL');
  });

  it('may call DescribeAlarms on the alarms of its account and region, and no other CloudWatch action', () => {
    // Act
    const cloudwatch = roleStatements(template, roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('cloudwatch:')));

    // Assess
    expect(cloudwatch.flatMap(actionsOf)).toEqual(['cloudwatch:DescribeAlarms']);
    expect(JSON.stringify(cloudwatch[0]!.Resource)).toMatch(/:cloudwatch:",\{"Ref":"AWS::Region"\},":",\{"Ref":"AWS::AccountId"\},":alarm:\*"/);
  });

  it('leaves no cdk-nag finding on the function or its role', () => {
    // Act
    const mine = [...nagFindings(stack, 'error'), ...nagFindings(stack, 'warning')].filter((f) => f.includes('FailoutRequests'));

    // Assess
    expect(mine).toEqual([]);
  });
});
