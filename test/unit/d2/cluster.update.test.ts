import fc from 'fast-check';
import { parseClusterProperties, parseClusterUpdate, serializeClusterProperties, type ClusterParseMemory } from '../../../lib/d2/codecs/cluster';
import type { ClusterProperties, FailoutProperties } from '../../../lib/d2/model';

// parseClusterUpdate: a new version of a cluster document read on top of the previous one. Whatever the
// texts, its value and its errors must be parseClusterProperties' own; only the work may differ.

const BASE = parseClusterProperties({ clusterName: 'greetings-lor1', properties: { 'http.timeout': '1000' }, partitionProperties: { partitionType: 'NONE' } });

function doc(failout: FailoutProperties | null): string {
  return serializeClusterProperties({ ...BASE, failoutProperties: failout });
}

function failout(offlineAt: number, onlineAt?: number): FailoutProperties {
  return { redirects: [{ peer: 'greetings-lva1', weight: 2 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt, onlineAt, requestId: 'r-1', requestedBy: 'ops@example.com', reason: 'drill' }] };
}

/** One cluster as a store follows it: the last good value, the parser's note, and each version read in turn. */
function follow(): { readonly memory: ClusterParseMemory; read(input: string | Buffer): ClusterProperties } {
  const memory: { value: ClusterProperties | undefined; memo: unknown } = { value: undefined, memo: undefined };
  return {
    memory,
    read(input) {
      // A version that does not read leaves the last good value, as the store does.
      memory.value = parseClusterUpdate(input, memory);
      return memory.value;
    },
  };
}

/** parseClusterUpdate's outcome: the value, or the error's message. */
function outcome(read: () => ClusterProperties): { value: ClusterProperties } | { error: string } {
  try {
    return { value: read() };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

describe('parseClusterUpdate', () => {
  it('reads a failout write on top of the previous version: the same value as a whole parse, the rest shared', () => {
    // Prepare
    const cluster = follow();
    const first = cluster.read(Buffer.from(doc(failout(1_000, 2_000))));

    // Act
    const second = cluster.read(Buffer.from(doc(failout(1_000, 9_000))));
    const third = cluster.read(doc(failout(1_000, 1_500)));
    const gone = cluster.read(doc(null));

    // Assess
    expect(second).toEqual(parseClusterProperties(doc(failout(1_000, 9_000))));
    expect(second.properties).toBe(first.properties);
    expect(second.failoutProperties?.buckets[0]?.onlineAt).toBe(9_000);
    expect(third.properties).toBe(first.properties);
    expect(gone).toEqual(parseClusterProperties(doc(null)));
  });

  it('parses the whole document when anything before the failout member changed', () => {
    // Prepare
    const cluster = follow();
    cluster.read(doc(failout(1_000)));
    const changed = serializeClusterProperties({ ...BASE, properties: { 'http.timeout': '2000' }, failoutProperties: failout(1_000) });

    // Act
    const second = cluster.read(changed);

    // Assess
    expect(second).toEqual(parseClusterProperties(changed));
    expect(second.properties).toEqual({ 'http.timeout': '2000' });
  });

  it('does not build on a note about a value that is no longer the last good one', () => {
    // Prepare: the note is about `first`; the caller's last good value is something else.
    const memory: { value: ClusterProperties | undefined; memo: unknown } = { value: undefined, memo: undefined };
    parseClusterUpdate(doc(failout(1_000)), memory);
    memory.value = parseClusterProperties(serializeClusterProperties({ ...BASE, properties: { other: 'x' }, failoutProperties: null }));

    // Act
    const next = parseClusterUpdate(doc(failout(2_000)), memory);

    // Assess
    expect(next).toEqual(parseClusterProperties(doc(failout(2_000))));
    expect(next.properties).not.toBe(memory.value.properties);
  });

  it('refuses a malformed failout member with the whole parse’s error, keeping nothing of it', () => {
    // Prepare
    const cluster = follow();
    cluster.read(doc(failout(1_000, 2_000)));
    const bad = doc(failout(1_000, 2_000)).replace('"onlineAt":2000', '"onlineAt":500');

    // Act
    const result = outcome(() => cluster.read(bad));

    // Assess
    expect(result).toEqual(outcome(() => parseClusterProperties(bad)));
    expect('error' in result).toBe(true);
  });

  it('is not fooled by a "failoutProperties" key nested inside another member, or a document not ending with it', () => {
    // Prepare
    const nested = '{"clusterName":"c","properties":{"x":1,"failoutProperties":{}},"failoutProperties":{"failoutRedirectConfigs":[],"failoutBucketConfigs":[]}}';
    const notLast = '{"clusterName":"c","failoutProperties":{"failoutRedirectConfigs":[],"failoutBucketConfigs":[{"offlineAt":5}]},"delegated":true}';
    const inExtra = '{"clusterName":"c","failoutProperties":{"failoutRedirectConfigs":[],"failoutBucketConfigs":[{"offlineAt":5,"x":{"y":1,"failoutProperties":2}}]}}';
    const cluster = follow();
    cluster.read(nested);

    // Act
    const results = [cluster.read(nested.replace('"x":1', '"x":2')), cluster.read(notLast), cluster.read(inExtra)];

    // Assess
    expect(results).toEqual([parseClusterProperties(nested.replace('"x":1', '"x":2')), parseClusterProperties(notLast), parseClusterProperties(inExtra)]);
  });

  it('gives the whole parse’s value or error for any chain of versions (property)', () => {
    // Member texts: well-formed failouts, malformed ones, other JSON, and text that is not one value.
    const member = fc.oneof(
      fc.record({ offlineAt: fc.integer({ min: 0, max: 2_000 }), span: fc.integer({ min: 1, max: 2_000 }), weight: fc.integer({ min: 1, max: 5 }), peer: fc.constantFrom('a', 'b', 'greetings-lva1') }).map(
        ({ offlineAt, span, weight, peer }) => `{"failoutRedirectConfigs":[{"peer":"${peer}","weight":${weight}}],"failoutBucketConfigs":[{"offlineAt":${offlineAt},"onlineAt":${offlineAt + span}}]}`,
      ),
      fc.constantFrom('null', '{}', '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[]}', '1.5', '"x"', '[]', '{"failoutBucketConfigs":[{"offlineAt":-1}]}', '{"failoutBucketConfigs":[{"offlineAt":1.0}]}'),
      fc.constantFrom('{"a":1},"b":{', '{"failoutBucketConfigs":[]}},"x":{"y":1', '', '}', '{"a":1} '),
      fc.json({ maxDepth: 3 }),
    );
    const head = fc.constantFrom(
      '{"clusterName":"c"',
      '{"clusterName":"c","properties":{"failoutProperties":"{}"}',
      '{"clusterName":"c","failoutProperties":null',
      '{"clusterName":"c","minClusterSubsetSize":2.0',
      '{"clusterName":"c","delegated":"yes"',
    );
    const version = fc.tuple(head, member).map(([h, m]) => `${h},"failoutProperties":${m}}`);
    fc.assert(
      fc.property(fc.array(version, { minLength: 1, maxLength: 6 }), (texts) => {
        const cluster = follow();
        for (const text of texts) {
          expect(outcome(() => cluster.read(Buffer.from(text)))).toEqual(outcome(() => parseClusterProperties(text)));
        }
      }),
      { numRuns: 500 },
    );
  });
});
