import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * The one Powertools Metrics (EMF) instance of the failout functions, imported as `#powertools/metrics`.
 * `POWERTOOLS_METRICS_NAMESPACE` and `POWERTOOLS_SERVICE_NAME` override the defaults.
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'failout',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'failout-requests',
});
