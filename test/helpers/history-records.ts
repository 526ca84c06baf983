import { newRequestId, requestRecordPath, encodeRequestRecord, type RequestRecord } from '../../lib/requests';
import { OPEN_ACL, type MultiOp, type ZkSession } from '../../lib/zk';

/**
 * A long request history for the console's history tests (issue 24, item 5): `count` records, one a
 * minute back from `now`, across clusters whose names share fabric suffixes (`lor1` is in two of the
 * four), three requesters, three actions, every seventh rejected. Record 0 is the newest.
 */
export function historyRecords(count: number, now: number): RequestRecord[] {
  const clusters = ['greetings-lor1', 'greetings-lva1', 'hello-LOR1', 'hello-ltx1'];
  const requesters = ['oncall@example.com', 'Alice@Example.com', 'failout-guard'];
  const actions = ['failout', 'restore', 'extend'] as const;
  return Array.from({ length: count }, (_, i) => {
    const appliedAt = now - 1000 - i * 60_000;
    const rejected = i % 7 === 3;
    return {
      requestId: newRequestId(appliedAt),
      status: rejected ? 'rejected' : 'applied',
      ...(rejected ? { reason: 'unknownPeer' as const, message: `=peer, "greetings-nope${i}"\nis unknown` } : {}),
      cluster: clusters[i % clusters.length]!,
      action: actions[i % actions.length]!,
      appliedAt,
      clusterVersion: rejected ? null : i,
      requestedBy: requesters[i % requesters.length]!,
      requestReason: `INC-${i}: moving traffic away while the greetings deployment in this fabric rolls back`,
    };
  });
}

/** Writes `records` under `requestsBase` (creating it), 500 to a multi. */
export async function seedRecords(session: ZkSession, requestsBase: string, records: readonly RequestRecord[]): Promise<void> {
  await session.ensurePath(requestsBase, OPEN_ACL);
  const ops: MultiOp[] = records.map((r) => ({ op: 'create', path: requestRecordPath(requestsBase, r.requestId), data: encodeRequestRecord(r), acl: OPEN_ACL }));
  for (let i = 0; i < ops.length; i += 500) await session.multi(ops.slice(i, i + 500));
}
