/**
 * Normalized resource names (gRFC A47 "Resource Cache"; xRFC TP1 "Normalization").
 */
import { canonicalResourceName } from '../../../lib/xds/resource-name';

describe('canonicalResourceName', () => {
  it.each([
    ['sorts context parameters by key', 'xdstp://a/envoy.config.cluster.v3.Cluster/c?z=1&b=2&a=3', 'xdstp://a/envoy.config.cluster.v3.Cluster/c?a=3&b=2&z=1'],
    ['keeps the last value of a key given twice', 'xdstp://a/envoy.config.cluster.v3.Cluster/c?b=1&a=2&b=3', 'xdstp://a/envoy.config.cluster.v3.Cluster/c?a=2&b=3'],
    ['leaves a name without parameters alone', 'xdstp:///envoy.config.listener.v3.Listener/l', 'xdstp:///envoy.config.listener.v3.Listener/l'],
    ['drops an empty query', 'xdstp://a/envoy.config.cluster.v3.Cluster/c?', 'xdstp://a/envoy.config.cluster.v3.Cluster/c'],
    ['leaves an old-style name alone, query and all', 'cluster?b=1&a=2', 'cluster?b=1&a=2'],
  ])('%s', (_what, name, expected) => {
    expect(canonicalResourceName(name)).toBe(expected);
  });
});
