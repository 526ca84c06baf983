/**
 * The in-memory ZooKeeper (test/helpers/in-memory-zk) against the semantics it promises: the shared
 * contract (the same table runs against a real server in test/integration/zk/in-memory-zk.parity),
 * then what only the fake has: fault hooks, connection states, and deterministic coalescing.
 */
import { OPEN_ACL, ZkError, type DataState, type SessionEvent, type ZkErrorKind } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession, type WireOp } from '../../helpers/in-memory-zk';
import { ZK_CONTRACT, type ContractCase, type ContractSession } from '../../helpers/zk-contract';

const BASE = '/contract';
const W = { user: 'w', password: 'pw' };

let zk: InMemoryZk;
let sessions: InMemoryZkSession[];

function open(options: Parameters<InMemoryZk['session']>[0] = {}): InMemoryZkSession {
  const session = zk.session(options);
  sessions.push(session);
  return session;
}

/** Records every state a data watch delivers, as `absent` or `<data>@<version>`. */
function recordData(session: InMemoryZkSession, path: string): { seen: string[]; close(): void } {
  const seen: string[] = [];
  const watch = session.watchData(path, (s: DataState) => seen.push(s.exists ? `${s.data.toString()}@${s.stat.version}` : 'absent'));
  return { seen, close: () => watch.close() };
}

beforeEach(async () => {
  zk = new InMemoryZk({ clock: () => 1_000 });
  sessions = [];
  await zk.session().create(BASE, undefined, { acl: OPEN_ACL });
});

afterEach(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

describe('InMemoryZk keeps the ZooKeeper contract', () => {
  it.each(ZK_CONTRACT.map((c): [string, ContractCase] => [c.name, c]))('%s', async (_name, contract) => {
    const byContract = new Map<ContractSession, InMemoryZkSession>();
    await contract.run({
      base: BASE,
      open: async (options) => {
        const session = open(options?.credentials ? { credentials: options.credentials } : {});
        byContract.set(session, session);
        return session;
      },
      expire: async (session) => {
        const fake = byContract.get(session);
        if (!fake) throw new Error('not a session of this harness');
        await fake.expire();
      },
    });
  });
});

describe('InMemoryZk stats and ACLs', () => {
  it('stamps mtime from the server clock and gives every transaction one new zxid', async () => {
    const s = open();
    const before = zk.tree.lastZxid;
    await s.create(`${BASE}/t`, Buffer.from('x'), { acl: OPEN_ACL });
    await s.multi([
      { op: 'set', path: `${BASE}/t`, data: Buffer.from('y'), version: 0 },
      { op: 'create', path: `${BASE}/u`, acl: OPEN_ACL },
    ]);
    expect(zk.tree.lastZxid).toBe(before + 2n);
    expect((await s.get(`${BASE}/t`)).stat).toMatchObject({ mtime: 1_000, mzxid: before + 2n, czxid: before + 1n });
  });

  it.each([
    ['the auth scheme without credentials', [{ perms: ['read'], scheme: 'auth', id: '' }], {}],
    ['a digest id without a hash', [{ perms: ['read'], scheme: 'digest', id: 'nohash' }], { credentials: [W] }],
  ] as const)('rejects a create with %s as invalidAcl', async (_what, acl, options) => {
    const s = open(options);
    await expect(s.create(`${BASE}/bad`, undefined, { acl })).rejects.toMatchObject({ kind: 'invalidAcl' });
    expect(await s.exists(`${BASE}/bad`)).toBeUndefined();
  });

  it('turns the auth scheme into the creator digest identity, which only that credential passes', async () => {
    const owner = open({ credentials: [W] });
    const stranger = open();
    await owner.create(`${BASE}/mine`, Buffer.from('m'), { acl: [{ perms: ['read', 'write'], scheme: 'auth', id: '' }] });
    await expect(stranger.get(`${BASE}/mine`)).rejects.toMatchObject({ kind: 'noAuth', code: -102 });
    expect(await stranger.exists(`${BASE}/mine`)).toMatchObject({ version: 0 });
    await owner.set(`${BASE}/mine`, Buffer.from('n'));
  });

  it('rejects a malformed path the way node-zookeeper-client does (an assertion, not a ZkError)', async () => {
    const s = open();
    const error = await s.get('relative/path').catch((e: unknown) => e);
    // node:assert's AssertionError comes from another realm under jest, so match its shape, not its class.
    expect(error).toMatchObject({ name: 'AssertionError', message: 'Node path must start with / character.' });
    expect(error).not.toBeInstanceOf(ZkError);
  });
});

describe('InMemoryZk fault hooks', () => {
  const OPS: [WireOp, (s: InMemoryZkSession) => Promise<unknown>, string | undefined][] = [
    ['getData', (s) => s.get(`${BASE}/f`), `${BASE}/f`],
    ['exists', (s) => s.exists(`${BASE}/f`), `${BASE}/f`],
    ['getChildren', (s) => s.children(`${BASE}/f`), `${BASE}/f`],
    ['create', (s) => s.create(`${BASE}/g`, undefined, { acl: OPEN_ACL }), `${BASE}/g`],
    ['setData', (s) => s.set(`${BASE}/f`, Buffer.from('x')), `${BASE}/f`],
    ['remove', (s) => s.remove(`${BASE}/f`), `${BASE}/f`],
    ['getACL', (s) => s.getAcl(`${BASE}/f`), `${BASE}/f`],
    ['setACL', (s) => s.setAcl(`${BASE}/f`, OPEN_ACL), `${BASE}/f`],
    // A lost multi comes back without per-op results: lib/zk's error then has no path.
    ['multi', (s) => s.multi([{ op: 'check', path: `${BASE}/f`, version: -1 }]), undefined],
  ];
  const KINDS: [ZkErrorKind, number | undefined][] = [
    ['connectionLoss', -4],
    ['sessionExpired', -112],
    ['timeout', -7],
    ['noAuth', -102],
    ['closed', undefined],
  ];
  const CASES = OPS.flatMap(([op, call, path]) => KINDS.map(([kind, code]) => [op, kind, code, call, path] as const));

  it.each(CASES)('fails the next %s with %s (code %s) and lets the one after through', async (op, kind, code, call, path) => {
    const s = open();
    await s.create(`${BASE}/f`, undefined, { acl: OPEN_ACL });
    s.failNext(kind, { op });
    await expect(call(s)).rejects.toMatchObject({ name: 'ZkError', kind, code, path });
    await call(s);
  });

  it('applies a write and then loses its reply with afterApply (an ambiguous outcome)', async () => {
    const s = open();
    await s.create(`${BASE}/a`, Buffer.from('0'), { acl: OPEN_ACL });
    s.failNext('connectionLoss', { op: 'setData', afterApply: true });
    await expect(s.set(`${BASE}/a`, Buffer.from('1'), 0)).rejects.toMatchObject({ kind: 'connectionLoss' });
    expect((await s.get(`${BASE}/a`)).stat.version).toBe(1);
  });

  it('reports an injected multi failure at opIndex with that op path and applies nothing', async () => {
    const s = open();
    s.failNext('noAuth', { op: 'multi', opIndex: 1 });
    await expect(
      s.multi([
        { op: 'create', path: `${BASE}/x`, acl: OPEN_ACL },
        { op: 'create', path: `${BASE}/y`, acl: OPEN_ACL },
      ]),
    ).rejects.toMatchObject({ kind: 'noAuth', opIndex: 1, path: `${BASE}/y`, code: -102 });
    expect(zk.tree.paths()).toEqual([BASE]);
  });

  it('runs a concurrent writer before the request with beforeNext, so a CAS write meets badVersion', async () => {
    const s = open();
    const other = open();
    await s.create(`${BASE}/c`, Buffer.from('0'), { acl: OPEN_ACL });
    s.beforeNext({ op: 'setData', path: `${BASE}/c` }, () => other.set(`${BASE}/c`, Buffer.from('theirs')).then(() => undefined));
    await expect(s.set(`${BASE}/c`, Buffer.from('mine'), 0)).rejects.toMatchObject({ kind: 'badVersion' });
    expect((await s.get(`${BASE}/c`)).data.toString()).toBe('theirs');
  });

  it('matches faults by path (string or RegExp) and source, and keeps hitting with times until removed', async () => {
    const s = open();
    await s.create(`${BASE}/p`, undefined, { acl: OPEN_ACL });
    const remove = s.failNext('timeout', { path: /\/p$/, source: 'call', times: Infinity });
    await expect(s.exists(`${BASE}/p`)).rejects.toMatchObject({ kind: 'timeout' });
    await expect(s.get(`${BASE}/p`)).rejects.toMatchObject({ kind: 'timeout' });
    expect(await s.exists(BASE)).toBeDefined();
    remove();
    expect(await s.exists(`${BASE}/p`)).toBeDefined();
  });

  it('logs every request with its source, watch re-reads included', async () => {
    const s = open();
    const watch = s.watchData(`${BASE}/logged`, () => undefined);
    await watch.ready;
    await s.read(`${BASE}/logged`);
    // The watch's getData finds no node, so it arms an existence watch.
    expect(s.requests).toEqual([
      { op: 'getData', paths: [`${BASE}/logged`], source: 'watch' },
      { op: 'exists', paths: [`${BASE}/logged`], source: 'watch' },
      { op: 'getData', paths: [`${BASE}/logged`], source: 'call' },
    ]);
    watch.close();
  });

  it('records a watch read refused for want of READ permission and delivers nothing', async () => {
    const owner = open({ credentials: [W] });
    await owner.create(`${BASE}/secret`, Buffer.from('s'), { acl: [{ perms: ['read', 'write', 'create', 'delete', 'admin'], scheme: 'auth', id: '' }] });
    const stranger = open();
    const { seen, close } = recordData(stranger, `${BASE}/secret`);
    await zk.idle();
    expect(seen).toEqual([]);
    expect(zk.watchErrors).toEqual([{ path: `${BASE}/secret`, error: expect.objectContaining({ kind: 'noAuth' }) }]);
    close();
  });
});

describe('InMemoryZk watch delivery', () => {
  it('delivers changes made in one turn of the event loop as one delivery of the latest state', async () => {
    const s = open();
    await s.create(`${BASE}/w`, Buffer.from('0'), { acl: OPEN_ACL });
    const { seen, close } = recordData(s, `${BASE}/w`);
    await zk.idle();
    await s.set(`${BASE}/w`, Buffer.from('1'));
    await s.set(`${BASE}/w`, Buffer.from('2'));
    await s.set(`${BASE}/w`, Buffer.from('3'));
    expect(seen).toEqual(['0@0']);
    await zk.idle();
    expect(seen).toEqual(['0@0', '3@3']);
    close();
  });

  it('delivers nothing after close, even for a change already under way', async () => {
    const s = open();
    const { seen, close } = recordData(s, `${BASE}/late`);
    await zk.idle();
    await s.create(`${BASE}/late`, Buffer.from('x'), { acl: OPEN_ACL });
    close();
    await zk.idle();
    expect(seen).toEqual(['absent']);
    expect(s.watchCount).toBe(0);
  });

  it('retries a watch read that failed transiently on the next connected event', async () => {
    const s = open();
    await s.create(`${BASE}/r`, Buffer.from('0'), { acl: OPEN_ACL });
    const { seen, close } = recordData(s, `${BASE}/r`);
    await zk.idle();
    s.failNext('connectionLoss', { source: 'watch' });
    await s.set(`${BASE}/r`, Buffer.from('1'));
    await zk.idle();
    expect(seen).toEqual(['0@0']);
    s.disconnect();
    s.reconnect();
    await zk.idle();
    expect(seen).toEqual(['0@0', '1@1']);
    close();
  });
});

describe('InMemoryZk connection states', () => {
  it('fails requests with connectionLoss while suspended and resumes the same session on reconnect (no reset)', async () => {
    const s = open();
    const events: SessionEvent[] = [];
    s.on((e) => events.push(e));
    const id = s.sessionId;
    s.disconnect();
    await expect(s.exists(BASE)).rejects.toMatchObject({ kind: 'connectionLoss', transient: true });
    s.reconnect();
    expect(await s.exists(BASE)).toBeDefined();
    expect(events).toEqual(['suspended', 'connected']);
    expect(s.sessionId).toBe(id);
  });

  it('skips a session listener that throws, as ZkSession does: the others still hear every event', () => {
    const s = open();
    const events: SessionEvent[] = [];
    s.on(() => {
      throw new Error('listener bug');
    });
    s.on((e) => events.push(e));
    s.disconnect();
    s.reconnect();
    expect(events).toEqual(['suspended', 'connected']);
    expect(s.listenerErrors).toHaveLength(2);
  });

  it('lets a request wait up to connectWaitMs for the connection to come back', async () => {
    const s = open({ connectWaitMs: 1_000 });
    s.disconnect();
    const pending = s.exists(BASE);
    setImmediate(() => s.reconnect());
    expect(await pending).toBeDefined();
  });

  it.each(['expired', 'lost'] as const)('after %s without reconnect: requests fail, ephemerals are gone; reconnect is a new session with reset', async (reason) => {
    const s = open();
    const other = open();
    const events: SessionEvent[] = [];
    s.on((e) => events.push(e));
    await s.create(`${BASE}/eph`, undefined, { mode: 'ephemeral', acl: OPEN_ACL });
    const id = s.sessionId;
    await s.expire({ reason, reconnect: false });
    expect(s.state).toBe(reason);
    await expect(s.get(BASE)).rejects.toMatchObject({ kind: 'connectionLoss' });
    expect(await other.exists(`${BASE}/eph`)).toBeUndefined();
    s.reconnect();
    expect(events).toEqual([reason, 'connected', 'reset']);
    expect(s.sessionId).not.toBe(id);
    expect(s.sessionGeneration).toBe(2);
  });

  it('after close: requests fail with closed, watches are closed, ephemerals are gone', async () => {
    const s = open();
    const other = open();
    await s.create(`${BASE}/eph`, undefined, { mode: 'ephemeral', acl: OPEN_ACL });
    const watch = s.watchChildren(BASE, () => undefined);
    await s.close();
    await expect(s.get(BASE)).rejects.toMatchObject({ kind: 'closed' });
    expect(watch.lifecycle).toBe('closed');
    expect(await other.exists(`${BASE}/eph`)).toBeUndefined();
  });

  it('changes an ACL in a transaction of its own that fires no watch, as ZooKeeper does', async () => {
    const s = open();
    await s.create(`${BASE}/acl`, Buffer.from('a'), { acl: OPEN_ACL });
    const seen = recordData(s, `${BASE}/acl`);
    await zk.idle();
    const before = zk.tree.lastZxid;

    await s.setAcl(`${BASE}/acl`, [{ perms: ['read'], scheme: 'world', id: 'anyone' }]);
    await zk.idle();

    expect(zk.tree.lastZxid).toBe(before + 1n);
    expect(seen.seen).toEqual(['a@0']);
    expect(s.requests.at(-1)).toEqual({ op: 'setACL', paths: [`${BASE}/acl`], source: 'call' });
    seen.close();
  });
});
