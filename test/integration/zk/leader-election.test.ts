import { LeaderElection, OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { closeSessions, eventually, expireSession, openSession, uniqueBase } from '../../helpers/zk';

describe('leader election', () => {
  let base: string;
  const elections: LeaderElection[] = [];

  async function candidate(id: string, session?: ZkSession): Promise<{ election: LeaderElection; session: ZkSession; log: string[] }> {
    const s = session ?? (await openSession({ sessionTimeoutMs: 3000 }));
    // The recipe's own behaviour, not access control (see test/integration/access/roles.test.ts): open ACL, explicitly.
    const election = new LeaderElection(s, { path: `${base}/leader`, participantId: id, acl: OPEN_ACL });
    const log: string[] = [];
    election.on('leader', () => log.push('leader'));
    election.on('notLeader', () => log.push('notLeader'));
    elections.push(election);
    await election.start();
    return { election, session: s, log };
  }

  beforeEach(() => {
    base = uniqueBase('election');
  });

  afterEach(async () => {
    await Promise.all(elections.splice(0).map((e) => e.close()));
    await closeSessions();
  });

  it('hands leadership to the other candidate when the leader closes', async () => {
    // Prepare
    const a = await candidate('a');
    const b = await candidate('b');
    await eventually(() => a.election.isLeader, 5000, 'a leads');
    expect(b.election.isLeader).toBe(false);
    expect(await b.election.leaderId()).toBe('a');

    // Act
    await a.election.close();

    // Assess
    await eventually(() => b.election.isLeader, 5000, 'b leads');
    expect(await b.election.leaderId()).toBe('b');
    expect(a.log).toEqual(['leader', 'notLeader']);
    expect(b.log).toEqual(['leader']);
  });

  it('fails a fenced write of a leader whose session expired, and lets the new leader write', async () => {
    // Prepare
    const a = await candidate('a');
    const b = await candidate('b');
    await eventually(() => a.election.isLeader, 5000, 'a leads');
    const data = `${base}/data`;
    await a.session.create(data, Buffer.from('0'), { acl: OPEN_ACL });
    const fenceOfA = a.election.fence();

    // Act: a's session expires; b takes over; a stale write carrying a's old fence is refused.
    await expireSession(a.session);
    await eventually(() => b.election.isLeader, 10000, 'b leads');
    const stale = a.session.multi([fenceOfA, { op: 'set', path: data, data: Buffer.from('from a'), version: -1 }]);
    await b.election.fencedMulti([{ op: 'set', path: data, data: Buffer.from('from b'), version: -1 }]);

    // Assess
    await expect(stale).rejects.toMatchObject({ kind: 'noNode', opIndex: 0 });
    expect((await b.session.get(data)).data.toString()).toBe('from b');
    expect(a.election.isLeader).toBe(false);
    await expect(a.election.fencedMulti([])).rejects.toMatchObject({ kind: 'notLeader' });
  });

  it('fires leadership events only on edges and elects exactly one of five', async () => {
    // Prepare
    const all = await Promise.all(['1', '2', '3', '4', '5'].map((id) => candidate(id)));

    // Act
    await eventually(() => all.some((c) => c.election.isLeader), 5000, 'a leader');
    const leaders = all.filter((c) => c.election.isLeader);
    await leaders[0]!.election.close();
    await eventually(() => all.filter((c) => c.election.isLeader).length === 1, 5000, 'next leader');

    // Assess
    expect(leaders).toHaveLength(1);
    for (const c of all) expect(c.log.every((e, i) => i === 0 || e !== c.log[i - 1])).toBe(true);
  });
});
