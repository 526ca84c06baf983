import { getRequestWriter } from '#commons/request-writer';
import { logger } from '#powertools/logger';
import { metrics } from '#powertools/metrics';
import { createHandler } from '../../lib/requests/lambda';

/**
 * The `failout-requests` Lambda: SQS FIFO change requests → ZooKeeper, exactly once.
 * Wiring only; the logic is `lib/requests` (`createHandler`, `RequestWriter`).
 * Environment: see `lib/requests/config.ts`.
 */
export const handler = createHandler({ writer: getRequestWriter, logger, metrics });
