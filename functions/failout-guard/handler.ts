import { logger } from '#powertools/logger';
import { metrics } from '#powertools/metrics';
import { stopGuardSource } from '../../lib/safety';
import { createGuardHandler } from '../../lib/safety/lambda';

/**
 * The `failout-guard` Lambda: CloudWatch "Alarm State Change" events (an EventBridge rule on ALARM) →
 * `restore` requests on the request queue for every failout naming the alarm in `stopAlarms`.
 * Wiring only; the logic is `lib/safety` (`StopGuard`, `handleAlarmEvent`).
 * Environment: `ZK_CONNECT`, `D2_BASE_PATH`, `FAILOUT_QUEUE_URL` (see `lib/safety/guard-source.ts`).
 */
const guard = stopGuardSource({ env: process.env, logger, count: (counter, value) => metrics.addMetric(counter, 'Count', value) });

export const handler = createGuardHandler({ guard, logger, metrics });
