import { batchPlans, planNode, planUris } from '../../../lib/bridge/diff';
import type { EntityTarget, UrisView } from '../../../lib/bridge/model';
import { aclFor, policyAcl } from '../../../lib/requests/acl';
import { digestId, type MultiOp } from '../../../lib/zk';

/** The bridge's ACL policy, as it runs with a credential and the request writer's identity. */
const ROLES = { bridge: [digestId('bridge', 'b')], requestWriter: [digestId('writer', 'w')] };
const ACL = policyAcl(ROLES);

const DIR = '/d2/uris/c1';

function uris(children: Record<string, string>): EntityTarget {
  return { kind: 'uris', children: new Map(Object.entries(children)) };
}

function view(children: Record<string, [string, number]>, parentExists = true): UrisView {
  return { parentExists, children: new Map(Object.entries(children).map(([n, [data, version]]) => [n, { data, version }])) };
}

function summary(ops: readonly MultiOp[]): string[] {
  return ops.map((o) => `${o.op} ${o.path}${'version' in o ? `@${o.version}` : ''}`);
}

describe('bridge diff: URI children', () => {
  it('creates the directory and every child on the first sync', () => {
    const plan = planUris(DIR, view({}, false), uris({ 'xds-bridge-a': 'A', 'xds-bridge-b': 'B' }), ACL);
    expect(summary(plan.ops)).toEqual([`create ${DIR}`, `create ${DIR}/xds-bridge-a`, `create ${DIR}/xds-bridge-b`]);
    expect(plan.after.children.get('xds-bridge-a')).toEqual({ data: 'A', version: 0 });
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['an endpoint added → one create', { 'xds-bridge-a': 'A', 'xds-bridge-b': 'B', 'xds-bridge-c': 'C' }, [`create ${DIR}/xds-bridge-c`]],
    ['an endpoint removed → one remove at its version', { 'xds-bridge-a': 'A' }, [`remove ${DIR}/xds-bridge-b@4`]],
    ['a weight changed → one set at its version', { 'xds-bridge-a': 'A', 'xds-bridge-b': 'B2' }, [`set ${DIR}/xds-bridge-b@4`]],
    ['nothing changed → nothing', { 'xds-bridge-a': 'A', 'xds-bridge-b': 'B' }, []],
  ])('writes only what changed: %s', (_name, target, expected) => {
    const plan = planUris(DIR, view({ 'xds-bridge-a': ['A', 0], 'xds-bridge-b': ['B', 4] }), uris(target), ACL);
    expect(summary(plan.ops)).toEqual(expected);
  });

  it('removes only the children it owns when the cluster goes (servers’ own are not in the view)', () => {
    const plan = planUris(DIR, view({ 'xds-bridge-a': ['A', 1] }), uris({}), ACL);
    expect(summary(plan.ops)).toEqual([`remove ${DIR}/xds-bridge-a@1`]);
    expect(plan.after).toEqual({ parentExists: true, children: new Map() });
  });

  it('creates the directory and each child with the ACL the policy gives its own path', () => {
    const plan = planUris(DIR, view({}, false), uris({ 'xds-bridge-a': 'A' }), ACL);

    expect(plan.ops.map((o) => (o.op === 'create' ? o.acl : undefined))).toEqual([aclFor(DIR, ROLES), aclFor(`${DIR}/xds-bridge-a`, ROLES)]);
    expect(aclFor(DIR, ROLES)).not.toEqual(aclFor(`${DIR}/xds-bridge-a`, ROLES));
  });

  it('adds and updates hosts before it removes any, so no batch of a split plan leaves the cluster without hosts', () => {
    // Prepare: both hosts replaced (a redeploy onto new addresses)
    const current = view({ 'xds-bridge-a': ['A', 0], 'xds-bridge-b': ['B', 2] });
    const target = uris({ 'xds-bridge-c': 'C', 'xds-bridge-d': 'D' });

    // Act: planned, then written two operations per multi (the budget splits it)
    const plan = planUris(DIR, current, target, ACL);
    const batches = batchPlans([{ key: 'uris:c1', ops: plan.ops }], 2, 1e6);

    // Assess: creates first, removes last; after every batch some host is announced
    expect(summary(plan.ops)).toEqual([`create ${DIR}/xds-bridge-c`, `create ${DIR}/xds-bridge-d`, `remove ${DIR}/xds-bridge-a@0`, `remove ${DIR}/xds-bridge-b@2`]);
    const hosts = new Set(current.children.keys());
    for (const batch of batches) {
      for (const op of batch.ops) {
        const name = op.path.slice(DIR.length + 1);
        if (op.op === 'remove') hosts.delete(name);
        else hosts.add(name);
      }
      expect(hosts.size).toBeGreaterThan(0);
    }
    expect([...hosts].sort()).toEqual([...plan.after.children.keys()].sort());
    // A changed host is set before a removed one goes, too
    const mixed = planUris(DIR, view({ 'xds-bridge-a': ['A', 0], 'xds-bridge-b': ['B', 2] }), uris({ 'xds-bridge-b': 'B2' }), ACL);
    expect(summary(mixed.ops)).toEqual([`set ${DIR}/xds-bridge-b@2`, `remove ${DIR}/xds-bridge-a@0`]);
  });

  it('leaves ZooKeeper alone for keep', () => {
    expect(planUris(DIR, view({ 'xds-bridge-a': ['A', 1] }), { kind: 'keep' }, ACL).ops).toEqual([]);
  });
});

describe('bridge diff: service and cluster nodes', () => {
  const render = (data: string): EntityTarget => ({ kind: 'node', render: () => data });

  it('creates a missing node, sets a changed one at its version, skips an equal one', () => {
    expect(summary(planNode('/d2/services/s', { exists: false }, render('x'), ACL).ops)).toEqual(['create /d2/services/s']);
    const changed = planNode('/d2/services/s', { exists: true, data: 'x', version: 7 }, render('y'), ACL);
    expect(summary(changed.ops)).toEqual(['set /d2/services/s@7']);
    expect(changed.after).toEqual({ exists: true, data: 'y', version: 8 });
    expect(planNode('/d2/services/s', { exists: true, data: 'y', version: 8 }, render('y'), ACL).ops).toEqual([]);
  });

  it('creates a cluster node with the policy ACL that lets the request writer set it', () => {
    const [create] = planNode('/d2/clusters/c', { exists: false }, render('x'), ACL).ops;

    expect(create).toMatchObject({ op: 'create', acl: aclFor('/d2/clusters/c', ROLES) });
    expect(create?.op === 'create' && create.acl.find((e) => e.id === ROLES.requestWriter[0])?.perms).toEqual(['write']);
  });

  it('removes a node for absent and writes nothing when render declines', () => {
    expect(summary(planNode('/d2/services/s', { exists: true, data: 'x', version: 2 }, { kind: 'absent' }, ACL).ops)).toEqual(['remove /d2/services/s@2']);
    expect(planNode('/d2/clusters/c', { exists: true, data: 'x', version: 2 }, { kind: 'node', render: () => undefined }, ACL).ops).toEqual([]);
  });

  it('hands the current document to render (the merge base)', () => {
    const seen: (string | undefined)[] = [];
    planNode('/d2/clusters/c', { exists: true, data: 'current', version: 1 }, { kind: 'node', render: (e) => (seen.push(e), 'next') }, ACL);
    expect(seen).toEqual(['current']);
  });
});

describe('bridge diff: batching within the write budget', () => {
  const op = (i: number, bytes = 10): MultiOp => ({ op: 'create', path: `/p${i}`, data: Buffer.alloc(bytes), acl: [] });

  it('keeps an entity’s operations together and respects the operation limit', () => {
    const batches = batchPlans([{ key: 'a', ops: [op(1), op(2)] }, { key: 'b', ops: [op(3), op(4)] }, { key: 'c', ops: [op(5)] }], 3, 1e6);
    expect(batches.map((b) => b.keys)).toEqual([['a'], ['b', 'c']]);
  });

  it('splits an entity larger than a batch, and respects the byte limit', () => {
    const big = batchPlans([{ key: 'a', ops: [op(1), op(2), op(3), op(4), op(5)] }], 2, 1e6);
    expect(big.map((b) => b.ops.length)).toEqual([2, 2, 1]);
    expect(big.every((b) => b.keys[0] === 'a')).toBe(true);
    const bytes = batchPlans([{ key: 'a', ops: [op(1, 100)] }, { key: 'b', ops: [op(2, 100)] }], 100, 150);
    expect(bytes).toHaveLength(2);
  });

  it('drops entities with nothing to write', () => {
    expect(batchPlans([{ key: 'a', ops: [] }], 10, 1e6)).toEqual([]);
  });
});
