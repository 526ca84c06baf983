import fc from 'fast-check';
import { parseClusterProperties, parseClusterUpdate, type ClusterParseMemory } from '../../../lib/d2/codecs/cluster';
import type { ClusterProperties } from '../../../lib/d2/model';
import { parseFailoutProperties, serializeFailoutProperties } from '../../../lib/d2/codecs/failout';
import { failoutPropertiesArbitrary } from '../../helpers/failout-arbitraries';

// Every client reads every failout write through `parseFailoutProperties` on the member's text alone
// (a cluster update whose other members did not change). Whatever shortcut that read takes, it must
// give exactly what the whole document's reader gives for the same member: the same value, key for
// key (an explicit undefined included), or the same error.

type Outcome = { value: unknown } | { error: string };

/**
 * A value as plain data that keeps what `toStrictEqual` would and nothing it trips on: own keys in
 * order (an undefined value included) and the kind of each object. (`toStrictEqual` compares the
 * objects' `constructor`, which an unknown key `constructor` replaces with a value of its own.)
 */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return { array: value.map(shape) };
  if (typeof value !== 'object' || value === null) return value;
  const kind = Object.getPrototypeOf(value) === Object.prototype ? 'object' : 'other';
  return { [kind]: Object.entries(value).map(([key, member]) => [key, shape(member)]) };
}

function outcome(read: () => unknown): Outcome {
  try {
    return { value: shape(read()) };
  } catch (err) {
    return { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

/** The member read on its own, and read inside a whole cluster document by the document's reader. */
function bothReads(member: string): { alone: Outcome; inDocument: Outcome } {
  return {
    alone: outcome(() => parseFailoutProperties(member)),
    inDocument: outcome(() => parseClusterProperties(`{"clusterName":"c","failoutProperties":${member}}`).failoutProperties),
  };
}

/** Keys a mutation may add or overwrite: the format's own at every level, and hostile ones. */
const mutationKey = fc.constantFrom(
  'failoutRedirectConfigs',
  'failoutBucketConfigs',
  'rampHold',
  'peer',
  'fabric',
  'weight',
  'partition',
  'bucketOfflineRange',
  'from',
  'to',
  'offlineAt',
  'onlineAt',
  'requestId',
  'requestedBy',
  'reason',
  'stopAlarms',
  'drill',
  'forced',
  'evacuation',
  '__proto__',
  'constructor',
  'xOther',
);

/** Values a mutation may write: any JSON, and numbers at the rules' edges. */
const mutationValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, 0, -1, 1, 99, 100, 2.5, 1e20, 8.64e15, 8.64e15 + 2, Number.MAX_SAFE_INTEGER, '', 'svc-lva1', '..', 'a/b', [], {}, ['x'], [1]),
);

/** Every container (object or array) of a JSON tree. */
function containers(tree: unknown, out: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (typeof tree !== 'object' || tree === null) return out;
  out.push(tree as Record<string, unknown> | unknown[]);
  for (const child of Object.values(tree)) containers(child, out);
  return out;
}

/** One change to a written member: a key set, replaced or deleted somewhere in it. */
const mutatedMember = fc
  .tuple(failoutPropertiesArbitrary, fc.nat(), fc.constantFrom('set', 'delete'), mutationKey, mutationValue, fc.nat())
  .map(([props, where, how, key, value, index]) => {
    const tree = JSON.parse(serializeFailoutProperties(props)) as unknown;
    const all = containers(tree);
    const target = all[where % all.length]!;
    if (Array.isArray(target)) {
      if (how === 'delete' && target.length > 0) target.splice(index % target.length, 1);
      else target[target.length === 0 ? 0 : index % target.length] = value;
    } else if (how === 'delete') {
      const keys = Object.keys(target);
      if (keys.length > 0) delete target[keys[index % keys.length]!];
    } else {
      // An own `__proto__` member, as JSON text can hold one.
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return JSON.stringify(tree);
  });

describe('failout codec: the member read on its own reads as inside the document', () => {
  it('gives the same value for every member our writer writes', () => {
    fc.assert(
      fc.property(failoutPropertiesArbitrary, (props) => {
        const { alone, inDocument } = bothReads(serializeFailoutProperties(props));
        expect(alone).toStrictEqual(inDocument);
      }),
    );
  });

  it('gives the same value or the same error for members changed anywhere', () => {
    fc.assert(
      fc.property(mutatedMember, (member) => {
        const { alone, inDocument } = bothReads(member);
        expect(alone).toStrictEqual(inDocument);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['a weight written as a decimal', '{"failoutRedirectConfigs":[{"peer":"p","weight":2.0}],"failoutBucketConfigs":[]}'],
    ['a weight in exponent form', '{"failoutRedirectConfigs":[{"peer":"p","weight":1e0}],"failoutBucketConfigs":[]}'],
    ['a fractional time', '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[{"offlineAt":1.5,"onlineAt":2.5}]}'],
    ['a time beyond 2^53', '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[{"offlineAt":9007199254740993}]}'],
    ['an escaped key', '{"failoutRedirectConfigs":[{"\\u0070eer":"p"}],"failoutBucketConfigs":[]}'],
    ['an escaped peer', '{"failoutRedirectConfigs":[{"peer":"\\u002e\\u002e"}],"failoutBucketConfigs":[]}'],
    ['duplicate keys', '{"failoutRedirectConfigs":[{"peer":"a","peer":"b"}],"failoutBucketConfigs":[]}'],
    ['a repeated peer', '{"failoutRedirectConfigs":[{"peer":"a"},{"peer":"a"}],"failoutBucketConfigs":[]}'],
    ['an own __proto__ key', '{"failoutRedirectConfigs":[{"peer":"a","__proto__":{"weight":5}}],"failoutBucketConfigs":[]}'],
    ['whitespace', ' { "failoutRedirectConfigs" : [ { "peer" : "a" } ] , "failoutBucketConfigs" : [ ] } '],
    ['an empty entry', '{"failoutRedirectConfigs":[{},{"peer":"a"},{}],"failoutBucketConfigs":[{}]}'],
    ['null lists', '{"failoutRedirectConfigs":null,"failoutBucketConfigs":null}'],
    ['no lists', '{"failoutRedirectConfigs":[{"peer":"a"}]}'],
    ['an empty object', '{}'],
    ['null', 'null'],
    ['a range without to', '{"failoutBucketConfigs":[{"bucketOfflineRange":{"from":3}}]}'],
    ['a null partition', '{"failoutBucketConfigs":[{"partition":null,"offlineAt":5}]}'],
    ['a window that ends before it starts', '{"failoutBucketConfigs":[{"offlineAt":5,"onlineAt":5}]}'],
    ['a ramp hold', '{"failoutBucketConfigs":[],"rampHold":{"heldAt":1,"failoutBucketConfigs":[{"offlineAt":2}]}}'],
  ])('gives the same for %s', (_name, member) => {
    const { alone, inDocument } = bothReads(member);
    expect(alone).toStrictEqual(inDocument);
  });

  it('reads an update that changes only the member as the whole document reads it', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(failoutPropertiesArbitrary.map(serializeFailoutProperties), mutatedMember), { minLength: 2, maxLength: 5 }), (members) => {
        // What a store keeps of the cluster: its last good value, and the parser's note.
        const memory: { value: ClusterProperties | undefined; memo: unknown } = { value: undefined, memo: undefined };
        for (const member of members) {
          const document = `{"clusterName":"c","failoutProperties":${member}}`;
          let read: ClusterProperties | undefined;
          const update = outcome(() => (read = parseClusterUpdate(Buffer.from(document), memory satisfies ClusterParseMemory)));
          const whole = outcome(() => parseClusterProperties(document));
          expect(update).toStrictEqual(whole);
          if (read !== undefined) memory.value = read;
        }
      }),
      { numRuns: 300 },
    );
  });
});
