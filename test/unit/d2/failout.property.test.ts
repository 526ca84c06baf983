import fc from 'fast-check';
import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2/codecs/cluster';
import { parseFailoutProperties, serializeFailoutProperties } from '../../../lib/d2/codecs/failout';
import { failoutPropertiesArbitrary } from '../../helpers/failout-arbitraries';

// parse(serialize(x)) == x for every valid typed failoutProperties, on its own and inside a cluster.

describe('failout codec: round trips of generated models', () => {
  it('reads back every model it writes, equal to the model', () => {
    fc.assert(
      fc.property(failoutPropertiesArbitrary, (props) => {
        // Act
        const reread = parseFailoutProperties(serializeFailoutProperties(props));
        // Text is stable from the first read on (a number written from a model has no literal record).
        const once = serializeFailoutProperties(reread!);
        const twice = serializeFailoutProperties(parseFailoutProperties(once)!);

        // Assess
        expect(reread).toEqual(props);
        expect(twice).toBe(once);
      }),
    );
  });

  it('reads back every model written inside a cluster document, equal to the model', () => {
    const base = parseClusterProperties({ clusterName: 'greetings-lor1', owner: 'team-a' });
    fc.assert(
      fc.property(failoutPropertiesArbitrary, (props) => {
        // Act
        const reread = parseClusterProperties(serializeClusterProperties({ ...base, failoutProperties: props }));

        // Assess
        expect(reread.failoutProperties).toEqual(props);
        expect(reread.extra).toEqual({ owner: 'team-a' });
      }),
    );
  });
});
