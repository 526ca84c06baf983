// A minimal xDS resolver for the fallback benchmark: follows LDS → RDS → CDS → EDS the way gRPC's
// resolver does (a new name at one level replaces the watch there) and reports each endpoint it
// reaches, with the time it got there.
import type { RouteConfiguration, XdsClient, XdsWatcher } from '../../lib/xds';
import { clock } from '../lib/workers';

function onUpdateOnly<T>(onUpdate: (value: T) => void): XdsWatcher<T> {
  return {
    onUpdate: (value, done) => {
      onUpdate(value);
      done();
    },
    onResourceDoesNotExist: (done) => done(),
    onError: (_error, _info, done) => done(),
  };
}

/** Follows one listener's chain on `client`; `onEndpoint(address:port, at)` for every EDS update. */
export class ChainFollower {
  private readonly cancels = new Map<string, { name: string; cancel: () => void }>();
  private readonly waiters = new Set<{ endpoint: string; resolve: (at: number) => void }>();
  /** The endpoint the chain ends at now, and when it got there. */
  endpoint: { address: string; at: number } | undefined;

  constructor(
    private readonly client: XdsClient,
    listener: string,
  ) {
    this.follow('lds', listener, (n) =>
      this.client.watch('listener', n, onUpdateOnly((l) => {
        if (l.routeConfig.source === 'inline') this.onRoute(l.routeConfig.routeConfiguration);
        else this.follow('rds', l.routeConfig.routeConfigName, (r) => this.client.watch('routeConfiguration', r, onUpdateOnly((rc) => this.onRoute(rc))));
      })),
    );
  }

  /** Resolves with the clock time at which the chain reached `endpoint` (at once if it is there). */
  reached(endpoint: string): Promise<number> {
    if (this.endpoint?.address === endpoint) return Promise.resolve(this.endpoint.at);
    return new Promise((resolve) => this.waiters.add({ endpoint, resolve }));
  }

  /** Cancels every watch. */
  close(): void {
    for (const { cancel } of this.cancels.values()) cancel();
    this.cancels.clear();
  }

  private onRoute(route: RouteConfiguration): void {
    const action = route.virtualHosts[0]?.routes[0]?.action;
    if (action?.kind !== 'cluster') return;
    this.follow('cds', action.cluster, (n) =>
      this.client.watch('cluster', n, onUpdateOnly((c) =>
        this.follow('eds', c.edsServiceName, (e) =>
          this.client.watch('clusterLoadAssignment', e, onUpdateOnly((cla) => {
            const first = cla.localities[0]?.endpoints[0];
            if (first) this.onEndpoint(`${first.address}:${first.port}`);
          })),
        ),
      )),
    );
  }

  private onEndpoint(address: string): void {
    const at = clock();
    this.endpoint = { address, at };
    for (const waiter of this.waiters) {
      if (waiter.endpoint !== address) continue;
      this.waiters.delete(waiter);
      waiter.resolve(at);
    }
  }

  private follow(level: string, name: string, start: (name: string) => () => void): void {
    const current = this.cancels.get(level);
    if (current?.name === name) return;
    current?.cancel();
    this.cancels.set(level, { name, cancel: start(name) });
  }
}
