/**
 * The failout CDK app (`cdk.json`: `npx tsx infra/bin/app.ts`). Inputs come from context; see
 * `infra/lib/context.ts` for the keys. cdk-nag's AwsSolutions pack runs on every synth: an
 * unacknowledged finding fails `cdk synth`/`cdk deploy`.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { failoutPropsFromContext, FailoutStack } from '../lib';

const app = new App();
const { stackName, props } = failoutPropsFromContext(app.node);
// A VPC looked up by id needs a concrete environment; everything else synthesizes environment-agnostic.
const lookup = props.vpc !== undefined && !('privateSubnetIds' in props.vpc && props.vpc.privateSubnetIds);
new FailoutStack(app, stackName, {
  ...props,
  env: lookup ? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION } : undefined,
  description: 'failout: change-request queue and Lambda, xDS bridge on Fargate, operator policy, alarms',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
