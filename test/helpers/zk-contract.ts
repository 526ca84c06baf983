/**
 * The ZooKeeper semantics the in-memory fake promises, as one table of cases run twice: against the
 * fake in the unit project (test/unit/zk/in-memory-zk.test.ts) and against a real ZooKeeper through
 * ZkSession in the integration project (test/integration/zk/in-memory-zk.parity.test.ts). A case that
 * passes on one and fails on the other is a place where the fake lies.
 *
 * Cases compare stats relative to each other (zxids differ between the two), and wait for each watch
 * delivery before the next change where the real server's timing would otherwise decide what is seen.
 *
 * lib/zk has no default ACL: cases about other semantics play an unconstrained writer and pass
 * `OPEN_ACL` explicitly; the ACL cases pass the ACL they are about.
 */
import { OPEN_ACL, readableByAllWritableBy, type AclEntry, type DigestCredential, type SessionEvent, type ZkAclAccess, type ZkReader, type ZkWatcher, type ZkWriter } from '../../lib/zk';

/** What the contract needs of a session: the three ports plus ZkSession's event subscription. */
export type ContractSession = ZkReader & ZkWriter & ZkWatcher & ZkAclAccess & { on(listener: (event: SessionEvent) => void): () => void };

/** How a run reaches its ZooKeeper (real or fake). */
export interface ZkHarness {
  /** A fresh, empty, existing parent for the case's nodes. */
  readonly base: string;
  /** Opens (and, for cleanup, tracks) a connected session. */
  open(options?: { credentials?: readonly DigestCredential[] }): Promise<ContractSession>;
  /** Expires `session` on the server; resolves once a new session connected (`reset` emitted). */
  expire(session: ContractSession): Promise<void>;
}

/** One contract case. */
export interface ContractCase {
  readonly name: string;
  run(h: ZkHarness): Promise<void>;
}

const WRITER: DigestCredential = { user: 'contract-writer', password: 'w-secret' };

function buf(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** Polls `predicate` every few milliseconds until true; fails after `timeoutMs`. */
export async function eventually(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The contract, one behaviour per case. */
export const ZK_CONTRACT: readonly ContractCase[] = [
  {
    name: 'a created node starts at version 0 with czxid = mzxid = pzxid and no owner',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/a`, buf('hello'), { acl: OPEN_ACL });
      const { data, stat } = await s.get(`${base}/a`);
      expect(data.toString()).toBe('hello');
      expect(stat).toMatchObject({ version: 0, cversion: 0, dataLength: 5, numChildren: 0, ephemeralOwner: 0n });
      expect(stat.mzxid).toBe(stat.czxid);
      expect(stat.pzxid).toBe(stat.czxid);
    },
  },
  {
    name: 'set bumps version and mzxid, keeps czxid, and leaves the parent stat alone',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/a`, buf('1'), { acl: OPEN_ACL });
      const parentBefore = await s.exists(base);
      const before = (await s.get(`${base}/a`)).stat;
      const returned = await s.set(`${base}/a`, buf('22'), 0);
      const after = (await s.get(`${base}/a`)).stat;
      expect(returned).toEqual(after);
      expect(after).toMatchObject({ version: 1, czxid: before.czxid, dataLength: 2 });
      expect(after.mzxid > before.mzxid).toBe(true);
      expect(await s.exists(base)).toEqual(parentBefore);
    },
  },
  {
    name: 'a child create and delete each bump the parent cversion and move its pzxid',
    async run({ base, open }) {
      const s = await open();
      const p0 = (await s.children(base)).stat;
      await s.create(`${base}/c`, undefined, { acl: OPEN_ACL });
      const child = (await s.get(`${base}/c`)).stat;
      const p1 = (await s.children(base)).stat;
      expect(p1).toMatchObject({ cversion: p0.cversion + 1, numChildren: 1, pzxid: child.czxid, version: p0.version, mzxid: p0.mzxid });
      await s.remove(`${base}/c`);
      const p2 = (await s.children(base)).stat;
      expect(p2).toMatchObject({ cversion: p0.cversion + 2, numChildren: 0 });
      expect(p2.pzxid > p1.pzxid).toBe(true);
    },
  },
  {
    name: 'reads of an absent node: get and children reject noNode with the path, exists is undefined, read is absent',
    async run({ base, open }) {
      const s = await open();
      const path = `${base}/none`;
      await expect(s.get(path)).rejects.toMatchObject({ name: 'ZkError', kind: 'noNode', path });
      await expect(s.children(path)).rejects.toMatchObject({ name: 'ZkError', kind: 'noNode', path });
      expect(await s.exists(path)).toBeUndefined();
      expect(await s.read(path)).toEqual({ exists: false });
    },
  },
  {
    name: 'create rejects nodeExists for an existing node and noNode for a missing parent unless parents is set',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/x`, undefined, { acl: OPEN_ACL });
      await expect(s.create(`${base}/x`, undefined, { acl: OPEN_ACL })).rejects.toMatchObject({ kind: 'nodeExists', path: `${base}/x` });
      await expect(s.create(`${base}/p/q/r`, undefined, { acl: OPEN_ACL })).rejects.toMatchObject({ kind: 'noNode', path: `${base}/p/q/r` });
      expect(await s.create(`${base}/p/q/r`, buf('deep'), { parents: true, acl: OPEN_ACL })).toBe(`${base}/p/q/r`);
      expect((await s.get(`${base}/p/q/r`)).data.toString()).toBe('deep');
    },
  },
  {
    name: 'set and remove compare and set on the data version (version 0 included); -1 matches any',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/v`, buf('0'), { acl: OPEN_ACL });
      await expect(s.set(`${base}/v`, buf('x'), 1)).rejects.toMatchObject({ kind: 'badVersion', path: `${base}/v` });
      await s.set(`${base}/v`, buf('1'), 0);
      await expect(s.set(`${base}/v`, buf('x'), 0)).rejects.toMatchObject({ kind: 'badVersion' });
      await s.set(`${base}/v`, buf('2'));
      await expect(s.remove(`${base}/v`, 1)).rejects.toMatchObject({ kind: 'badVersion' });
      await s.remove(`${base}/v`, 2);
      await expect(s.set(`${base}/v`, buf('x'))).rejects.toMatchObject({ kind: 'noNode' });
      await expect(s.remove(`${base}/v`)).rejects.toMatchObject({ kind: 'noNode' });
    },
  },
  {
    name: 'remove of a node with children rejects notEmpty',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/d/e`, undefined, { parents: true, acl: OPEN_ACL });
      await expect(s.remove(`${base}/d`)).rejects.toMatchObject({ kind: 'notEmpty', path: `${base}/d` });
    },
  },
  {
    name: "sequential names end in the parent's cversion, 10 digits",
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/plain`, undefined, { acl: OPEN_ACL });
      const first = await s.create(`${base}/seq-`, undefined, { mode: 'persistentSequential', acl: OPEN_ACL });
      const second = await s.create(`${base}/seq-`, undefined, { mode: 'ephemeralSequential', acl: OPEN_ACL });
      expect(first).toBe(`${base}/seq-0000000001`);
      expect(second).toBe(`${base}/seq-0000000002`);
      expect((await s.children(base)).children).toEqual(['plain', 'seq-0000000001', 'seq-0000000002']);
    },
  },
  {
    name: 'an ephemeral node carries its owner and can have no children',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/eph`, undefined, { mode: 'ephemeral', acl: OPEN_ACL });
      expect((await s.exists(`${base}/eph`))?.ephemeralOwner).not.toBe(0n);
      await expect(s.create(`${base}/eph/child`, undefined, { acl: OPEN_ACL })).rejects.toMatchObject({ kind: 'noChildrenForEphemerals' });
    },
  },
  {
    name: 'ensurePath creates what is missing and keeps what exists',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/keep`, buf('kept'), { acl: OPEN_ACL });
      await s.ensurePath(`${base}/keep/a/b`, OPEN_ACL);
      expect((await s.get(`${base}/keep`)).data.toString()).toBe('kept');
      expect(await s.exists(`${base}/keep/a/b`)).toMatchObject({ version: 0, dataLength: 0 });
      await s.ensurePath(`${base}/keep/a/b`, OPEN_ACL);
    },
  },
  {
    name: 'a multi applies all ops in one transaction and resolves created paths by index',
    async run({ base, open }) {
      const s = await open();
      await s.create(`${base}/m`, buf('0'), { acl: OPEN_ACL });
      const result = await s.multi([
        { op: 'check', path: `${base}/m`, version: 0 },
        { op: 'set', path: `${base}/m`, data: buf('1'), version: 0 },
        { op: 'create', path: `${base}/m/child`, data: buf('c'), acl: OPEN_ACL },
        { op: 'create', path: `${base}/q-`, mode: 'persistentSequential', acl: OPEN_ACL },
      ]);
      expect(result).toEqual([undefined, undefined, `${base}/m/child`, expect.stringMatching(/\/q-\d{10}$/)]);
      const m = (await s.get(`${base}/m`)).stat;
      const child = (await s.get(`${base}/m/child`)).stat;
      expect(m.version).toBe(1);
      expect(child.czxid).toBe(m.mzxid);
      expect(m.pzxid).toBe(m.mzxid);
    },
  },
  {
    name: 'ops of a multi see the earlier ops (create then write under it, delete children then parent)',
    async run({ base, open }) {
      const s = await open();
      await s.multi([
        { op: 'create', path: `${base}/n`, acl: OPEN_ACL },
        { op: 'create', path: `${base}/n/k`, data: buf('k'), acl: OPEN_ACL },
        { op: 'set', path: `${base}/n/k`, data: buf('k2'), version: 0 },
        { op: 'check', path: `${base}/n/k`, version: 1 },
      ]);
      expect((await s.get(`${base}/n/k`)).data.toString()).toBe('k2');
      await s.multi([
        { op: 'remove', path: `${base}/n/k`, version: 1 },
        { op: 'remove', path: `${base}/n`, version: 0 },
      ]);
      expect(await s.exists(`${base}/n`)).toBeUndefined();
    },
  },
  ...(
    [
      ['badVersion at a check', (b: string) => [{ op: 'create', path: `${b}/new`, acl: OPEN_ACL }, { op: 'check', path: `${b}/m`, version: 7 }], 1, 'badVersion', 'm'],
      ['noNode at a check', (b: string) => [{ op: 'create', path: `${b}/new`, acl: OPEN_ACL }, { op: 'check', path: `${b}/gone`, version: -1 }], 1, 'noNode', 'gone'],
      ['nodeExists at the last create', (b: string) => [{ op: 'set', path: `${b}/m`, data: buf('x'), version: 0 }, { op: 'create', path: `${b}/m`, acl: OPEN_ACL }], 1, 'nodeExists', 'm'],
      ['noNode at a create under a missing parent', (b: string) => [{ op: 'create', path: `${b}/new`, acl: OPEN_ACL }, { op: 'create', path: `${b}/nope/x`, acl: OPEN_ACL }], 1, 'noNode', 'nope/x'],
      ['notEmpty at a remove', (b: string) => [{ op: 'create', path: `${b}/m/kid`, acl: OPEN_ACL }, { op: 'remove', path: `${b}/m`, version: -1 }], 1, 'notEmpty', 'm'],
      ['badVersion at a version-0 set of a node at version 1', (b: string) => [{ op: 'set', path: `${b}/m1`, data: buf('x'), version: 0 }, { op: 'create', path: `${b}/new`, acl: OPEN_ACL }], 0, 'badVersion', 'm1'],
    ] as const
  ).map(
    ([what, ops, index, kind, node]): ContractCase => ({
      name: `a failing multi (${what}) changes nothing and names the failing op`,
      async run({ base, open }) {
        const s = await open();
        await s.create(`${base}/m`, buf('0'), { acl: OPEN_ACL });
        await s.create(`${base}/m1`, buf('0'), { acl: OPEN_ACL });
        await s.set(`${base}/m1`, buf('1'));
        const before = await s.children(base);
        await expect(s.multi(ops(base) as Parameters<ContractSession['multi']>[0])).rejects.toMatchObject({
          name: 'ZkError',
          kind,
          opIndex: index,
          path: `${base}/${node}`,
        });
        expect(await s.children(base)).toEqual(before);
        expect((await s.get(`${base}/m`)).stat.version).toBe(0);
      },
    }),
  ),
  {
    name: 'without the digest credential a node readable by all is read but not written (noAuth), in a multi too',
    async run({ base, open }) {
      const writer = await open({ credentials: [WRITER] });
      const stranger = await open();
      const path = `${base}/guarded`;
      await writer.create(path, buf('g'), { acl: readableByAllWritableBy([WRITER]) });
      expect((await stranger.get(path)).data.toString()).toBe('g');
      await expect(stranger.set(path, buf('x'))).rejects.toMatchObject({ kind: 'noAuth', path });
      await expect(stranger.create(`${path}/child`, undefined, { acl: OPEN_ACL })).rejects.toMatchObject({ kind: 'noAuth' });
      await expect(
        stranger.multi([
          { op: 'create', path: `${base}/free`, acl: OPEN_ACL },
          { op: 'set', path, data: buf('x'), version: 0 },
        ]),
      ).rejects.toMatchObject({ kind: 'noAuth', opIndex: 1, path });
      expect(await stranger.exists(`${base}/free`)).toBeUndefined();
      await writer.set(path, buf('w'), 0);
    },
  },
  {
    name: "the auth scheme becomes the creator's identity: others see the node exist but get noAuth reading it",
    async run({ base, open }) {
      const owner = await open({ credentials: [WRITER] });
      const stranger = await open();
      const path = `${base}/private`;
      await owner.create(path, buf('p'), { acl: [{ perms: ['read', 'write', 'create', 'delete', 'admin'], scheme: 'auth', id: '' }] });
      expect(await stranger.exists(path)).toMatchObject({ version: 0 });
      await expect(stranger.get(path)).rejects.toMatchObject({ kind: 'noAuth', path });
      await expect(stranger.children(path)).rejects.toMatchObject({ kind: 'noAuth', path });
      expect((await owner.get(path)).data.toString()).toBe('p');
    },
  },
  {
    name: 'a create without an ACL, or with an empty one, is refused before it is sent: there is no default ACL',
    async run({ base, open }) {
      const s = await open();
      // What an untyped (JavaScript) caller can still do: the types require `acl`.
      const untyped = s as unknown as { create(path: string, data?: Buffer, options?: object): Promise<string>; ensurePath(path: string): Promise<void> };
      await expect(untyped.create(`${base}/no-acl`)).rejects.toMatchObject({ name: 'ZkError', kind: 'invalidAcl', path: `${base}/no-acl` });
      await expect(untyped.create(`${base}/no-acl`, undefined, { mode: 'ephemeral' })).rejects.toMatchObject({ kind: 'invalidAcl' });
      await expect(untyped.ensurePath(`${base}/no-acl/deeper`)).rejects.toMatchObject({ kind: 'invalidAcl' });
      await expect(s.create(`${base}/no-acl`, undefined, { acl: [] })).rejects.toMatchObject({ name: 'ZkError', kind: 'invalidAcl' });
      await expect(s.multi([{ op: 'create', path: `${base}/no-acl`, acl: [] }])).rejects.toMatchObject({ kind: 'invalidAcl' });
      await expect(s.multi([{ op: 'create', path: `${base}/no-acl` } as unknown as Parameters<ContractSession['multi']>[0][number]])).rejects.toMatchObject({ kind: 'invalidAcl' });
      expect(await s.exists(`${base}/no-acl`)).toBeUndefined();
    },
  },
  {
    name: 'a policy ACL gives each missing parent its own ACL (create with parents, ensurePath)',
    async run({ base, open }) {
      const s = await open({ credentials: [WRITER] });
      const aclOf = (path: string): AclEntry[] => (path.endsWith('/leaf') ? [{ perms: ['read'], scheme: 'world', id: 'anyone' }] : readableByAllWritableBy([WRITER]));
      await s.create(`${base}/p1/p2/leaf`, buf('x'), { parents: true, acl: aclOf });
      expect((await s.getAcl(`${base}/p1`)).acl).toEqual(readableByAllWritableBy([WRITER]));
      expect((await s.getAcl(`${base}/p1/p2/leaf`)).acl).toEqual([{ perms: ['read'], scheme: 'world', id: 'anyone' }]);
      await s.ensurePath(`${base}/p1/p2/q/leaf`, aclOf);
      expect((await s.getAcl(`${base}/p1/p2/q`)).acl).toEqual(readableByAllWritableBy([WRITER]));
    },
  },
  {
    name: 'getAcl reads the ACL and its version (digest hashes hidden from callers without ADMIN); setAcl needs ADMIN, checks the ACL version, and leaves data and version alone',
    async run({ base, open }) {
      const owner = await open({ credentials: [WRITER] });
      const stranger = await open();
      const path = `${base}/acl`;
      await owner.create(path, buf('d'), { acl: readableByAllWritableBy([WRITER]) });
      const first = await owner.getAcl(path);
      expect(first.acl).toEqual(readableByAllWritableBy([WRITER]));
      expect(first.stat).toMatchObject({ aversion: 0, version: 0 });
      expect((await stranger.getAcl(path)).acl).toEqual([first.acl[0], { ...first.acl[1], id: `${WRITER.user}:x` }]);
      await expect(stranger.setAcl(path, OPEN_ACL, 0)).rejects.toMatchObject({ name: 'ZkError', kind: 'noAuth', path });
      await expect(owner.setAcl(path, OPEN_ACL, 1)).rejects.toMatchObject({ kind: 'badVersion', path });
      const adminOnly: AclEntry[] = [
        { perms: ['read'], scheme: 'world', id: 'anyone' },
        { perms: ['read', 'admin'], scheme: 'digest', id: first.acl[1]!.id },
      ];
      const stat = await owner.setAcl(path, adminOnly, 0);
      expect(stat).toMatchObject({ aversion: 1, version: 0, mzxid: first.stat.mzxid });
      expect(await owner.getAcl(path)).toMatchObject({ acl: adminOnly, stat: { aversion: 1 } });
      expect((await stranger.get(path)).data.toString()).toBe('d');
      await expect(owner.set(path, buf('x'))).rejects.toMatchObject({ kind: 'noAuth' });
      await expect(stranger.getAcl(`${base}/missing`)).rejects.toMatchObject({ kind: 'noNode' });
    },
  },
  {
    name: 'getAcl of a node its caller may neither read nor administer is noAuth',
    async run({ base, open }) {
      const owner = await open({ credentials: [WRITER] });
      const stranger = await open();
      const path = `${base}/sealed`;
      await owner.create(path, buf('s'), { acl: [{ perms: ['write'], scheme: 'auth', id: '' }] });
      await expect(stranger.getAcl(path)).rejects.toMatchObject({ kind: 'noAuth', path });
    },
  },
  {
    name: 'a data watch hears absent, created, changed and deleted, each once and in order',
    async run({ base, open }) {
      const s = await open();
      const path = `${base}/w`;
      const seen: string[] = [];
      const watch = s.watchData(path, (st) => seen.push(st.exists ? `data:${st.data.toString()}@${st.stat.version}` : 'absent'));
      await watch.ready;
      await s.create(path, buf('a'), { acl: OPEN_ACL });
      await eventually(() => seen.length === 2, 5000, 'created');
      await s.set(path, buf('b'));
      await eventually(() => seen.length === 3, 5000, 'changed');
      await s.remove(path);
      await eventually(() => seen.length === 4, 5000, 'deleted');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).toEqual(['absent', 'data:a@0', 'data:b@1', 'absent']);
      watch.close();
    },
  },
  {
    name: 'a data or children watch on a node the session may not read tells onUnreadable (noAuth) and delivers nothing',
    async run({ base, open }) {
      const owner = await open({ credentials: [WRITER] });
      const stranger = await open();
      const path = `${base}/private`;
      await owner.create(path, buf('p'), { acl: [{ perms: ['read', 'write', 'create', 'delete', 'admin'], scheme: 'auth', id: '' }] });
      const seen: string[] = [];
      const heard: { kind: unknown }[] = [];
      const data = stranger.watchData(path, () => seen.push('data'), (err) => heard.push(err as unknown as { kind: unknown }));
      const children = stranger.watchChildren(path, () => seen.push('children'), (err) => heard.push(err as unknown as { kind: unknown }));
      await eventually(() => heard.length === 2, 5000, 'both told');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).toEqual([]);
      expect(heard.map((e) => e.kind)).toEqual(['noAuth', 'noAuth']);
      data.close();
      children.close();
    },
  },
  {
    name: 'a data watch never delivers synchronously, ends on the latest of a burst and never goes backwards',
    async run({ base, open }) {
      const s = await open();
      const path = `${base}/burst`;
      await s.create(path, buf('0'), { acl: OPEN_ACL });
      const versions: number[] = [];
      const watch = s.watchData(path, (st) => {
        if (st.exists) versions.push(st.stat.version);
      });
      expect(versions).toEqual([]);
      await watch.ready;
      await Promise.all(Array.from({ length: 20 }, (_, i) => s.set(path, buf(String(i + 1)))));
      await eventually(() => versions.at(-1) === 20, 5000, 'last write');
      for (let i = 1; i < versions.length; i++) expect(versions[i]!).toBeGreaterThan(versions[i - 1]!);
      watch.close();
    },
  },
  {
    name: 'a children watch hears the sorted list as children come and go, and the parent vanishing',
    async run({ base, open }) {
      const s = await open();
      const dir = `${base}/dir`;
      const seen: string[] = [];
      const watch = s.watchChildren(dir, (st) => seen.push(st.exists ? st.children.join(',') || '(empty)' : 'absent'));
      await watch.ready;
      await s.create(dir, undefined, { acl: OPEN_ACL });
      await eventually(() => seen.length === 2, 5000, 'parent created');
      await s.create(`${dir}/b`, undefined, { acl: OPEN_ACL });
      await eventually(() => seen.length === 3, 5000, 'b');
      await s.create(`${dir}/a`, undefined, { acl: OPEN_ACL });
      await eventually(() => seen.length === 4, 5000, 'a');
      await s.set(dir, buf('data does not move children'));
      await s.remove(`${dir}/b`);
      await eventually(() => seen.length === 5, 5000, 'b gone');
      await s.remove(`${dir}/a`);
      await s.remove(dir);
      await eventually(() => seen.at(-1) === 'absent', 5000, 'parent gone');
      expect(seen.slice(0, 5)).toEqual(['absent', '(empty)', 'b', 'a,b', 'a']);
      watch.close();
    },
  },
  {
    name: 'expiry deletes the session ephemerals, emits reset, and watches catch up with changes made meanwhile',
    async run({ base, open, expire }) {
      const s = await open();
      const other = await open();
      const events: SessionEvent[] = [];
      s.on((e) => events.push(e));
      await s.create(`${base}/mine`, undefined, { mode: 'ephemeral', acl: OPEN_ACL });
      await s.create(`${base}/watched`, buf('before'), { acl: OPEN_ACL });
      const seen: string[] = [];
      const watch = s.watchData(`${base}/watched`, (st) => seen.push(st.exists ? st.data.toString() : 'absent'));
      await watch.ready;
      await expire(s);
      expect(events).toContain('reset');
      expect(events.indexOf('connected')).toBeLessThan(events.indexOf('reset'));
      expect(await other.exists(`${base}/mine`)).toBeUndefined();
      await other.set(`${base}/watched`, buf('after'));
      await eventually(() => seen.at(-1) === 'after', 5000, 'change after expiry');
      expect(seen).toEqual(['before', 'after']);
      watch.close();
    },
  },
];
