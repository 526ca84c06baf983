/**
 * The authority with incremental ADS responses (failout_delta_ads): absence from a response means
 * nothing, `removed_resources` means does-not-exist at once (cached or not, unless the server has
 * ignore_resource_deletion, which keeps a cached value as it does for SotW deletions), and the A71
 * rules stay: a lower server's response is dropped.
 */
import { Authority } from '../../../lib/xds/authority';
import { CDS_TYPE_URL, EDS_TYPE_URL, FakePool, LDS_TYPE_URL, fakeTypes, recordingWatcher, server, settle } from '../../helpers/xds-fakes';

const P = 'observer-a:1';
const S = 'observer-b:2';

function setup(ignoreResourceDeletion = false): { authority: Authority; pool: FakePool } {
  const pool = new FakePool();
  const authority = new Authority({ name: '', servers: [server(P, 0, ignoreResourceDeletion), server(S, 1)], pool, resourceTypes: fakeTypes() });
  return { authority, pool };
}

describe('Authority with incremental responses', () => {
  it('never deletes a cached LDS/CDS resource missing from a delta response', async () => {
    // Prepare
    const { authority, pool } = setup();
    const l1 = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', l1);
    authority.watch(LDS_TYPE_URL, 'l2', recordingWatcher());
    pool.live(P).respondDelta(LDS_TYPE_URL, { l1: 'a' });
    await l1.next();

    // Act: a delta response carrying only l2
    pool.live(P).respondDelta(LDS_TYPE_URL, { l2: 'b' });
    await settle();

    // Assess
    expect(l1.events).toEqual([{ type: 'update', value: 'a' }]);
    expect(authority.dump().resources.find((r) => r.name === 'l1')?.status).toBe('acked');
  });

  it.each([
    ['an uncached resource', false],
    ['a cached resource', true],
  ])('marks %s named in removed_resources does-not-exist at once', async (_case, cachedFirst) => {
    // Prepare
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(EDS_TYPE_URL, 'e1', w);
    if (cachedFirst) {
      pool.live(P).respondDelta(EDS_TYPE_URL, { e1: 'v' });
      await w.next();
    }

    // Act
    pool.live(P).respondDelta(EDS_TYPE_URL, {}, ['e1']);

    // Assess
    expect(await w.next()).toEqual({ type: 'doesNotExist' });
    const dumped = authority.dump().resources.find((r) => r.name === 'e1');
    expect(dumped).toMatchObject({ status: 'doesNotExist', source: P, raw: undefined });
  });

  it('tells watchers of a removed name once, however often a server repeats it', async () => {
    // Prepare
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);

    // Act
    pool.live(P).respondDelta(CDS_TYPE_URL, {}, ['c1']);
    pool.live(P).respondDelta(CDS_TYPE_URL, {}, ['c1']);
    await settle();

    // Assess
    expect(w.events).toEqual([{ type: 'doesNotExist' }]);
  });

  it('keeps a cached resource removed by a server with ignore_resource_deletion, and still marks an uncached one', async () => {
    // Prepare
    const { authority, pool } = setup(true);
    const cached = recordingWatcher();
    const uncached = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', cached);
    authority.watch(CDS_TYPE_URL, 'nosuch', uncached);
    pool.live(P).respondDelta(CDS_TYPE_URL, { c1: 'v' });
    await cached.next();

    // Act
    pool.live(P).respondDelta(CDS_TYPE_URL, {}, ['c1', 'nosuch']);

    // Assess
    expect(await uncached.next()).toEqual({ type: 'doesNotExist' });
    await settle();
    expect(cached.events).toEqual([{ type: 'update', value: 'v' }]);
    expect(authority.dump().resources.find((r) => r.name === 'c1')?.status).toBe('acked');
  });

  it('records the per-resource version of a delta update (CSDS)', async () => {
    // Prepare
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);

    // Act
    pool.live(P).respondDelta(CDS_TYPE_URL, { c1: 'v' }, [], { version: '4711' });
    await w.next();

    // Assess
    expect(authority.dump().resources.find((r) => r.name === 'c1')?.version).toBe('4711');
  });

  it('records the rejected resource\'s own version of a NACKed delta update (CSDS error_state)', async () => {
    // Prepare
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);
    pool.live(P).respondDelta(CDS_TYPE_URL, { c1: 'v' }, [], { version: '10' });
    await w.next();

    // Act
    pool.live(P).respondDelta(CDS_TYPE_URL, {}, [], { version: '11', errors: { c1: 'bad' } });
    await w.next();

    // Assess
    expect(authority.dump().resources.find((r) => r.name === 'c1')).toMatchObject({ status: 'nacked', version: '10', rejected: { version: '11' } });
  });

  it('tells the primary\'s channel, during a fallback, which version of each resource it now holds from the secondary (none for a SotW value or does-not-exist)', () => {
    // Prepare: c1, c2 and c3 from the primary, which then fails while c4 is uncached
    const { authority, pool } = setup();
    for (const name of ['c1', 'c2', 'c3', 'c4']) authority.watch(CDS_TYPE_URL, name, recordingWatcher());
    const primary = pool.live(P);
    primary.respondDelta(CDS_TYPE_URL, { c1: 'a', c2: 'b', c3: 'c' }, [], { version: '5' });
    primary.fail();

    // Act: the secondary sends c1 at version 4 over delta, c2 over SotW, and removes c3
    pool.live(S).respondDelta(CDS_TYPE_URL, { c1: 'older' }, [], { version: '4' });
    pool.live(S).respond(CDS_TYPE_URL, { c1: 'older', c2: 'b' });
    pool.live(S).respondDelta(CDS_TYPE_URL, {}, ['c3']);

    // Assess: the primary's own responses told nobody; the secondary's told the primary each time
    expect(pool.live(S).heldElsewhere).toEqual([]);
    expect(primary.heldElsewhere).toEqual(['c1@4', 'c1@-', 'c2@-', 'c3@-']);
  });

  it('drops removed_resources from a lower-priority server while a higher one is active', async () => {
    // Prepare: the primary fails with c1 uncached, the secondary serves c1, the primary returns
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);
    pool.live(P).fail();
    pool.live(S).respondDelta(CDS_TYPE_URL, { c1: 'from-s' });
    const secondary = pool.live(S);
    pool.live(P).respondDelta(CDS_TYPE_URL, { c1: 'from-p' });
    await w.next();
    await w.next();

    // Act: the released secondary's late response says c1 is gone
    secondary.respondDelta(CDS_TYPE_URL, {}, ['c1']);
    await settle();

    // Assess
    expect(authority.activeIndex).toBe(0);
    expect(w.events.map((e) => (e.type === 'update' ? e.value : e.type))).toEqual(['from-s', 'from-p']);
  });
});
