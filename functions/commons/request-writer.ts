import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { logger } from '#powertools/logger';
import { CloudWatchAlarmStates } from '../../lib/alarms/cloudwatch';
import { requestWriterSource } from '../../lib/requests';

/**
 * The request writer of this Lambda container, imported as `#commons/request-writer`: environment →
 * secret → digest → session → access check → writer, made on the first record and reused; a failed
 * first connect is forgotten so the next record tries again (`lib/requests` `requestWriterSource`,
 * the same code the local stack and the bundle test run).
 */
export const getRequestWriter = requestWriterSource({
  env: process.env,
  getSecret: (arn) => getSecret(arn, { maxAge: 300 }),
  logger,
  // FAILOUT_ALARMS_CLOUDWATCH=1 (the CDK app sets it): the alarms requests name, from DescribeAlarms.
  cloudWatchAlarms: () => new CloudWatchAlarmStates(),
});
