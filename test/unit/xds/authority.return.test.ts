/**
 * Return to a higher-priority server (gRFC A71 revert rule) and what happens to the lower channels.
 */
import { CDS_TYPE_URL, fakeAuthority, LDS_TYPE_URL, RDS_TYPE_URL, recordingWatcher, settle } from '../../helpers/xds-fakes';

const P = 'primary:1';
const S = 'secondary:2';
const T = 'tertiary:3';

function setup(uris: string[] = [P, S]): ReturnType<typeof fakeAuthority> {
  return fakeAuthority(uris, 'a');
}

describe('Authority return to a higher-priority server', () => {
  it('makes the primary active again on its first response and releases the fallback', async () => {
    const { authority, pool, switches } = setup();
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    pool.live(P).fail();
    const secondary = pool.live(S);
    secondary.respond(LDS_TYPE_URL, { l1: 'from-s' });
    expect(await w.next()).toEqual({ type: 'update', value: 'from-s' });
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'from-p' });
    expect(await w.next()).toEqual({ type: 'update', value: 'from-p' });
    expect(secondary.released).toBe(true);
    expect(pool.liveUris()).toEqual([P]);
    expect(authority.activeIndex).toBe(0);
    expect(switches.map((s) => s.reason)).toEqual(['fallback', 'return']);
  });

  it('re-notifies watchers when the primary returns with an identical resource (LRS must move, A47)', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);
    pool.live(P).fail();
    pool.live(S).respond(CDS_TYPE_URL, { c1: { same: true } });
    await w.next();
    pool.live(P).respond(CDS_TYPE_URL, { c1: { same: true } });
    expect(await w.next()).toEqual({ type: 'update', value: { same: true } });
    expect(authority.dump().resources[0]?.source).toBe(P);
  });

  it('does not re-notify an identical resource from the same server', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w);
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v' });
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v' }, { version: '2' });
    await settle();
    expect(w.events).toEqual([{ type: 'update', value: 'v' }]);
  });

  it('has a watch started during fallback subscribed on the primary, so it gets the primary data after return (2.11a)', async () => {
    const { authority, pool } = setup();
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    pool.live(P).fail();
    pool.live(S).respond(LDS_TYPE_URL, { l1: 'rds-x' });
    const child = recordingWatcher();
    authority.watch(RDS_TYPE_URL, 'rds-x', child);
    expect(pool.live(P).names(RDS_TYPE_URL)).toEqual(['rds-x']);
    pool.live(S).respond(RDS_TYPE_URL, { 'rds-x': 'route-from-s' });
    expect(await child.next()).toEqual({ type: 'update', value: 'route-from-s' });
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'rds-x' }); // byte-identical parent
    pool.live(P).respond(RDS_TYPE_URL, { 'rds-x': 'route-from-p' });
    expect(await child.next()).toEqual({ type: 'update', value: 'route-from-p' });
  });

  it('returns from the third server to the second, then to the first (ThreeServerPromotion)', () => {
    const { authority, pool, switches } = setup([P, S, T]);
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    pool.live(P).fail();
    pool.live(S).fail();
    pool.live(T).respond(LDS_TYPE_URL, { l1: 't' });
    pool.live(S).respond(LDS_TYPE_URL, { l1: 's' });
    expect(pool.liveUris()).toEqual([P, S]);
    expect(authority.activeIndex).toBe(1);
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'p' });
    expect(pool.liveUris()).toEqual([P]);
    expect(switches.map((s) => `${s.reason}:${s.to.index}`)).toEqual(['fallback:1', 'fallback:2', 'return:1', 'return:0']);
  });

  it('drops a response from a lower-priority server than the active one', async () => {
    const { authority, pool } = setup([P, S, T]);
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    pool.live(P).fail();
    pool.live(S).fail();
    const tertiary = pool.live(T);
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'p' });
    await w.next();
    tertiary.respond(LDS_TYPE_URL, { l1: 'late' });
    await settle(10);
    expect(w.events).toEqual([{ type: 'update', value: 'p' }]);
  });

  it('falls back again after a return when the primary fails again with something uncached', () => {
    const { authority, pool } = setup();
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    pool.live(P).fail();
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'p' });
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).fail();
    expect(pool.liveUris()).toEqual([P, S]);
  });
});
