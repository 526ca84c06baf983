/**
 * The A71 fallback loop of one authority against fake channels: when it falls back, when it does not,
 * and what watchers hear meanwhile.
 */
import { CDS_TYPE_URL, fakeAuthority, LDS_TYPE_URL, recordingWatcher, settle } from '../../helpers/xds-fakes';

const P = 'primary:1';
const S = 'secondary:2';
const T = 'tertiary:3';

function setup(uris: string[] = [P, S]): ReturnType<typeof fakeAuthority> {
  return fakeAuthority(uris, '');
}

describe('Authority fallback (gRFC A71)', () => {
  it('connects only to the primary on the first watch', () => {
    const { authority, pool } = setup();
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    expect(pool.liveUris()).toEqual([P]);
    expect(pool.live(P).names(LDS_TYPE_URL)).toEqual(['l1']);
    authority.close();
  });

  it('falls back without telling watchers when the active server fails while a resource is uncached (TestAuthority_Fallback)', async () => {
    const { authority, pool, switches } = setup();
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    pool.live(P).fail();
    await settle(10);
    expect(w.events).toEqual([]);
    expect(pool.liveUris()).toEqual([P, S]);
    expect(pool.live(S).names(LDS_TYPE_URL)).toEqual(['l1']);
    expect(authority.activeIndex).toBe(1);
    expect(switches).toEqual([
      { authority: '', from: { index: 0, serverUri: P }, to: { index: 1, serverUri: S }, reason: 'fallback' },
    ]);
    pool.live(S).respond(LDS_TYPE_URL, { l1: 'from-secondary' });
    expect(await w.next()).toEqual({ type: 'update', value: 'from-secondary' });
    pool.live(S).fail('secondary closed');
    const error = await w.next();
    expect(error).toMatchObject({ type: 'error', ambient: true });
    authority.close();
  });

  it('subscribes every watched resource on the fallback, cached ones included', () => {
    const { authority, pool } = setup();
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'v' });
    pool.live(P).fail();
    expect(pool.live(S).names(LDS_TYPE_URL)).toEqual(['l1']);
    expect(pool.live(S).names(CDS_TYPE_URL)).toEqual(['c1']);
    authority.close();
  });

  it('does not fall back when every watched resource is cached, and reports one ambient error', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'v' });
    expect(await w.next()).toEqual({ type: 'update', value: 'v' });
    pool.live(P).fail();
    pool.live(P).fail('again');
    await settle();
    expect(pool.liveUris()).toEqual([P]);
    expect(w.events.slice(1)).toEqual([expect.objectContaining({ type: 'error', ambient: true })]);
    authority.close();
  });

  it('treats a does-not-exist resource as cached (no fallback)', async () => {
    const { authority, pool } = setup();
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).expire(CDS_TYPE_URL, 'c1');
    pool.live(P).fail();
    await settle(10);
    expect(pool.liveUris()).toEqual([P]);
    authority.close();
  });

  it('treats a NACKed resource without data as uncached and falls back (grpc-java hasResult)', () => {
    const { authority, pool } = setup();
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).respond(CDS_TYPE_URL, {}, { errors: { c1: 'bad cluster' } });
    pool.live(P).fail();
    expect(pool.liveUris()).toEqual([P, S]);
    authority.close();
  });

  it('falls back at once when a new uncached watch arrives while the active server is failing (C-core/Java)', async () => {
    const { authority, pool } = setup();
    const w1 = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w1);
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'v' });
    pool.live(P).fail();
    expect(pool.liveUris()).toEqual([P]);
    const w2 = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', w2);
    expect(pool.liveUris()).toEqual([P, S]);
    expect(pool.live(S).names(CDS_TYPE_URL)).toEqual(['c1']);
    expect(pool.live(S).names(LDS_TYPE_URL)).toEqual(['l1']);
    await settle(10);
    expect(w2.events).toEqual([]);
    authority.close();
  });

  it('ignores a failure of a higher-priority server while a fallback is active: no server #3, no watcher event', async () => {
    const { authority, pool } = setup([P, S, T]);
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).fail();
    pool.live(S).respond(LDS_TYPE_URL, { l1: 'v' });
    await w.next();
    pool.live(P).fail('retry failed');
    await settle(10);
    expect(pool.liveUris()).toEqual([P, S]);
    expect(w.events).toHaveLength(1);
    authority.close();
  });

  it('promotes through three servers and skips servers that are already failing', () => {
    const { authority, pool } = setup([P, S, T]);
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    pool.live(P).fail();
    pool.live(S).fail();
    expect(pool.liveUris()).toEqual([P, S, T]);
    expect(authority.activeIndex).toBe(2);
    authority.close();
  });

  it('sends one error per watcher naming the last server when every server is down', async () => {
    const { authority, pool } = setup();
    const w = recordingWatcher();
    authority.watch(LDS_TYPE_URL, 'l1', w);
    pool.live(P).fail();
    pool.live(S).fail();
    pool.live(P).fail('retry');
    pool.live(S).fail('retry');
    await settle();
    expect(w.events).toHaveLength(1);
    const event = w.events[0];
    expect(event).toMatchObject({ type: 'error', ambient: false });
    if (event?.type !== 'error') throw new Error('expected an error');
    expect(event.error.kind).toBe('connection');
    expect(event.error.serverUri).toBe(S);
    expect(event.error.message).toContain(S);
    authority.close();
  });

  it('gives a watch started during a total outage the outage error at once', async () => {
    const { authority, pool } = setup();
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    pool.live(P).fail();
    pool.live(S).fail();
    const late = recordingWatcher();
    authority.watch(CDS_TYPE_URL, 'c1', late);
    expect(await late.next()).toMatchObject({ type: 'error', ambient: false });
    authority.close();
  });

  it('sets the probe cap on higher-priority servers while a fallback serves, the normal cap otherwise', () => {
    const { authority, pool } = setup();
    authority.watch(LDS_TYPE_URL, 'l1', recordingWatcher());
    expect(pool.live(P).capMs).toBe(120_000);
    pool.live(P).fail();
    expect(pool.live(P).capMs).toBe(5000);
    expect(pool.live(S).capMs).toBe(120_000);
    pool.live(P).respond(LDS_TYPE_URL, { l1: 'v' });
    expect(pool.live(P).capMs).toBe(120_000);
    authority.close();
  });
});
