import { logger } from '#powertools/logger';
import { metrics } from '#powertools/metrics';
import { drillRunnerSource } from '../../lib/safety';
import { createDrillsHandler } from '../../lib/safety/lambda';

/**
 * The `failout-drills` Lambda: an EventBridge schedule (every minute) → the drills that came due →
 * their failout or a `skipDrill` on the request queue; `{"runNow": "<name>"}` runs one drill now.
 * Wiring only; the logic is `lib/safety` (`DrillRunner`). Environment: see `lib/safety/drill-source.ts`.
 */
const runner = drillRunnerSource({ env: process.env, logger });

export const handler = createDrillsHandler({ runner, logger, metrics });
