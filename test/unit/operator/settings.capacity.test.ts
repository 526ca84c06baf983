import { resolveSettings } from '../../../lib/operator';

// Issue 16: the CLI reads MAX_PEER_LOAD_FACTOR by the worker's rule, so its checks and --dry-run agree with the worker.
describe('resolveSettings MAX_PEER_LOAD_FACTOR', () => {
  it.each([
    [{}, 2],
    [{ MAX_PEER_LOAD_FACTOR: '1.4' }, 1.4],
    [{ MAX_PEER_LOAD_FACTOR: ' 3 ' }, 3],
  ])('reads %j as %p', (env, factor) => {
    expect(resolveSettings({}, env).maxPeerLoadFactor).toBe(factor);
  });

  it.each(['0.5', 'lots', 'Infinity'])('refuses %p as a usage error naming the variable', (value) => {
    expect(() => resolveSettings({}, { MAX_PEER_LOAD_FACTOR: value })).toThrow(expect.objectContaining({ kind: 'input', message: expect.stringContaining('MAX_PEER_LOAD_FACTOR') }));
  });
});
