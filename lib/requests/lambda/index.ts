/**
 * lib/requests/lambda: the `failout-requests` Lambda adapter over lib/requests. The handler factory
 * (Powertools' FIFO batch processor inside lib/lambda's middy chain with Logger and Metrics
 * middleware) lives here, apart from the domain face `lib/requests`, so the CLI and the package's
 * `failout/requests` never load Powertools.
 */
export { createHandler, createRecordHandler } from './handler';
export type { FailoutRequestsHandler, HandlerDeps, RequestProcessor } from './handler';
