import { parseUriProperties, serializeUriProperties, urisBySchemeAndPartition } from '../../../lib/d2/codecs/uri';
import type { UriProperties } from '../../../lib/d2/model';
import { QUICKSTART, catchD2Error, semantic } from './fixtures';

const GOOGLE = 'http://www.google.com';
const IMDB = 'http://www.imdb.com';

function uriProps(partitionDesc: UriProperties['partitionDesc'], clusterName = 'test'): UriProperties {
  return { clusterName, partitionDesc, uriSpecificProperties: {} };
}

describe('URI codec: rest.li test vectors (§3.1)', () => {
  it('vector 1: reads the legacy weights map as partition 0 and writes both forms', () => {
    // Prepare
    const input = `{"clusterName": "test4", "weights":{"${GOOGLE}": 1.0, "${IMDB}": 2.0}}`;

    // Act
    const props = parseUriProperties(input);
    const written = serializeUriProperties(props);

    // Assess
    expect(props).toEqual<UriProperties>({
      clusterName: 'test4',
      partitionDesc: { [GOOGLE]: { 0: 1 }, [IMDB]: { 0: 2 } },
      uriSpecificProperties: {},
      extra: {},
    });
    expect(semantic(written)).toEqual(
      semantic(
        `{"weights":{"${IMDB}":2.0,"${GOOGLE}":1.0},"clusterName":"test4","partitionDesc":{"${IMDB}":{"0":{"weight":2.0}},` +
          `"${GOOGLE}":{"0":{"weight":1.0}}},"uriSpecificProperties":{},"urisBySchemeAndPartition":{"http":{"0":["${IMDB}","${GOOGLE}"]}}}`,
      ),
    );
  });

  it('vector 2: reads a partitioned description', () => {
    // Act
    const props = parseUriProperties(
      '{"clusterName":"test","partitionDesc":{"https://www.linkedin.com":{"0":{"weight":0.3},"1000":{"weight":0.3}}}}',
    );

    // Assess
    expect(props).toEqual<UriProperties>({
      clusterName: 'test',
      partitionDesc: { 'https://www.linkedin.com': { 0: 0.3, 1000: 0.3 } },
      uriSpecificProperties: {},
      extra: {},
    });
  });

  it.each([
    [
      '3: application properties',
      '{"clusterName":"test","partitionDesc":{"https://www.linkedin.com":{"0":{"weight":0.3},"1000":{"weight":0.3}}},' +
        '"uriSpecificProperties":{"https://www.linkedin.com":{"bar":"barValue","foo":"fooValue","baz":1}},' +
        '"urisBySchemeAndPartition":{"https":{"0":["https://www.linkedin.com"],"1000":["https://www.linkedin.com"]}}}',
    ],
    [
      '4: no URIs',
      '{"weights":{},"clusterName":"test","partitionDesc":{},"uriSpecificProperties":{},"urisBySchemeAndPartition":{}}',
    ],
    [
      '5: one URI with weight 1',
      `{"weights":{"${GOOGLE}":1.0},"clusterName":"test","partitionDesc":{"${GOOGLE}":{"0":{"weight":1.0}}},` +
        `"uriSpecificProperties":{},"urisBySchemeAndPartition":{"http":{"0":["${GOOGLE}"]}}}`,
    ],
    [
      '6: two partitioned URIs (no weights key)',
      `{"clusterName":"test 3","partitionDesc":{"${IMDB}":{"0":{"weight":0.3},"1200":{"weight":0.4},"700":{"weight":0.3}},` +
        `"${GOOGLE}":{"0":{"weight":0.3},"1200":{"weight":0.4},"700":{"weight":0.3}}},"uriSpecificProperties":{},` +
        `"urisBySchemeAndPartition":{"http":{"0":["${IMDB}","${GOOGLE}"],"1200":["${IMDB}","${GOOGLE}"],"700":["${IMDB}","${GOOGLE}"]}}}`,
    ],
    ['§1.4 quick-start child', QUICKSTART.uri],
    ['§1.4 partitioned child', QUICKSTART.partitionedUri],
  ])('vector %s: reads and writes back unchanged', (_name, input) => {
    // Act
    const written = serializeUriProperties(parseUriProperties(input));

    // Assess
    expect(semantic(written)).toEqual(semantic(input));
  });

  it.each([
    ['no URIs', {}, true],
    ['one URI on partition 0', { [GOOGLE]: { 0: 1 } }, true],
    ['one URI on partition 1', { [GOOGLE]: { 1: 1 } }, false],
    ['one URI on partitions 0 and 1', { [GOOGLE]: { 0: 1, 1: 1 } }, false],
    ['one URI with no partition', { [GOOGLE]: {} }, false],
    ['two URIs on partition 0', { [GOOGLE]: { 0: 1 }, [IMDB]: { 0: 0.5 } }, true],
    ['one of two URIs partitioned', { [GOOGLE]: { 0: 1 }, [IMDB]: { 3: 0.5 } }, false],
  ])('writes the legacy weights map for %s: %s', (_name, partitionDesc, hasWeights) => {
    // Act
    const written = JSON.parse(serializeUriProperties(uriProps(partitionDesc)));

    // Assess
    expect(Object.hasOwn(written, 'weights')).toBe(hasWeights);
  });

  it('writes the keys in the order of vector 1, extras last', () => {
    // Prepare
    const input = `{"zeta":1,"clusterName":"c","weights":{"${GOOGLE}":1.0}}`;

    // Act
    const keys = Object.keys(JSON.parse(serializeUriProperties(parseUriProperties(input))));

    // Assess
    expect(keys).toEqual(['weights', 'clusterName', 'partitionDesc', 'uriSpecificProperties', 'urisBySchemeAndPartition', 'zeta']);
  });

  it('writes integer weights with a decimal point, in both weights and partitionDesc', () => {
    // Prepare
    const input = '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{"weight":1}}}}';

    // Act
    const written = serializeUriProperties(parseUriProperties(input));

    // Assess
    expect(written).toContain('"weights":{"http://h:1":1.0}');
    expect(written).toContain('"partitionDesc":{"http://h:1":{"0":{"weight":1.0}}}');
  });

  it('prefers partitionDesc over weights when both are present, even if they disagree', () => {
    // Act
    const props = parseUriProperties(
      '{"clusterName":"c","weights":{"http://a:1":5.0},"partitionDesc":{"http://b:1":{"0":{"weight":1.0}}}}',
    );

    // Assess
    expect(props.partitionDesc).toEqual({ 'http://b:1': { 0: 1 } });
  });

  it('uses weights when partitionDesc is empty', () => {
    // Act
    const props = parseUriProperties('{"clusterName":"c","weights":{"http://a:1":5.0},"partitionDesc":{}}');

    // Assess
    expect(props.partitionDesc).toEqual({ 'http://a:1': { 0: 5 } });
  });

  it('groups URIs by scheme (case kept) and partition, leaving out relative URIs', () => {
    // Act
    const grouped = urisBySchemeAndPartition({
      'http://a:1': { 0: 1, 2: 1 },
      'HTTPS://b:2': { 0: 1 },
      'https://c:3': { 2: 0.5 },
      'relative/path': { 0: 1 },
    });

    // Assess
    expect(grouped).toEqual({
      http: { 0: ['http://a:1'], 2: ['http://a:1'] },
      HTTPS: { 0: ['HTTPS://b:2'] },
      https: { 2: ['https://c:3'] },
    });
  });
});

describe('URI codec: reader rules (§1.3, §3.5)', () => {
  it.each<[string, string, string]>([
    ['a missing clusterName', '{"partitionDesc":{}}', 'clusterName'],
    ['a string weight in weights', '{"clusterName":"c","weights":{"http://h:1":"1.0"}}', 'weights["http://h:1"]'],
    ['a null weight in weights', '{"clusterName":"c","weights":{"http://h:1":null}}', 'weights["http://h:1"]'],
    ['a bad weights map even when partitionDesc wins', '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{"weight":1.0}}},"weights":{"http://h:1":"x"}}', 'weights["http://h:1"]'],
    ['partition key "a"', '{"clusterName":"c","partitionDesc":{"http://h:1":{"a":{"weight":1}}}}', 'partitionDesc["http://h:1"]["a"]'],
    ['a partition key beyond 32 bits', '{"clusterName":"c","partitionDesc":{"http://h:1":{"2147483648":{"weight":1}}}}', 'partitionDesc["http://h:1"]["2147483648"]'],
    ['a partition key with a fraction', '{"clusterName":"c","partitionDesc":{"http://h:1":{"1.0":{"weight":1}}}}', 'partitionDesc["http://h:1"]["1.0"]'],
    ['a missing weight', '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{}}}}', 'partitionDesc["http://h:1"]["0"].weight'],
    ['a string weight', '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{"weight":"1"}}}}', 'partitionDesc["http://h:1"]["0"].weight'],
    ['partition data that is a number', '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":1.0}}}', 'partitionDesc["http://h:1"]["0"]'],
    ['partitions that are null', '{"clusterName":"c","partitionDesc":{"http://h:1":null}}', 'partitionDesc["http://h:1"]'],
    ['an invalid URI key', '{"clusterName":"c","partitionDesc":{"http://bad host":{"0":{"weight":1}}}}', 'partitionDesc["http://bad host"]'],
    ['an invalid URI in weights', '{"clusterName":"c","weights":{"http://":1.0}}', 'weights["http://"]'],
    ['a null uriSpecificProperties', '{"clusterName":"c","uriSpecificProperties":null}', 'uriSpecificProperties'],
    ['a list uriSpecificProperties', '{"clusterName":"c","uriSpecificProperties":[]}', 'uriSpecificProperties'],
    ['a URI property set that is a string', '{"clusterName":"c","uriSpecificProperties":{"http://h:1":"x"}}', 'uriSpecificProperties["http://h:1"]'],
    ['partitionDesc that is a list', '{"clusterName":"c","partitionDesc":[]}', 'partitionDesc'],
    ['text that is not JSON', '\u00ff', ''],
  ])('rejects %s, naming the field', (_name, input, field) => {
    // Act
    const error = catchD2Error(() => parseUriProperties(input));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'uri', field });
  });

  it.each([
    ['partitionDesc', 'null'],
    ['weights', 'null'],
    ['urisBySchemeAndPartition', 'null'],
  ])('accepts an explicit null for %s', (key, value) => {
    // Act
    const props = parseUriProperties(`{"clusterName":"c","${key}":${value}}`);

    // Assess
    expect(props).toEqual({ clusterName: 'c', partitionDesc: {}, uriSpecificProperties: {}, extra: {} });
  });

  it('accepts signed and zero-padded partition keys as Integer.parseInt does', () => {
    // Act
    const props = parseUriProperties('{"clusterName":"c","partitionDesc":{"http://h:1":{"+7":{"weight":1},"-0":{"weight":2},"-3":{"weight":3}}}}');

    // Assess
    expect(props.partitionDesc['http://h:1']).toEqual({ 7: 1, 0: 2, [-3]: 3 });
  });

  it('ignores urisBySchemeAndPartition on read and derives it again on write', () => {
    // Act
    const props = parseUriProperties(
      '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{"weight":1.0}}},"urisBySchemeAndPartition":{"ftp":{"9":["x"]}}}',
    );

    // Assess
    expect(props.extra).toEqual({});
    expect(JSON.parse(serializeUriProperties(props)).urisBySchemeAndPartition).toEqual({ http: { 0: ['http://h:1'] } });
  });

  it('keeps URI property sets as given, drops null ones, and keeps unknown top-level keys', () => {
    // Prepare
    const input =
      '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{"weight":1.0}}},' +
      '"uriSpecificProperties":{"http://h:1":{"doNotSlowStart":true,"factor":1.0},"http://gone:2":null},"announcer":"x"}';

    // Act
    const props = parseUriProperties(input);
    const written = serializeUriProperties(props);

    // Assess
    expect(props.uriSpecificProperties).toEqual({ 'http://h:1': { doNotSlowStart: true, factor: 1 } });
    expect(props.extra).toEqual({ announcer: 'x' });
    expect(written).toContain('"uriSpecificProperties":{"http://h:1":{"doNotSlowStart":true,"factor":1.0}}');
    expect(written).toContain('"announcer":"x"');
  });

  it('accepts the same document as bytes, as text and as a parsed object', () => {
    // Prepare
    const text = QUICKSTART.partitionedUri;

    // Act
    const fromBytes = parseUriProperties(Buffer.from(text, 'utf8'));
    const fromText = parseUriProperties(text);
    const fromObject = parseUriProperties(JSON.parse(text));

    // Assess
    expect(fromBytes).toEqual(fromText);
    expect(fromObject).toEqual(fromText);
  });

  it('rejects a weight the writer cannot represent', () => {
    // Act
    const error = catchD2Error(() => serializeUriProperties(uriProps({ 'http://h:1': { 0: Number.POSITIVE_INFINITY } })));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'uri', field: 'weights["http://h:1"]' });
  });
});
