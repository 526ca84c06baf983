import fc from 'fast-check';
import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2/codecs/cluster';
import { isDecimalLiteral, parseJsonText } from '../../../lib/d2/codecs/json-text';
import { parseServiceProperties, serializeServiceProperties } from '../../../lib/d2/codecs/service';
import { parseUriProperties, serializeUriProperties } from '../../../lib/d2/codecs/uri';
import { CLUSTER_BASE, CLUSTER_CANARY_CONFIGS, PERCENTAGE_STRATEGY, QUICKSTART, SERVICE_BASE, jsonDoc } from './fixtures';

interface Codec {
  readonly base: string;
  /** Keys the reader interprets at the top level, so they cannot serve as unknown keys. */
  readonly reserved: readonly string[];
  readonly roundTrip: (text: string) => string;
}

const CODECS: Readonly<Record<string, Codec>> = {
  cluster: {
    base: jsonDoc(CLUSTER_BASE, {
      slowStartProperties: '{"disabled":false,"windowDurationSeconds":30,"aggression":1.0,"minWeightPercent":0.5}',
      canaryConfigs: CLUSTER_CANARY_CONFIGS,
      canaryDistributionStrategy: PERCENTAGE_STRATEGY,
      failoutProperties: '{"failoutRedirectConfigs":[{"peer":"p","weight":1}],"failoutBucketConfigs":[]}',
    }),
    reserved: [
      ...Object.keys(CLUSTER_BASE),
      'slowStartProperties',
      'connectionOptions',
      'outlierDetectionConfig',
      'loadBalancingPolicies',
      'canaryConfigs',
      'canaryDistributionStrategy',
      'failoutProperties',
    ],
    roundTrip: (text) => serializeClusterProperties(parseClusterProperties(text)),
  },
  service: {
    base: jsonDoc(SERVICE_BASE, { methodLevelProperties: '[{"names":[{"service":"s","method":null}]}]' }),
    reserved: [...Object.keys(SERVICE_BASE), 'bannedUris', 'isDefaultService', 'defaultRoutingToMaster', 'canaryConfigs', 'canaryDistributionStrategy'],
    roundTrip: (text) => serializeServiceProperties(parseServiceProperties(text)),
  },
  uri: {
    base: QUICKSTART.partitionedUri,
    reserved: ['weights', 'clusterName', 'partitionDesc', 'uriSpecificProperties', 'urisBySchemeAndPartition'],
    roundTrip: (text) => serializeUriProperties(parseUriProperties(text)),
  },
};

/** Unknown keys, including awkward ones that collide with Object.prototype. */
function unknownKey(reserved: readonly string[]): fc.Arbitrary<string> {
  return fc
    .oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'version'))
    .filter((key) => !reserved.includes(key));
}

function unknownMembers(reserved: readonly string[]): fc.Arbitrary<Array<[string, unknown]>> {
  return fc.uniqueArray(fc.tuple(unknownKey(reserved), fc.jsonValue({ maxDepth: 3 })), {
    minLength: 1,
    maxLength: 5,
    selector: ([key]) => key,
  });
}

/** Adds members to a JSON object's text, as raw JSON (so the members' own key order is kept). */
function withMembers(objectText: string, members: ReadonlyArray<[string, unknown]>): string {
  const added = members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',');
  return `${objectText.slice(0, -1)},${added}}`;
}

/** What JSON can carry of a value (e.g. -0 becomes 0). */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe('unknown keys survive parse → serialize → parse', () => {
  it.each(Object.entries(CODECS))('keeps random top-level unknown keys of a %s document', (_entity, codec) => {
    fc.assert(
      fc.property(unknownMembers(codec.reserved), (members) => {
        // Prepare
        const input = withMembers(codec.base, members);

        // Act
        const once = codec.roundTrip(input);
        const twice = codec.roundTrip(once);

        // Assess
        const written = JSON.parse(once) as Record<string, unknown>;
        for (const [key, value] of members) {
          expect(Object.hasOwn(written, key)).toBe(true);
          expect(written[key]).toEqual(asJson(value));
        }
        expect(twice).toBe(once);
      }),
    );
  });

  it('keeps random unknown keys inside the nested objects of a cluster', () => {
    const reserved = ['partitionType', 'disabled', 'windowDurationSeconds', 'aggression', 'minWeightPercent', 'strategy',
      'percentageStrategyProperties', 'targetHostsStrategyProperties', 'targetApplicationsStrategyProperties',
      'failoutRedirectConfigs', 'failoutBucketConfigs'];
    fc.assert(
      fc.property(unknownMembers(reserved), (members) => {
        // Prepare
        const nested = (text: string): string => withMembers(text, members);
        const input = jsonDoc(CLUSTER_BASE, {
          partitionProperties: nested('{"partitionType":"NONE"}'),
          slowStartProperties: nested('{"disabled":true,"windowDurationSeconds":1,"aggression":2.0,"minWeightPercent":0.1}'),
          canaryConfigs: CLUSTER_CANARY_CONFIGS,
          canaryDistributionStrategy: nested('{"strategy":"percentage"}'),
          failoutProperties: nested('{"failoutRedirectConfigs":[],"failoutBucketConfigs":[]}'),
        });

        // Act
        const written = JSON.parse(serializeClusterProperties(parseClusterProperties(input))) as Record<string, Record<string, unknown>>;

        // Assess
        for (const objectKey of ['partitionProperties', 'slowStartProperties', 'canaryDistributionStrategy', 'failoutProperties']) {
          for (const [key, value] of members) {
            expect(written[objectKey][key]).toEqual(asJson(value));
          }
        }
      }),
    );
  });

  it('keeps whether an unknown number was written with a decimal point', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }),
        fc.boolean(),
        (value, asDecimal) => {
          // Prepare
          const integral = Math.trunc(value);
          const literal = asDecimal ? `${integral}.0` : String(integral);
          const input = `${CODECS.cluster.base.slice(0, -1)},"n":${literal},"list":[${literal}]}`;

          // Act
          const written = parseJsonText(CODECS.cluster.roundTrip(input)) as Record<string, unknown>;

          // Assess
          expect(written.n).toBe(integral + 0);
          expect(isDecimalLiteral(written, 'n')).toBe(asDecimal);
          expect(isDecimalLiteral(written.list as unknown[], 0)).toBe(asDecimal);
        },
      ),
    );
  });

  // Jackson reads an integer literal as an Integer, Long or BigInteger and writes it back digit for
  // digit; a double cannot hold one beyond 2^53, so a failout write must not round a key it does not own.
  it.each(Object.entries(CODECS))('keeps an unknown integer too large for a double exactly, in a %s document', (_entity, codec) => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).filter((n) => n > 2n ** 53n || n < -(2n ** 53n)), (n) => {
        // Prepare
        const literal = n.toString();
        const input = `${codec.base.slice(0, -1)},"n":${literal},"nested":{"list":[${literal}],"m":${literal}}}`;

        // Act
        const once = codec.roundTrip(input);

        // Assess
        expect(once).toContain(`"n":${literal}`);
        expect(once).toContain(`"nested":{"list":[${literal}],"m":${literal}}`);
        expect(codec.roundTrip(once)).toBe(once);
      }),
    );
  });
});

describe('typed long fields of a RANGE partition', () => {
  // rest.li reads keyRangeStart and partitionSize as Java longs: a failout's read-modify-write of the
  // cluster document must write back the digits it read, even where a double cannot hold them.
  it('keeps keyRangeStart, partitionSize and partitionCount digit for digit beyond 2^53', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 62n }), fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 62n }), (start, size) => {
        // Prepare
        const input = `{"clusterName":"c","partitionProperties":{"partitionType":"RANGE","partitionKeyRegex":"/(\\\\d+)","keyRangeStart":${start},"partitionSize":${size},"partitionCount":10}}`;

        // Act
        const written = serializeClusterProperties(parseClusterProperties(input));

        // Assess
        expect(written).toContain(`"keyRangeStart":${start},"partitionSize":${size},"partitionCount":10`);
      }),
    );
  });

  it('writes the number it holds when a caller changed it', () => {
    // Prepare
    const props = parseClusterProperties('{"clusterName":"c","partitionProperties":{"partitionType":"RANGE","partitionKeyRegex":"x","keyRangeStart":9007199254740993,"partitionSize":5,"partitionCount":2}}');
    const partition = props.partitionProperties as { keyRangeStart: number };

    // Act
    partition.keyRangeStart = 7;

    // Assess
    expect(serializeClusterProperties(props)).toContain('"keyRangeStart":7,');
  });
});
