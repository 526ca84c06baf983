/**
 * Authority lifecycle: cancelling watches, releasing channels, close, dump.
 */
import { Authority } from '../../../lib/xds/authority';
import { CDS_TYPE_URL, FakePool, LDS_TYPE_URL, fakeAny, fakeTypes, recordingWatcher, server, settle } from '../../helpers/xds-fakes';

const P = 'primary:1';
const S = 'secondary:2';

function setup(): { authority: Authority; pool: FakePool } {
  const pool = new FakePool();
  const authority = new Authority({ name: 'x', servers: [server(P, 0), server(S, 1)], pool, resourceTypes: fakeTypes() });
  return { authority, pool };
}

describe('Authority lifecycle', () => {
  it('unsubscribes a cancelled resource on every channel and stops its callbacks', async () => {
    const { authority, pool } = setup();
    authority.watch(LDS_TYPE_URL, 'keep', recordingWatcher());
    const w = recordingWatcher();
    const cancel = authority.watch(CDS_TYPE_URL, 'c1', w);
    pool.live(P).fail();
    cancel();
    expect(pool.live(P).names(CDS_TYPE_URL)).toEqual([]);
    expect(pool.live(S).names(CDS_TYPE_URL)).toEqual([]);
    pool.live(S).respond(CDS_TYPE_URL, { c1: 'v' });
    await settle(10);
    expect(w.events).toEqual([]);
  });

  it('keeps the subscription while another watcher of the same resource remains', () => {
    const { authority, pool } = setup();
    const cancel = authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    cancel();
    expect(pool.live(P).names(CDS_TYPE_URL)).toEqual(['c1']);
  });

  it('releases every channel on the last cancel and starts again from the primary', () => {
    const { authority, pool } = setup();
    const cancel = authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).fail();
    cancel();
    expect(pool.liveUris()).toEqual([]);
    authority.watch(CDS_TYPE_URL, 'c2', recordingWatcher());
    expect(pool.liveUris()).toEqual([P]);
    expect(authority.activeIndex).toBe(0);
  });

  it('releases every channel on close and refuses new watches', () => {
    const { authority, pool } = setup();
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).fail();
    authority.close();
    expect(pool.liveUris()).toEqual([]);
    expect(() => authority.watch(CDS_TYPE_URL, 'c2', recordingWatcher())).toThrow(expect.objectContaining({ kind: 'closed' }));
  });

  it('dumps the active server, each server state and each resource', () => {
    const { authority, pool } = setup();
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    authority.watch(CDS_TYPE_URL, 'c2', recordingWatcher());
    pool.live(P).fail();
    pool.live(S).respond(CDS_TYPE_URL, { c1: 'v' }, { version: '7' });
    expect(authority.dump()).toEqual({
      authority: 'x',
      topLevel: false,
      activeServer: S,
      servers: [
        { serverUri: P, state: 'failing', lastError: expect.stringContaining('refused') },
        { serverUri: S, state: 'ready', lastError: undefined },
      ],
      resources: [
        { typeUrl: CDS_TYPE_URL, name: 'c1', status: 'acked', version: '7', source: S, watchers: 1, error: undefined, raw: fakeAny(CDS_TYPE_URL, 'c1', 'v'), lastUpdated: expect.any(Number), rejected: undefined },
        { typeUrl: CDS_TYPE_URL, name: 'c2', status: 'requested', version: '', source: undefined, watchers: 1, error: undefined, raw: undefined, lastUpdated: undefined, rejected: undefined },
      ],
    });
  });

  it('rejects an authority without servers', () => {
    expect(() => new Authority({ name: 'e', servers: [], pool: new FakePool(), resourceTypes: fakeTypes() })).toThrow(
      expect.objectContaining({ kind: 'bootstrap' }),
    );
  });
});
