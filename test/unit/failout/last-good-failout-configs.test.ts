import type { FailoutPropertiesJson } from '../../../lib/d2';
import { LastGoodFailoutConfigs } from '../../../lib/failout/last-good-failout-configs';
import { failoutJson } from './config-factories';

// LastGoodFailoutConfigs: a malformed update is reported and ignored; the last good config stays.

const malformed: FailoutPropertiesJson = { failoutRedirectConfigs: [{ peer: 'lva1', weight: 0 }], failoutBucketConfigs: [{}] };

describe('LastGoodFailoutConfigs', () => {
  it('keeps the last good config when an update is malformed, and reports it', () => {
    // Prepare
    const reported: string[] = [];
    const configs = new LastGoodFailoutConfigs({ onMalformed: (cluster, err) => reported.push(`${cluster}: ${(err as { field?: string }).field}`) });
    const good = configs.update('lor1', failoutJson(['lva1']));

    // Act
    const kept = configs.update('lor1', malformed);

    // Assess
    expect(kept).toBe(good);
    expect(configs.get('lor1')).toBe(good);
    expect(configs.stats()).toEqual({ malformed: 1, clusters: 1 });
    expect(reported).toEqual(['lor1: failoutRedirectConfigs[0].weight']);
  });

  it('has no config when the first update of a cluster is malformed', () => {
    // Prepare
    const configs = new LastGoodFailoutConfigs();

    // Act
    const kept = configs.update('lor1', malformed);

    // Assess
    expect(kept).toBeUndefined();
    expect(configs.stats()).toEqual({ malformed: 1, clusters: 0 });
  });

  it.each([
    ['null (failout removed)', null],
    ['undefined (cluster unknown)', undefined],
  ])('clears the config on an update that is %s', (_name, raw) => {
    // Prepare
    const configs = new LastGoodFailoutConfigs();
    configs.update('lor1', failoutJson(['lva1']));

    // Act
    const now = configs.update('lor1', raw);

    // Assess
    expect(now).toBeUndefined();
    expect(configs.get('lor1')).toBeUndefined();
  });

  it('replaces the config on a good update and forgets it on remove', () => {
    // Prepare
    const configs = new LastGoodFailoutConfigs();
    configs.update('lor1', failoutJson(['lva1']));

    // Act
    const next = configs.update('lor1', failoutJson(['ltx1']));
    const before = configs.get('lor1');
    configs.remove('lor1');

    // Assess
    expect([...next!.getPeerClusters()]).toEqual(['ltx1']);
    expect(before).toBe(next);
    expect(configs.get('lor1')).toBeUndefined();
    expect(configs.stats()).toEqual({ malformed: 0, clusters: 0 });
  });
});
