import { isOperatorError } from '../../../lib/operator';
import { waitForRequestRecord } from '../../../lib/operator/records';
import { encodeRequestRecord, requestRecordPath, type RequestRecord } from '../../../lib/requests';
import { OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk } from '../../helpers/in-memory-zk';

// `--wait`'s poll for a request's record (lib/operator records.ts): a record that is there but cannot
// be read ends the wait at once, saying so; a readable one is the outcome; none is waited for.

const BASE = '/failout/requests';
const ID = '0195d5a8-7c00-7000-8000-000000000001';

async function sessionWith(data: string | undefined): Promise<ReturnType<InMemoryZk['session']>> {
  const session = new InMemoryZk().session();
  await session.ensurePath(BASE, OPEN_ACL);
  if (data !== undefined) await session.create(requestRecordPath(BASE, ID), Buffer.from(data), { acl: OPEN_ACL });
  return session;
}

describe('waiting for a request record', () => {
  it.each([
    ['not JSON', '{not json'],
    ['JSON of another shape', '{"hello":"world"}'],
    ['empty', ''],
  ])('stops at once when the record is %s, with an error saying it cannot be read and how the worker treats it', async (_case, data) => {
    // Prepare
    const session = await sessionWith(data);
    const started = Date.now();

    // Act
    let error: unknown;
    try {
      await waitForRequestRecord(session, BASE, [ID, 'message-1'], { timeoutMs: 30_000, pollMs: 10 });
    } catch (err) {
      error = err;
    }

    // Assess
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(isOperatorError(error, 'unavailable')).toBe(true);
    expect((error as Error).message).toMatch(new RegExp(`^the record of request ${ID} under ${BASE} cannot be read \\(.+\\): .*acknowledged as a duplicate and applies nothing`));
  });

  it('answers a readable record, and undefined when none comes before the timeout', async () => {
    // Prepare
    const record: RequestRecord = { requestId: ID, status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt: 1, clusterVersion: 1 };
    const found = await sessionWith(encodeRequestRecord(record).toString('utf8'));
    const empty = await sessionWith(undefined);

    // Act
    const read = await waitForRequestRecord(found, BASE, [ID], { timeoutMs: 1_000, pollMs: 10 });
    const none = await waitForRequestRecord(empty, BASE, [ID], { timeoutMs: 50, pollMs: 10 });

    // Assess
    expect(read).toEqual(expect.objectContaining({ requestId: ID, status: 'applied' }));
    expect(none).toBeUndefined();
  });
});
