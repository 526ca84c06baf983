import type { Registry } from 'prom-client';
import { dualReadSources, LoadBalancerState, xdsSources, zooKeeperSources, type D2Entity, type D2SourceFactory } from '../d2';
import { createXdsClient, type Bootstrap, type BootstrapSource, type XdsClient } from '../xds';
import type { ZkWatcher } from '../zk';
import type { Logger } from '../logging';
import { createFailoutCounter } from './counters';

/** What an xDS source watches through: an `XdsClient` is one (lib/d2's narrow port of it). */
type D2XdsPort = Parameters<typeof xdsSources>[0];

/** D2 data from ZooKeeper watches (rest.li's `ZKFSLoadBalancer` path). */
export interface ZooKeeperDiscovery {
  /** The session the watches go through; shared, not owned (the client leaves it open). */
  readonly session: ZkWatcher;
}

/**
 * D2 data over xDS (rest.li's D2 over xDS): the `indis` resources named by their ZooKeeper paths, from
 * observers listed per authority in the bootstrap, with A71 fallback. Either a bootstrap (the client
 * creates, and closes, its own XdsClient) or a `client` to share.
 */
export interface XdsDiscovery {
  /** The gRPC xDS bootstrap (parsed, or where to read it); default `GRPC_XDS_BOOTSTRAP` / `GRPC_XDS_BOOTSTRAP_CONFIG`. Ignored with `client`. */
  readonly bootstrap?: Bootstrap | BootstrapSource;
  /** An xDS client to use instead of creating one; shared, not owned (the client leaves it open). */
  readonly client?: D2XdsPort;
  /** Does-not-exist timeout of the created client, ms; default the bootstrap's (15 s). */
  readonly watchExpiryMs?: number;
}

/** One source of D2 data. */
export type D2DiscoverySource = { readonly zookeeper: ZooKeeperDiscovery } | { readonly xds: XdsDiscovery };

/**
 * Where `buildD2Client` reads D2 data from, when it builds the `LoadBalancerState` itself:
 * - `{ zookeeper: { session } }`: ZooKeeper watches;
 * - `{ xds: { bootstrap } }`: xDS watches of rest.li's `indis` types;
 * - `{ dualRead: { primary, secondary } }`: serve from `primary`, follow `secondary` too, and count in
 *   `d2_dual_read_mismatch_total{kind}` (kind service | cluster | uris) every resource where the
 *   secondary disagrees once both have answered (rest.li `DualReadZkAndXdsLoadBalancerFactory`).
 * Everything above the state (FailoutClient, the strategy, warm-up, every counter) is the same for all three.
 */
export type D2Discovery = (
  | D2DiscoverySource
  | {
      readonly dualRead: {
        /** The source the client serves from. */
        readonly primary: D2DiscoverySource;
        /** The source followed only to compare. */
        readonly secondary: D2DiscoverySource;
        /** How long the two may disagree before it counts, ms; default 2000. */
        readonly settleMs?: number;
      };
    }
) & {
  /** D2 base path; default `/d2`. Resource names over xDS are the same paths. */
  readonly basePath?: string;
  /** Called for every unreadable document (after it is logged and counted); the last good state stays. */
  readonly onMalformed?: (entity: D2Entity, name: string, error: Error) => void;
};

/** A state built from a {@link D2Discovery}, and how to release what was built for it. */
export interface DiscoveredState {
  readonly state: LoadBalancerState;
  /** Closes the state and the xDS clients created for it. */
  close(): void;
}

/** Builds the state a {@link D2Discovery} describes; counters go to `registry`. */
export function discoverState(discovery: D2Discovery, registry: Registry, logger: Logger | undefined): DiscoveredState {
  const owned: XdsClient[] = [];
  const factoryOf = (source: D2DiscoverySource): D2SourceFactory => {
    if ('zookeeper' in source) return zooKeeperSources(source.zookeeper.session);
    const { client, bootstrap, watchExpiryMs } = source.xds;
    if (client) return xdsSources(client);
    // Observers are replicas of one ZooKeeper view: a client falls back as soon as its observer dies,
    // cached or not, or failouts written meanwhile would wait for that observer (issue 25). A
    // bootstrap's own failout.fallbackWhenCached still decides.
    const created = createXdsClient({ bootstrap, watchExpiryMs, fallbackWhenCached: true });
    owned.push(created);
    return xdsSources(created);
  };
  const closeOwned = (): void => {
    for (const client of owned) client.close();
  };
  try {
    let sources: D2SourceFactory;
    if ('dualRead' in discovery) {
      const mismatches = createFailoutCounter({
        registry,
        name: 'd2_dual_read_mismatch_total',
        help: 'Resources on which the secondary D2 source disagreed with the primary once both had answered (dual read).',
        labelNames: ['kind'],
      });
      const { primary, secondary, settleMs } = discovery.dualRead;
      sources = dualReadSources({ primary: factoryOf(primary), secondary: factoryOf(secondary), settleMs, onMismatch: (m) => mismatches.inc(m.kind) });
    } else {
      sources = factoryOf(discovery);
    }
    const state = new LoadBalancerState({ sources, basePath: discovery.basePath, onMalformed: discovery.onMalformed, logger });
    return {
      state,
      close: () => {
        state.close();
        closeOwned();
      },
    };
  } catch (err) {
    // A bad bootstrap of the secondary must not leave the primary's client running.
    closeOwned();
    throw err;
  }
}
