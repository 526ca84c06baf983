/**
 * lib/lambda: the Lambda adapter every failout function shares. middy 6 (loaded the one way that
 * works from this CommonJS code base, see `middy.ts`) with Powertools' Logger and Metrics middleware.
 * A low module: it imports no other failout module, so lib/requests/lambda (`failout-requests`) and
 * lib/safety/lambda (`failout-guard`, `failout-drills`) both build on it. Loads Powertools and middy:
 * only the Lambda adapters import it, never a domain face.
 */
export { powertoolsHandler } from './powertools-handler';
export type { LambdaHandler, LambdaPowertools } from './powertools-handler';
