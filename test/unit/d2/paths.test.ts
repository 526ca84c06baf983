import { D2Error } from '../../../lib/d2/errors';
import { clusterPath, normalizeBasePath, serviceDirectoryPath, servicePath, urisPath } from '../../../lib/d2/paths';

// ZKFSUtil's path rules (rest.li ZKFSUtilTest vectors, d2-json-formats.md §2).

describe('D2 paths', () => {
  it.each([
    ['/d2', '/d2/clusters'],
    ['/d2/', '/d2/clusters'],
    ['/d2//', '/d2/clusters'],
    ['/', '/clusters'],
    ['', '/clusters'],
  ])('puts the cluster directory of base %j at %s', (base, expected) => {
    // Act
    const path = clusterPath(base);

    // Assess
    expect(path).toBe(expected);
  });

  it.each([
    ['/d2', undefined, '/d2/services'],
    ['', 'test', '/test'],
    ['/d2', '', '/d2/services'],
  ])('resolves ZKFSUtil.servicePath(%j, %j) to %s', (base, directory, expected) => {
    // Act
    const path = serviceDirectoryPath(base, directory);

    // Assess
    expect(path).toBe(expected);
  });

  it('defaults the base path to /d2 and strips trailing slashes', () => {
    // Act
    const paths = [normalizeBasePath(), normalizeBasePath('/x/d2///'), clusterPath(undefined, 'c')];

    // Assess
    expect(paths).toEqual(['/d2', '/x/d2', '/d2/clusters/c']);
  });

  it('builds the node paths of a cluster, a service and a cluster URI directory', () => {
    // Act
    const paths = [clusterPath('/d2/', 'greetings-lor1'), servicePath('/d2', 'greetings'), urisPath('/d2', 'greetings-lor1'), urisPath('/d2')];

    // Assess
    expect(paths).toEqual(['/d2/clusters/greetings-lor1', '/d2/services/greetings', '/d2/uris/greetings-lor1', '/d2/uris']);
  });

  it.each(['', '.', '..', 'a/b', 'nul\u0000'])('rejects %j as a name with a malformed D2Error', (name) => {
    // Act
    const act = (): string => clusterPath('/d2', name);

    // Assess
    expect(act).toThrow(D2Error);
    try {
      act();
    } catch (err) {
      expect((err as D2Error).kind).toBe('malformed');
    }
  });
});
