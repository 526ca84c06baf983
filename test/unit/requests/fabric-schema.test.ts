import fc from 'fast-check';
import { MAX_FABRIC_MAP_CLUSTERS } from '../../../lib/fabrics';
import { FABRIC_MESSAGE_GROUP } from '../../../lib/requests/fabric-schema';
import { changeRequestMessage, encodeChangeRequest, messageGroupOf } from '../../../lib/requests/request-message';
import { parseChangeRequest, parseRequest } from '../../../lib/requests/schema';

const NOW = Date.parse('2026-11-30T16:00:00Z');

function putFabric(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, requestId: 'fab-1', action: 'putFabric', fabric: 'lor1', clusters: [{ cluster: 'legacy-a', service: 'frontend', tier: 'web' }, { cluster: 'pay-7', service: 'payments' }], ...overrides };
}

describe('putFabric and deleteFabric bodies', () => {
  it('normalises a valid putFabric into the map it writes', () => {
    // Act
    const parsed = parseRequest(putFabric({ requestedBy: 'oncall', reason: 'CHG-1' }), { now: NOW });
    // Assess
    expect(parsed).toEqual({
      ok: true,
      request: { version: 1, requestId: 'fab-1', action: 'putFabric', fabric: 'lor1', requestedBy: 'oncall', reason: 'CHG-1', map: { fabric: 'lor1', clusters: [{ cluster: 'legacy-a', service: 'frontend', tier: 'web' }, { cluster: 'pay-7', service: 'payments' }] } },
    });
  });

  it('normalises a valid deleteFabric', () => {
    expect(parseRequest({ version: 1, requestId: 'fab-2', action: 'deleteFabric', fabric: 'lor1' }, { now: NOW })).toEqual({ ok: true, request: { version: 1, requestId: 'fab-2', action: 'deleteFabric', fabric: 'lor1' } });
  });

  it.each([
    ['a hostile fabric name', putFabric({ fabric: '../x' }), 'badName', /fabric: "\.\.\/x"/],
    ['a control character in a cluster', putFabric({ clusters: [{ cluster: 'a\u001b[2J', service: 's' }] }), 'badName', /clusters\[0\]\.cluster/],
    ['a bad tier', putFabric({ clusters: [{ cluster: 'a', service: 's', tier: 'web tier' }] }), 'badName', /clusters\[0\]\.tier/],
    ['a cluster named twice', putFabric({ clusters: [{ cluster: 'a', service: 's' }, { cluster: 'a', service: 't' }] }), 'badFabric', /named twice/],
    ['no cluster', putFabric({ clusters: [] }), 'badSchema', /clusters/],
    ['a cluster field', putFabric({ cluster: 'greetings-lor1' }), 'badSchema', /cluster/],
    ['force', putFabric({ force: true }), 'badSchema', /force/],
    ['a 300-character fabric name', putFabric({ fabric: 'f'.repeat(300) }), 'badName', /fabric: "f{80}…"/],
  ])('rejects %s, naming the problem', (_name, body, reason, message) => {
    const parsed = parseRequest(body, { now: NOW });
    expect(parsed).toMatchObject({ ok: false, rejection: { reason, message: expect.stringMatching(message) } });
  });

  it('names every problem of one body', () => {
    const parsed = parseRequest(putFabric({ fabric: '..', clusters: [{ cluster: '/a', service: '', tier: '-x' }] }), { now: NOW });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.rejection.message.split('; ')).toHaveLength(4);
  });

  it('refuses more clusters than a map holds (with a body limit that lets them through)', () => {
    const clusters = Array.from({ length: MAX_FABRIC_MAP_CLUSTERS + 1 }, (_, i) => ({ cluster: `c-${i}`, service: 's' }));
    expect(parseRequest(putFabric({ clusters }), { now: NOW, maxBodyBytes: 1 << 20 })).toMatchObject({ ok: false, rejection: { reason: 'badFabric' } });
  });

  it('refuses an oversized body by the body limit', () => {
    const clusters = Array.from({ length: 600 }, (_, i) => ({ cluster: `cluster-${i}`, service: 'service' }));
    expect(parseRequest(putFabric({ clusters }), { now: NOW })).toMatchObject({ ok: false, rejection: { reason: 'oversize', requestId: 'fab-1' } });
  });

  it('is refused by parseChangeRequest, whose requests all name a cluster', () => {
    expect(parseChangeRequest(putFabric(), { now: NOW })).toMatchObject({ ok: false, rejection: { reason: 'badSchema', message: expect.stringMatching(/parseRequest/) } });
  });
});

describe('the FIFO group of a request', () => {
  it('is one group for every fabric map change, and the cluster for every other request', () => {
    expect(messageGroupOf({ action: 'putFabric' })).toBe(FABRIC_MESSAGE_GROUP);
    expect(messageGroupOf({ action: 'deleteFabric' })).toBe(FABRIC_MESSAGE_GROUP);
    expect(changeRequestMessage('q', { action: 'failout', cluster: 'greetings-lor1', requestId: 'r' }).MessageGroupId).toBe('greetings-lor1');
    expect(changeRequestMessage('q', { cluster: 'greetings-lor1', requestId: 'r' }).MessageGroupId).toBe('greetings-lor1');
    // No cluster name may hold a "/": the group can never be a cluster's.
    expect(FABRIC_MESSAGE_GROUP).toContain('/');
  });

  it('encodes a putFabric with the fabric group and the request id as deduplication id', () => {
    const encoded = encodeChangeRequest('q', putFabric() as never, { now: NOW });
    expect(encoded).toMatchObject({ ok: true, message: { MessageGroupId: FABRIC_MESSAGE_GROUP, MessageDeduplicationId: 'fab-1' } });
  });
});

describe('fuzzing fabric bodies', () => {
  const name = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('lor1', '..', '.', '/x', 'a\u0000b', 'ok-name', ''), fc.string({ minLength: 120, maxLength: 140 }));
  const entry = fc.record({ cluster: name, service: name, tier: fc.option(name, { nil: undefined }) }, { requiredKeys: ['cluster', 'service'] });
  const body = fc.record(
    {
      version: fc.oneof(fc.constant(1), fc.anything()),
      requestId: fc.oneof(fc.constant('fab-x'), name),
      action: fc.constantFrom('putFabric', 'deleteFabric'),
      fabric: fc.oneof(name, fc.anything()),
      clusters: fc.oneof(fc.array(entry, { maxLength: 8 }), fc.anything()),
      requestedBy: fc.oneof(name, fc.anything()),
      cluster: fc.anything(),
    },
    { requiredKeys: ['action'] },
  );

  it('never throws on 2,000 bodies, and every rejection names a reason', () => {
    fc.assert(
      fc.property(body, (b) => {
        for (const parse of [parseRequest, parseChangeRequest]) {
          const parsed = parse(b, { now: NOW });
          if (!parsed.ok) expect(typeof parsed.rejection.reason).toBe('string');
        }
        parseRequest(JSON.stringify(b) ?? 'null', { now: NOW });
      }),
      { numRuns: 2000 },
    );
  });
});
