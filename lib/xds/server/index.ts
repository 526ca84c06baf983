/** The xDS management server (SotW ADS + LRS sink) with fault hooks, for tests and the local stack. */
export * from './management-server';
export * from './snapshot-cache';
export * from './fault-hooks';
export * from './recorder';
export * from './lrs-sink';
export * from './ads-session';
export * from './restart-safe-port';
