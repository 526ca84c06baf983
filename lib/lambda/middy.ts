import type middyCore from '@middy/core' with { 'resolution-mode': 'import' };

/**
 * `@middy/core` 6 for this CommonJS code base. middy is ESM-only; TypeScript's `node16` module mode
 * refuses a static import of it from CommonJS (TS1479), although Node 20.19+ `require`s it fine,
 * esbuild bundles it, and jest transforms it (jest.config.js). So: types through a type-only import
 * with `resolution-mode`, the value through `require`.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const middy: typeof middyCore = (require('@middy/core') as { default: typeof middyCore }).default;
