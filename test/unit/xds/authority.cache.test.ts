/**
 * The authority's cache: what a new watcher receives, NACKs, SotW deletion and does-not-exist.
 */
import { Authority } from '../../../lib/xds/authority';
import { XdsError } from '../../../lib/xds/errors';
import { CDS_TYPE_URL, EDS_TYPE_URL, FakePool, LDS_TYPE_URL, fakeTypes, recordingWatcher, server, settle } from '../../helpers/xds-fakes';

const P = 'primary:1';
const S = 'secondary:2';

function setup(ignoreResourceDeletion = false): { authority: Authority; pool: FakePool } {
  const pool = new FakePool();
  const authority = new Authority({
    name: '',
    servers: [server(P, 0, ignoreResourceDeletion), server(S, 1)],
    pool,
    resourceTypes: fakeTypes(),
  });
  return { authority, pool };
}

describe('Authority cache', () => {
  it('gives a second watcher of a cached resource the cached value without a new subscription', async () => {
    const { authority, pool } = setup();
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v' });
    const second = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', second);
    expect(await second.next()).toEqual({ type: 'update', value: 'v' });
  });

  it('reports a NACK as an ambient error when a value is cached and keeps the value', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v' });
    await w.next();
    pool.live(P).respond(CDS_TYPE_URL, {}, { errors: { c1: 'bad' }, version: '2' });
    const event = await w.next();
    expect(event).toMatchObject({ type: 'error', ambient: true });
    if (event.type === 'error') expect(event.error.kind).toBe('nacked');
    const dump = authority.dump().resources[0];
    expect(dump).toMatchObject({ status: 'nacked', version: '1', source: P });
  });

  it('reports a NACK as a resource error when nothing is cached, and uses the valid resources of the same response', async () => {
    const { authority, pool } = setup();
    const bad = recordingWatcher();
    const good = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'bad', bad);
    authority.watch(CDS_TYPE_URL, 'good', good);
    pool.live(P).respond(CDS_TYPE_URL, { good: 'g' }, { errors: { bad: 'invalid' } });
    expect(await bad.next()).toMatchObject({ type: 'error', ambient: false });
    expect(await good.next()).toEqual({ type: 'update', value: 'g' });
  });

  it('deletes a cached LDS/CDS resource missing from a SotW response', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    authority.watch(LDS_TYPE_URL, 'l2', recordingWatcher());
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'a', l2: 'b' });
    await w.next();
    pool.live(P).respond(LDS_TYPE_URL, { l2: 'b' });
    expect(await w.next()).toEqual({ type: 'doesNotExist' });
  });

  it('does not delete by absence a value another server sent: the server awaits it under the timer, whose expiry deletes it', async () => {
    const pool = new FakePool();
    const authority = new Authority({ name: '', servers: [server(P, 0), server(S, 1)], pool, resourceTypes: fakeTypes(), fallbackWhenCached: true });
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    authority.watch(LDS_TYPE_URL, 'l2', recordingWatcher());
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'a', l2: 'b' });
    await w.next();
    pool.live(P).fail();
    pool.live(S).respond(LDS_TYPE_URL, { l2: 'b2' }); // may predate S's sight of l1
    await settle();
    expect(w.events).toHaveLength(1);
    expect(pool.live(S).awaited).toEqual(['l1']);
    expect(authority.dump().resources.find((r) => r.name === 'l1')).toMatchObject({ status: 'acked', source: P });
    pool.live(S).expire(LDS_TYPE_URL, 'l2'); // l2 came from S: its timer has no say
    pool.live(S).expire(LDS_TYPE_URL, 'l1');
    expect(await w.next()).toEqual({ type: 'doesNotExist' });
    expect(authority.dump().resources.find((r) => r.name === 'l1')).toMatchObject({ status: 'doesNotExist', source: S });
    expect(authority.dump().resources.find((r) => r.name === 'l2')).toMatchObject({ status: 'acked', source: S });
  });

  it('does not delete anything on a response holding an invalid resource without a name', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'a' });
    await w.next();
    pool.live(P).handler.onResponse({
      typeUrl: LDS_TYPE_URL,
      version: '2',
      protocol: 'sotw',
      removed: [],
      updates: [],
      errors: [{ name: undefined, error: new XdsError('validation', 'undecodable') }],
      names: new Set(),
    });
    await settle();
    expect(w.events).toEqual([{ type: 'update', value: 'a' }]);
  });

  it('keeps a cached LDS resource missing from a response under ignore_resource_deletion', async () => {
    const { authority, pool } = setup(true);
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    authority.watch(LDS_TYPE_URL, 'l2', recordingWatcher());
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'a', l2: 'b' });
    pool.live(P).respond(LDS_TYPE_URL, { l2: 'b' });
    await settle();
    expect(w.events).toEqual([{ type: 'update', value: 'a' }]);
  });

  it('never treats absence from an EDS response as deletion', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(EDS_TYPE_URL, 'e1', w);
    authority.watch(EDS_TYPE_URL, 'e2', recordingWatcher());
    pool.live(P).respond(EDS_TYPE_URL, { e1: 'a' });
    pool.live(P).respond(EDS_TYPE_URL, { e2: 'b' });
    await settle();
    expect(w.events).toEqual([{ type: 'update', value: 'a' }]);
  });

  it('reports does-not-exist from the active server and ignores it from another', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);
    authority.watch(CDS_TYPE_URL, 'c2', recordingWatcher());
    pool.live(P).fail();
    pool.live(P).expire(CDS_TYPE_URL, 'c1');
    await settle(10);
    expect(w.events).toEqual([]);
    pool.live(S).expire(CDS_TYPE_URL, 'c1');
    expect(await w.next()).toEqual({ type: 'doesNotExist' });
    expect(authority.dump().resources.find((r) => r.name === 'c1')?.status).toBe('doesNotExist');
  });

  it('reports the resource as cached to the channels once it has a value', () => {
    const { authority, pool } = setup();
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    const handler = pool.live(P).handler;
    expect(handler.isResourceCached(CDS_TYPE_URL, 'c1')).toBe(false);
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v' });
    expect(handler.isResourceCached(CDS_TYPE_URL, 'c1')).toBe(true);
    expect(handler.isResourceCached(CDS_TYPE_URL, 'other')).toBe(false);
  });
});
