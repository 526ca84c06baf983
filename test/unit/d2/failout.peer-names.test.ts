/**
 * Issue 14: the failout codec's reader refuses a peer name that cannot be a cluster at all (`..`, `.`,
 * a slash, NUL, empty): the whole cluster document is malformed, so every reader keeps its last good
 * state instead of routing to a path that reaches outside `/d2/clusters`.
 */
import { parseClusterProperties } from '../../../lib/d2/codecs/cluster';
import { parseFailoutProperties, serializeFailoutProperties } from '../../../lib/d2/codecs/failout';
import { catchD2Error } from './fixtures';

describe('failout codec: peer names', () => {
  it.each([
    ['..', 'peer'],
    ['.', 'peer'],
    ['../greetings-lva1', 'peer'],
    ['a/b', 'peer'],
    ['nul\u0000', 'peer'],
    ['', 'peer'],
    ['..', 'fabric'],
  ])('reads the impossible peer %j (as %s) as a malformed document', (peer, key) => {
    const value = { failoutRedirectConfigs: [{ peer: 'greetings-ltx1' }, { [key]: peer, weight: 1 }], failoutBucketConfigs: [{}] };
    const error = catchD2Error(() => parseFailoutProperties(value));
    expect(error).toMatchObject({ kind: 'malformed', entity: 'cluster', field: `failoutProperties.failoutRedirectConfigs[1].${key}` });
    expect(catchD2Error(() => parseClusterProperties({ clusterName: 'c', failoutProperties: value }))).toMatchObject({ kind: 'malformed' });
  });

  it('refuses to write an impossible peer', () => {
    const error = catchD2Error(() => serializeFailoutProperties({ redirects: [{ peer: '..' }], ignoredRedirectEntries: 0, buckets: [] }));
    expect(error).toMatchObject({ kind: 'malformed', field: 'failoutProperties.failoutRedirectConfigs[0].peer' });
  });

  it('still reads a peer that ZooKeeper can hold though no request could name it (a rest.li tree)', () => {
    const props = parseFailoutProperties({ failoutRedirectConfigs: [{ peer: 'grüße lor1' }], failoutBucketConfigs: [{}] });
    expect(props?.redirects).toEqual([{ peer: 'grüße lor1' }]);
  });
});
