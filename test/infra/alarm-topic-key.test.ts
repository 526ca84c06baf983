import { Match, type Template } from 'aws-cdk-lib/assertions';
import { synthStack } from './helpers';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Effect: string; Principal: unknown; Action: string | string[]; Condition?: Record<string, Record<string, unknown>> };

/** What a statement to `cloudwatch.amazonaws.com` must carry: this account, and alarms of this account and region. */
const CLOUDWATCH_CONDITIONS = {
  StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
  ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':alarm:*']] } },
};

function serviceStatements(template: Template, type: string, field: 'KeyPolicy' | 'PolicyDocument'): Statement[] {
  return (Object.values(template.findResources(type)) as Resource[])
    .flatMap((r) => (r.Properties[field] as { Statement: Statement[] }).Statement)
    .filter((s) => typeof s.Principal === 'object' && s.Principal !== null && 'Service' in s.Principal);
}

// Issue 14: an unconditioned service principal lets CloudWatch use the key on behalf of any account's
// alarm (the confused deputy). The alarm topic's key and its topic policy name our account and alarms.
describe('alarm topic key and policy', () => {
  const { template } = synthStack();

  it('grants CloudWatch the key only for alarms of this account and region', () => {
    const statements = serviceStatements(template, 'AWS::KMS::Key', 'KeyPolicy');

    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] });
    expect(statements[0]!.Condition).toEqual(CLOUDWATCH_CONDITIONS);
  });

  it('lets CloudWatch publish to the topic under the same conditions, over TLS only', () => {
    const statements = serviceStatements(template, 'AWS::SNS::TopicPolicy', 'PolicyDocument');

    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish' });
    expect(statements[0]!.Condition).toEqual(CLOUDWATCH_CONDITIONS);
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 'sns:Publish', Principal: '*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });
});
