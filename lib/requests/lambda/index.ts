/**
 * lib/requests/lambda: the `failout-requests` Lambda adapter over lib/requests. The handler factory
 * (middy, Powertools' FIFO batch processor, Logger and Metrics middleware) lives here, apart from the
 * domain face `lib/requests`, so the CLI and the package's `failout/requests` never load Powertools.
 */
export { createHandler, createRecordHandler } from './handler';
export type { FailoutRequestsHandler, HandlerDeps, RequestProcessor } from './handler';
// middy 6 loaded the one way that works from CommonJS (see middy.ts), for the other functions' handlers (lib/safety/lambda).
export { middy } from './middy';
