import { parseClusterProperties, parseClusterPropertiesWithoutFailout, serializeClusterProperties } from '../../../lib/d2/codecs/cluster';

// A restore of a cluster whose `failoutProperties` another tool wrote unreadable (request writer): the
// document read by the one cluster codec with that member left unread, so it can be written back without it.

const BAD_FAILOUTS: ReadonlyArray<[string, string]> = [
  ['a weight the failout codec refuses', '{"failoutRedirectConfigs":[{"peer":"c2","weight":0}],"failoutBucketConfigs":[]}'],
  ['a list where an object belongs', '[1,2,3]'],
  ['a string', '"out"'],
  ['a bucket config without its window', '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[{"offlineAt":"soon"}]}'],
];

/** A document whose other members hold what a lossy parser would lose: a big integer, an unknown key. */
function documentWith(failout: string): string {
  return `{"clusterName":"c1","properties":{"owner":"team-x"},"someFutureKey":{"n":123456789012345678901234567890,"kept":true},"failoutProperties":${failout},"laterKey":12345678901234567890}`;
}

describe('parseClusterPropertiesWithoutFailout', () => {
  it.each(BAD_FAILOUTS)('reads a document whose failoutProperties hold %s, which parseClusterProperties refuses, without that member', (_, failout) => {
    // Prepare
    const text = documentWith(failout);

    // Act
    const props = parseClusterPropertiesWithoutFailout(text);

    // Assess
    expect(() => parseClusterProperties(text)).toThrow(/failoutProperties/);
    expect(props.failoutProperties).toBeNull();
    const written = serializeClusterProperties(props);
    expect(written).not.toContain('failoutProperties');
    expect(written).toContain('"someFutureKey":{"n":123456789012345678901234567890,"kept":true}');
    expect(written).toContain('"laterKey":12345678901234567890');
    // Every other member as the codec reads the same document with no failout at all.
    expect(written).toBe(serializeClusterProperties(parseClusterProperties(documentWith('null'))));
  });

  it('reads a good document as parseClusterProperties does, except for its failout', () => {
    const text = documentWith('{"failoutRedirectConfigs":[{"peer":"c2","weight":1}],"failoutBucketConfigs":[{"offlineAt":1}]}');
    expect(parseClusterPropertiesWithoutFailout(text)).toEqual({ ...parseClusterProperties(text), failoutProperties: null });
  });

  it.each([
    ['not JSON at all', '{"clusterName":"c1","failoutProperties":{'],
    ['not a JSON object', '[1]'],
    ['another member invalid', '{"clusterName":"c1","bannedUris":"nope","failoutProperties":[1]}'],
    ['no clusterName', '{"failoutProperties":[1]}'],
  ])('still refuses a document that is %s, as parseClusterProperties does', (_, text) => {
    expect(() => parseClusterPropertiesWithoutFailout(text)).toThrow(/cluster/);
    expect(() => parseClusterProperties(text)).toThrow();
  });
});
