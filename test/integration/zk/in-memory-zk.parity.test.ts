/**
 * The in-memory ZooKeeper's contract (test/helpers/zk-contract.ts) against a real server through
 * ZkSession: every case the fake passes in the unit project must pass here too, or the fake lies.
 */
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { ZK_CONTRACT, type ContractCase, type ContractSession } from '../../helpers/zk-contract';
import { closeSessions, expireSession, openSession, uniqueBase } from '../../helpers/zk';

// lib/zk has no default ACL: this test plays an unconstrained writer and passes the open ACL explicitly
// (access control itself is tested in test/integration/access/ and test/unit/zk/acl-*.test.ts).

let base: string;
let admin: ZkSession;

beforeEach(async () => {
  base = uniqueBase('contract');
  admin = await openSession();
  await admin.ensurePath(base, OPEN_ACL);
});

afterEach(async () => {
  await admin.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

describe('a real ZooKeeper keeps the contract the in-memory fake is tested against', () => {
  it.each(ZK_CONTRACT.map((c): [string, ContractCase] => [c.name, c]))('%s', async (_name, contract) => {
    const real = new Map<ContractSession, ZkSession>();
    await contract.run({
      base,
      open: async (options) => {
        const session = await openSession(options?.credentials ? { credentials: options.credentials } : {});
        real.set(session, session);
        return session;
      },
      expire: async (session) => {
        const target = real.get(session);
        if (!target) throw new Error('not a session of this harness');
        const reset = new Promise<void>((resolve) => {
          const off = target.on((event) => {
            if (event !== 'reset') return;
            off();
            resolve();
          });
        });
        await expireSession(target);
        await reset;
      },
    });
  });
});
