import { FAILOUT_REQUESTS_BUNDLING } from '../../infra/lib';
import { LAMBDA_BUNDLING } from '../../lib/local/function-bundle';

// The local stack and the bundle test run the artefact `cdk deploy` ships only while both bundle the
// handler the same way (the target aside: node22 in Lambda, this machine's node20 locally).

it('bundles the failout-requests handler locally with the options the CDK app gives NodejsFunction', () => {
  expect({ minify: LAMBDA_BUNDLING.minify, format: LAMBDA_BUNDLING.format, external: [...LAMBDA_BUNDLING.external] }).toEqual({
    minify: FAILOUT_REQUESTS_BUNDLING.minify,
    format: FAILOUT_REQUESTS_BUNDLING.format,
    external: [...FAILOUT_REQUESTS_BUNDLING.externalModules],
  });
});
