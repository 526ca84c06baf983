import { isSymlinkName, linkTargetName, MAX_SYMLINK_HOPS, resolveLinks, type LinkState } from '../../../lib/d2/symlinks';

// The resolution rule of D2 symlinks (rest.li SymlinkAwareZooKeeper), over a table of link states.

const DIR = '/d2/clusters';

function links(table: Record<string, LinkState>): (link: string) => LinkState {
  return (link) => table[link] ?? { kind: 'absent' };
}

const to = (name: string, version = 7n): LinkState => ({ kind: 'target', path: `${DIR}/${name}`, version });

describe('D2 symlink resolution', () => {
  it.each([
    ['a plain name is itself', 'foo', {}, { kind: 'resolved', name: 'foo', links: [] }],
    ['a link resolves to its target', '$fooMaster', { $fooMaster: to('foo-lor1') }, { kind: 'resolved', name: 'foo-lor1', links: ['$fooMaster'] }],
    ['a chain of links resolves to its end', '$a', { $a: to('$b'), $b: to('foo') }, { kind: 'resolved', name: 'foo', links: ['$a', '$b'] }],
    ['a link not read yet is loading', '$a', { $a: { kind: 'loading' } }, { kind: 'loading', links: ['$a'] }],
    ['a missing link node is absent', '$a', { $a: to('$gone') }, { kind: 'absent', links: ['$a', '$gone'] }],
  ] as const)('%s', (_what, name, table, expected) => {
    // Act
    const resolution = resolveLinks(DIR, name, links(table));

    // Assess
    expect(resolution).toEqual(expected);
  });

  it('reports a cycle as broken, naming the loop and the version of the last link read', () => {
    // Act
    const resolution = resolveLinks(DIR, '$a', links({ $a: to('$b', 3n), $b: to('$a', 4n) }));

    // Assess
    expect(resolution).toEqual({ kind: 'broken', reason: 'symlink cycle $a -> $b -> $a', version: 4n, links: ['$a', '$b'] });
  });

  it(`reports a chain longer than ${MAX_SYMLINK_HOPS} links as broken`, () => {
    // Prepare
    const table: Record<string, LinkState> = {};
    for (let i = 0; i <= MAX_SYMLINK_HOPS; i++) table[`$l${i}`] = to(`$l${i + 1}`);

    // Act
    const resolution = resolveLinks(DIR, '$l0', links(table));

    // Assess
    expect(resolution).toMatchObject({ kind: 'broken', reason: `symlink chain from $l0 longer than ${MAX_SYMLINK_HOPS} links` });
    expect(resolution.links).toHaveLength(MAX_SYMLINK_HOPS);
  });

  it.each([
    ['another directory', '/d2/uris/foo'],
    ['a deeper node', '/d2/clusters/foo/bar'],
    ['a relative path', 'foo'],
  ])('reports a link into %s as broken', (_what, path) => {
    // Act
    const resolution = resolveLinks(DIR, '$a', links({ $a: { kind: 'target', path, version: 9n } }));

    // Assess
    expect(resolution).toMatchObject({ kind: 'broken', version: 9n, reason: `symlink ${DIR}/$a points at ${JSON.stringify(path)}, not at a node of ${DIR}` });
  });

  it('reports an unreadable link as broken with its error', () => {
    // Act
    const resolution = resolveLinks(DIR, '$a', links({ $a: { kind: 'invalid', error: new Error('NACKed') } }));

    // Assess
    expect(resolution).toMatchObject({ kind: 'broken', reason: `symlink ${DIR}/$a is unreadable: NACKed` });
  });

  it.each([
    ['$fooMaster', true],
    ['foo$bar', false],
    ['foo', false],
  ])('%s is a symlink name: %s', (name, expected) => {
    expect(isSymlinkName(name)).toBe(expected);
  });

  it('names the target in its directory only', () => {
    expect([linkTargetName(DIR, `${DIR}/x`), linkTargetName(DIR, `${DIR}/`), linkTargetName(DIR, `${DIR}x/y`)]).toEqual(['x', undefined, undefined]);
  });
});
