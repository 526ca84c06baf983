import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one Powertools Logger of the failout functions (house rule 8), imported as `#powertools/logger`.
 * `POWERTOOLS_SERVICE_NAME` and `POWERTOOLS_LOG_LEVEL` override the defaults.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'failout-requests' });
