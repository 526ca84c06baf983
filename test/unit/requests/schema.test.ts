import { parseChangeRequest, parseDuration, type ChangeRequest } from '../../../lib/requests';
import { failoutInput, HOUR, NOW, restoreInput } from '../../helpers/requests';

const options = { now: NOW };

function accepted(body: unknown): ChangeRequest {
  const result = parseChangeRequest(typeof body === 'string' ? body : JSON.stringify(body), options);
  if (!result.ok) throw new Error(`rejected: ${result.rejection.reason}: ${result.rejection.message}`);
  return result.request;
}

function rejection(body: unknown, opts: Partial<Parameters<typeof parseChangeRequest>[1]> = {}) {
  const result = parseChangeRequest(typeof body === 'string' ? body : JSON.stringify(body), { ...options, ...opts });
  if (result.ok) throw new Error('accepted');
  return result.rejection;
}

describe('parseChangeRequest accepts and normalises', () => {
  it('defaults offlineAt to now, resolves the duration and buckets to 0-99', () => {
    const request = accepted(failoutInput({ requestId: 'r1' }));
    expect(request).toEqual({
      version: 1,
      requestId: 'r1',
      action: 'failout',
      cluster: 'greetings-lor1',
      peers: [
        { cluster: 'greetings-lva1', weight: 2 },
        { cluster: 'greetings-ltx1', weight: 1 },
      ],
      offlineAt: NOW,
      onlineAt: NOW + 2 * HOUR,
      buckets: { from: 0, to: 99 },
      requestedBy: 'oncall@example.com',
      reason: 'INC-4711',
      force: false,
    });
  });

  it('reads ISO instants with zones and epoch milliseconds, and defaults a peer weight to 1', () => {
    const request = accepted(
      failoutInput({ duration: undefined, offlineAt: '2026-11-30T17:00:00+01:00', onlineAt: NOW + HOUR, peers: [{ cluster: 'a' }], buckets: { from: 0, to: 49 } }),
    );
    expect(request).toMatchObject({ offlineAt: NOW, onlineAt: NOW + HOUR, peers: [{ cluster: 'a', weight: 1 }], buckets: { from: 0, to: 49 } });
  });

  it('accepts a restore with only the common fields', () => {
    expect(accepted(restoreInput({ requestId: 'r2', force: true }))).toEqual({ version: 1, requestId: 'r2', action: 'restore', cluster: 'greetings-lor1', force: true });
  });

  it('accepts an already parsed body', () => {
    const result = parseChangeRequest(failoutInput(), options);
    expect(result.ok).toBe(true);
  });
});

describe('parseChangeRequest rejects, naming every problem', () => {
  it.each([
    ['oversize', 'x'.repeat(20_000), /20000 bytes; at most 16384/],
    ['badJson', '{"version": 1,', /not JSON/],
    ['badSchema', { ...failoutInput(), version: 2 }, /^version: /],
    ['badSchema', { ...failoutInput(), action: 'drain' }, /^action: /],
    ['badSchema', { ...failoutInput(), peers: [] }, /^peers: /],
    ['badSchema', { ...failoutInput(), peers: [{ cluster: 'a', weight: 0 }] }, /^peers\[0\]\.weight: /],
    ['badSchema', { ...failoutInput(), duration: 'P1M' }, /^duration: must be a positive ISO-8601 duration/],
    ['badSchema', { ...failoutInput(), buckets: { from: 60, to: 10 } }, /^buckets: from must not be greater than to/],
    ['badSchema', { ...failoutInput(), onlinAt: 'typo' }, /onlinAt/],
    ['badSchema', { ...restoreInput(), peers: [] }, /peers/],
    ['badName', failoutInput({ cluster: 'a/b' }), /^cluster: "a\/b" has characters other than ASCII letters, digits and punctuation \(SQS MessageGroupId\) or has a slash/],
    ['badName', failoutInput({ cluster: '..' }), /^cluster: "\.\." is not a valid znode name/],
    ['badName', failoutInput({ peers: [{ cluster: 'ok' }, { cluster: 'bad name' }] }), /^peers\[1\]\.cluster: /],
    ['badName', failoutInput({ requestId: 'x'.repeat(129) }), /^requestId: .* is longer than 128 characters/],
    ['peerIsCluster', failoutInput({ peers: [{ cluster: 'greetings-lor1' }] }), /peers\[0\]\.cluster: "greetings-lor1" is the cluster/],
    ['duplicatePeer', failoutInput({ peers: [{ cluster: 'a' }, { cluster: 'a' }] }), /peers\[1\]\.cluster: "a" is listed twice/],
    ['tooManyPeers', failoutInput({ peers: Array.from({ length: 11 }, (_, i) => ({ cluster: `p${i}` })) }), /11 given; at most 10/],
    ['missingEnd', failoutInput({ duration: undefined }), /needs an end \(at most 72h ahead\)/],
    ['badWindow', failoutInput({ onlineAt: NOW + HOUR }), /give one end, not both/],
    ['badWindow', failoutInput({ duration: undefined, offlineAt: NOW + 2 * HOUR, onlineAt: NOW + HOUR }), /is not after offlineAt/],
    ['badWindow', failoutInput({ duration: undefined, offlineAt: NOW - 2 * HOUR, onlineAt: NOW - HOUR }), /already past/],
    ['windowTooLong', failoutInput({ duration: 'PT73H' }), /more than 72h ahead/],
  ])('rejects as %s (case %#)', (reason, body, message) => {
    const r = rejection(body);
    expect(r.reason).toBe(reason);
    expect(r.message).toMatch(message);
  });

  it('lists every schema problem, not just the first', () => {
    const r = rejection({ ...failoutInput(), version: 3, peers: [{ cluster: 'a', weight: -1 }], buckets: { from: 0, to: 100 } });
    expect(r.reason).toBe('badSchema');
    expect(r.message.split('; ').map((m) => m.split(':')[0])).toEqual(expect.arrayContaining(['version', 'peers[0].weight', 'buckets.to']));
  });

  it('lists every semantic problem, the first one giving the reason', () => {
    const r = rejection(failoutInput({ peers: [{ cluster: 'greetings-lor1' }, { cluster: 'x/y' }], duration: undefined }));
    expect(r.reason).toBe('badName');
    expect(r.message).toMatch(/peers\[1\]\.cluster.*; peers\[0\]\.cluster.*is the cluster.*; onlineAt or duration/);
  });

  it('keeps a usable request id so the rejection is recorded under it, and drops an unusable one', () => {
    expect(rejection({ ...failoutInput({ requestId: 'keep-me' }), version: 9 }).requestId).toBe('keep-me');
    expect(rejection(failoutInput({ requestId: 'a/b' })).requestId).toBeUndefined();
    expect(rejection('not json').requestId).toBeUndefined();
  });

  it('honours configured limits', () => {
    expect(rejection(failoutInput({ duration: 'PT2H' }), { maxWindowMs: HOUR }).reason).toBe('windowTooLong');
    expect(rejection(failoutInput(), { maxBodyBytes: 100 }).reason).toBe('oversize');
    expect(rejection(failoutInput(), { maxPeers: 1 }).reason).toBe('tooManyPeers');
    expect(parseChangeRequest(failoutInput({ duration: 'P4D' }), { now: NOW, maxWindowMs: 100 * HOUR }).ok).toBe(true);
  });
});

describe('parseDuration', () => {
  it.each([
    ['PT2H', 2 * HOUR],
    ['PT90M', 90 * 60_000],
    ['P1DT6H', 30 * HOUR],
    ['P1W', 168 * HOUR],
    ['PT1.5H', 1.5 * HOUR],
    ['PT0.5S', 500],
    ['72h', 72 * HOUR],
    ['90m', 90 * 60_000],
    ['500ms', 500],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['P', 'PT', 'P1M', 'P1Y', 'PT1.5H30M', '2 hours', '', '-PT1H'])('refuses %j', (text) => expect(parseDuration(text)).toBeUndefined());
});
