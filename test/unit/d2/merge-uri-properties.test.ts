import { parseUriProperties } from '../../../lib/d2/codecs/uri';
import { mergeUriProperties, type UriProperties } from '../../../lib/d2/model';

function child(uri: string, partitions: Record<number, number>, properties?: Record<string, unknown>): UriProperties {
  return {
    clusterName: 'name-inside-child',
    partitionDesc: { [uri]: partitions },
    uriSpecificProperties: properties === undefined ? {} : { [uri]: properties },
  };
}

describe('mergeUriProperties (UriPropertiesMerger)', () => {
  it('names the merged view after the ZooKeeper node, not the children', () => {
    // Act
    const merged = mergeUriProperties('NodeName', [child('http://a:1', { 0: 1 })]);

    // Assess
    expect(merged.clusterName).toBe('NodeName');
  });

  it('unions hosts by URI in order of first appearance', () => {
    // Act
    const merged = mergeUriProperties('c', [
      child('http://a:1', { 0: 1 }),
      child('http://b:1', { 0: 0.5 }, { doNotSlowStart: true }),
    ]);

    // Assess
    expect(merged.hosts).toEqual([
      { uri: 'http://a:1', weight: 1, partitions: { 0: 1 }, properties: {} },
      { uri: 'http://b:1', weight: 0.5, partitions: { 0: 0.5 }, properties: { doNotSlowStart: true } },
    ]);
    expect(merged.partitionDesc).toEqual({ 'http://a:1': { 0: 1 }, 'http://b:1': { 0: 0.5 } });
    expect(merged.uriSpecificProperties).toEqual({ 'http://b:1': { doNotSlowStart: true } });
  });

  it('lets a later child replace the partitions of the same URI', () => {
    // Act
    const merged = mergeUriProperties('c', [child('http://a:1', { 0: 1 }), child('http://a:1', { 0: 3 })]);

    // Assess
    expect(merged.hosts).toEqual([{ uri: 'http://a:1', weight: 3, partitions: { 0: 3 }, properties: {} }]);
  });

  it('keeps earlier URI properties when a later child for that URI carries none', () => {
    // Act
    const merged = mergeUriProperties('c', [
      child('http://a:1', { 0: 1 }, { doNotLoadBalance: true }),
      child('http://a:1', { 0: 2 }),
    ]);

    // Assess
    expect(merged.hosts[0].properties).toEqual({ doNotLoadBalance: true });
  });

  it.each([
    ['partition 0 when served', { 0: 0.25, 5: 1 }, 0.25],
    ['the lowest partition otherwise', { 700: 0.3, 2: 0.8, 1200: 0.4 }, 0.8],
    ['0 for a host with no partition', {}, 0],
  ])('takes the host weight from %s', (_name, partitions, weight) => {
    // Act
    const merged = mergeUriProperties('c', [child('http://a:1', partitions)]);

    // Assess
    expect(merged.hosts[0].weight).toBe(weight);
  });

  it('returns an empty view for no children', () => {
    // Act
    const merged = mergeUriProperties('c', []);

    // Assess
    expect(merged).toEqual({ clusterName: 'c', partitionDesc: {}, uriSpecificProperties: {}, hosts: [] });
  });

  it('keeps a URI named "__proto__" as an ordinary host', () => {
    // Prepare
    const parsed = parseUriProperties('{"clusterName":"c","partitionDesc":{"__proto__":{"0":{"weight":1.0}}}}');

    // Act
    const merged = mergeUriProperties('c', [parsed]);

    // Assess
    expect(merged.hosts.map((h) => h.uri)).toEqual(['__proto__']);
    expect(Object.keys(merged.partitionDesc)).toEqual(['__proto__']);
  });
});
