import type { ClusterChange, LoadBalancerClusterListener } from '../../lib/d2';

/**
 * One line per change, with the value it carries: `properties:c1:v=2` (the cluster's `properties.v`, `-`
 * when unset), `uris:c1:http://h1:1/*2,…` (`uri*weight` per host, `none` when the URI node is gone),
 * `removed:c1`, `malformed:c1`.
 */
export function describeChange(change: ClusterChange): string {
  switch (change.kind) {
    case 'properties':
      return `properties:${change.cluster}:v=${String(change.properties.properties.v ?? '-')}`;
    case 'uris':
      return `uris:${change.cluster}:${change.uris ? change.uris.hosts.map((h) => `${h.uri}*${h.weight}`).join(',') : 'none'}`;
    case 'removed':
      return `removed:${change.cluster}`;
    case 'malformed':
      return `malformed:${change.cluster}`;
  }
}

/** A cluster listener that records every change it hears, in order, raw and as {@link describeChange} lines. */
export interface ChangeRecorder extends LoadBalancerClusterListener {
  readonly changes: ClusterChange[];
  readonly events: string[];
}

/** A new {@link ChangeRecorder}. */
export function changeRecorder(): ChangeRecorder {
  const changes: ClusterChange[] = [];
  const events: string[] = [];
  return {
    changes,
    events,
    onClusterChange: (change) => {
      changes.push(change);
      events.push(describeChange(change));
    },
  };
}
