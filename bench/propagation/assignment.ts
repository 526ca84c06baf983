// bench/propagation, xDS mode: which observers a client lists in its bootstrap. Pure, for the client
// worker and its test. Client i's primary is observer i mod N and its fallback the next one, so the C
// clients spread evenly over the N observers (at most one apart) and every observer is some clients'
// fallback, as a fleet's bootstraps would spread them.

/** The observer addresses client `clientIndex` lists, in A71 priority order: its primary, then one fallback (none with one observer). */
export function observerOrder<T>(clientIndex: number, observers: readonly T[]): T[] {
  const n = observers.length;
  if (n === 0) throw new Error('observerOrder: no observers');
  const primary = clientIndex % n;
  return n === 1 ? [observers[0]!] : [observers[primary]!, observers[(primary + 1) % n]!];
}

/** The index of the observer client `clientIndex` is served by while every observer is up. */
export const primaryObserver = (clientIndex: number, observers: number): number => clientIndex % observers;

/** How many of `clients` clients (indices 0 … clients-1) each of `observers` observers serves. */
export function clientsPerObserver(clients: number, observers: number): number[] {
  return Array.from({ length: observers }, (_, o) => Math.floor(clients / observers) + (o < clients % observers ? 1 : 0));
}

/**
 * A gRPC xDS bootstrap listing `servers` (priority order) for client `clientIndex`, plain gRPC on
 * loopback; with `delta`, each server lists `failout_delta_ads` (incremental ADS).
 */
export function clientBootstrap(clientIndex: number, servers: readonly string[], delta = false): Record<string, unknown> {
  const features = delta ? ['xds_v3', 'failout_delta_ads'] : ['xds_v3'];
  return {
    xds_servers: servers.map((uri) => ({ server_uri: uri, channel_creds: [{ type: 'insecure' }], server_features: features })),
    node: { id: `propagation-bench-client-${clientIndex}`, locality: {} },
  };
}
