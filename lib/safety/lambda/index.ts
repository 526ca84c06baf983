/**
 * lib/safety/lambda: the Lambda adapters over lib/safety (lib/lambda's middy chain, Powertools), apart from the domain
 * face `lib/safety` so that the CLI and the local stack's pure parts never load Powertools.
 */
export { createGuardHandler } from './guard-handler';
export type { FailoutGuardHandler, GuardHandlerDeps, GuardResponse } from './guard-handler';
export { createDrillsHandler } from './drills-handler';
export type { DrillsHandlerDeps, DrillsResponse, FailoutDrillsHandler } from './drills-handler';
