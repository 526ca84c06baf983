import { OBSERVER_SCOPE, servedDump, streamDump } from '../../../lib/observer/client-status';
import { ResourceStatus } from '../../../lib/xds';

// What the observer's CSDS says per stream and of itself, before lib/xds renders it.

const TYPE = 'type.googleapis.com/indis.D2Node';
const A = '/d2/clusters/a';
const B = '/d2/clusters/b';

function statusesOf(dump: ReturnType<typeof streamDump>): Array<[string, string, string, string | undefined]> {
  return dump.authorities[0]!.resources.map((r) => [r.name, r.status, r.version, r.error]);
}

describe('observer client status', () => {
  it.each([
    ['before any ACK, every name is requested', undefined, undefined, [[A, ResourceStatus.requested, '', undefined], [B, ResourceStatus.requested, '', undefined]]],
    [
      'an ACKed response gives each name its version, or does-not-exist when it was left out',
      { versions: new Map([[A, '17'], [B, undefined]]), at: 1000 },
      undefined,
      [[A, ResourceStatus.acked, '17', undefined], [B, ResourceStatus.doesNotExist, '', undefined]],
    ],
    [
      'a NACK keeps the ACKed version and carries the error',
      { versions: new Map([[A, '17']]), at: 1000 },
      { versions: new Map([[A, '18'], [B, '19']]), at: 2000, message: 'bad' },
      [[A, ResourceStatus.nacked, '17', 'bad'], [B, ResourceStatus.nacked, '', 'bad']],
    ],
  ])('%s', (_what, acked, nacked, expected) => {
    // Act
    const dump = streamDump({ id: 3, nodeId: 'client-1', types: new Map([[TYPE, { names: new Set([A, B]), acked, nacked }]]) });

    // Assess
    expect([dump.clientScope, dump.node.id]).toEqual(['stream/3', 'client-1']);
    expect(statusesOf(dump)).toEqual(expected);
  });

  it('lists what the observer serves with versions and update times, absent ones as does-not-exist', () => {
    // Act
    const dump = servedDump(
      new Map([
        [`${TYPE} ${A}`, { status: 'present' as const, version: '42', updatedAt: 5000, resource: { type_url: TYPE, value: Buffer.alloc(0) } }],
        [`${TYPE} ${B}`, { status: 'absent' as const, updatedAt: 6000 }],
      ]).entries(),
    );

    // Assess
    expect(dump.clientScope).toBe(OBSERVER_SCOPE);
    expect(dump.authorities[0]!.resources.map((r) => [r.typeUrl, r.name, r.status, r.version, r.lastUpdated])).toEqual([
      [TYPE, A, ResourceStatus.acked, '42', 5000],
      [TYPE, B, ResourceStatus.doesNotExist, '', 6000],
    ]);
  });
});
