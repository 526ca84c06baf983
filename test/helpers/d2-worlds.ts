/**
 * One LoadBalancerState fed two ways for the same writes (house rule: the xDS-fed state passes the
 * ZooKeeper-fed one's cases): over the in-memory ZooKeeper, or over a fake XdsClient serving the same
 * documents as `indis` resources (decoded JSON). Not a test file.
 */
import { LoadBalancerState, xdsSources, type LoadBalancerStateOptions } from '../../lib/d2';
import { urisPath } from '../../lib/d2/paths';
import { put } from './d2';
import { FakeD2Xds } from './d2-xds-fake';
import { InMemoryZk } from './in-memory-zk';
import { capturingLogger } from './logging';

/** The writes a scenario makes, as text (ZooKeeper holds text; the observer sends its JSON). */
export interface D2World {
  readonly state: LoadBalancerState;
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** A symlink node (`$name`): its data is the target's path. */
  link(path: string, target: string): Promise<void>;
  /** Until every read, watch and callback the last writes caused has run. */
  settle(): Promise<void>;
  close(): void;
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** The state over the in-memory ZooKeeper, its D2 tree under `base`; `onMalformed` is the state's option. */
export function zooKeeperWorld(base: string, onMalformed?: LoadBalancerStateOptions['onMalformed']): D2World {
  const zk = new InMemoryZk();
  const writer = zk.session();
  const state = new LoadBalancerState({ session: zk.session(), basePath: base, onMalformed, logger: capturingLogger().logger });
  return {
    state,
    write: (path, text) => put(writer, path, text),
    remove: (path) => writer.remove(path),
    link: (path, target) => put(writer, path, target),
    settle: async () => {
      // A symlink's chain is read one link at a time: a few rounds of reads and callbacks.
      for (let i = 0; i < 3; i++) {
        await zk.idle();
        await turns(3);
      }
    },
    close: () => state.close(),
  };
}

/** The state over a fake XdsClient serving the D2 tree under `base`; `onMalformed` is the state's option. */
export function xdsWorld(base: string, onMalformed?: LoadBalancerStateOptions['onMalformed']): D2World {
  const xds = new FakeD2Xds();
  const state = new LoadBalancerState({ sources: xdsSources(xds), basePath: base, onMalformed, logger: capturingLogger().logger });
  const uriPrefix = `${urisPath(base)}/`;
  /** A path under the uris directory as its cluster's map and the child's name; undefined for a node. */
  const uriChild = (path: string): { map: string; child: string } | undefined => {
    if (!path.startsWith(uriPrefix)) return undefined;
    const [cluster, child] = path.slice(uriPrefix.length).split('/');
    return { map: `${uriPrefix}${cluster}`, child: child! };
  };
  return {
    state,
    write: (path, text) => {
      const json = JSON.parse(text) as Record<string, unknown>;
      const uri = uriChild(path);
      if (uri) xds.putUri(uri.map, uri.child, json);
      else xds.putNode(path, json);
      return Promise.resolve();
    },
    remove: (path) => {
      const uri = uriChild(path);
      if (uri) xds.removeUri(uri.map, uri.child);
      else xds.removeNode(path);
      return Promise.resolve();
    },
    link: (path, target) => Promise.resolve(xds.putLink(path, target)),
    settle: async () => {
      for (let i = 0; i < 3; i++) await xds.idle();
    },
    close: () => state.close(),
  };
}
