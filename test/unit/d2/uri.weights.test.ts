/**
 * Issue 14: host weights are finite and bounded. Two hosts announced with weight 1.7e308 made the sum
 * Infinity and skewed a three-host split to 39:1. A weight must be a number from 0 to MAX_HOST_WEIGHT
 * (2^32 − 1, xDS's `load_balancing_weight` range, so every weight the bridge copies from a control
 * plane is representable); a URI child with any other weight is malformed (the URI store keeps that
 * child's last good announcement, the cluster keeps its other hosts). The merge of typed models built in
 * code clamps instead, so no caller can put an unbounded weight in front of the balancer.
 */
import { MAX_HOST_WEIGHT, mergeUriProperties, parseUriProperties, serializeUriProperties, type UriProperties } from '../../../lib/d2/data';
import { catchD2Error } from './fixtures';

const doc = (weights: Record<string, unknown>): string => JSON.stringify({ clusterName: 'c', weights });
const partitioned = (weight: unknown): string => JSON.stringify({ clusterName: 'c', partitionDesc: { 'http://h:1': { '0': { weight } } } });

describe('URI codec: weight bounds', () => {
  it('bounds weights at 2^32 - 1', () => {
    expect(MAX_HOST_WEIGHT).toBe(4_294_967_295);
  });

  it.each([0, 0.5, 1, 100, 4_294_967_295])('reads weight %d in both forms', (weight) => {
    expect(parseUriProperties(doc({ 'http://h:1': weight })).partitionDesc).toEqual({ 'http://h:1': { 0: weight } });
    expect(parseUriProperties(partitioned(weight)).partitionDesc).toEqual({ 'http://h:1': { 0: weight } });
  });

  it.each([
    ['1.7e308', 1.7e308],
    ['2^32', 4_294_967_296],
    ['-1', -1],
  ])('reads weight %s as malformed, naming the field', (_, weight) => {
    expect(catchD2Error(() => parseUriProperties(doc({ 'http://h:1': weight })))).toMatchObject({ kind: 'malformed', entity: 'uri', field: 'weights["http://h:1"]' });
    expect(catchD2Error(() => parseUriProperties(partitioned(weight)))).toMatchObject({ kind: 'malformed', entity: 'uri', field: 'partitionDesc["http://h:1"]["0"].weight' });
  });

  it('reads 1e400 (JSON text whose number is no double) as malformed', () => {
    const text = '{"clusterName":"c","weights":{"http://h:1":1e400}}';
    expect(catchD2Error(() => parseUriProperties(text))).toMatchObject({ kind: 'malformed', entity: 'uri', message: expect.stringMatching(/number out of range/) });
  });

  it('refuses to write a weight the reader would refuse', () => {
    const props: UriProperties = { clusterName: 'c', partitionDesc: { 'http://h:1': { 0: 1.7e308 } }, uriSpecificProperties: {} };
    expect(catchD2Error(() => serializeUriProperties(props))).toMatchObject({ kind: 'malformed', entity: 'uri' });
  });
});

describe('mergeUriProperties: weight bounds', () => {
  it('clamps weights of models built in code into [0, MAX_HOST_WEIGHT], and reads NaN as 0', () => {
    const child = (uri: string, weight: number): UriProperties => ({ clusterName: 'c', partitionDesc: { [uri]: { 0: weight } }, uriSpecificProperties: {} });
    const merged = mergeUriProperties('c', [child('http://a:1', 1.7e308), child('http://b:1', -5), child('http://c:1', Number.NaN), child('http://d:1', 2)]);
    expect(merged.hosts.map((h) => [h.uri, h.weight])).toEqual([
      ['http://a:1', MAX_HOST_WEIGHT],
      ['http://b:1', 0],
      ['http://c:1', 0],
      ['http://d:1', 2],
    ]);
  });
});
