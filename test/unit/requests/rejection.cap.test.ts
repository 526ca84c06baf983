/**
 * Issue 14: a rejection record is capped. A 14 KB body whose `peers` are 7,000 zeros names 7,000
 * schema problems; stored whole, that was a 433 KB record, and a larger body broke ZooKeeper's packet
 * limit (jute.maxbuffer, 1 MB), which turned a permanent rejection into a DLQ message. The message keeps
 * the first problems and counts the rest; the encoded record never exceeds MAX_RECORD_BYTES.
 */
import { decodeRequestRecord, parseChangeRequest, type RequestRecord } from '../../../lib/requests';
import { encodeRequestRecord, MAX_RECORD_BYTES, MAX_RECORDED_UNREADABLE_FAILOUT } from '../../../lib/requests/request-record';
import { cutText, MAX_REJECTION_MESSAGE_BYTES, type Problem } from '../../../lib/requests/rejection';
import { rejectionOf } from '../../../lib/requests/rejection';
import { NOW } from '../../helpers/requests';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

describe('rejectionOf', () => {
  it('keeps the first problems and counts the rest when they do not fit', () => {
    const problems: Problem[] = Array.from({ length: 7000 }, (_, i) => ({ reason: 'badSchema', message: `peers[${i}]: Invalid input: expected object, received number` }));
    const r = rejectionOf(problems, 'r1');
    expect(r.reason).toBe('badSchema');
    expect(bytes(r.message)).toBeLessThanOrEqual(MAX_REJECTION_MESSAGE_BYTES);
    expect(r.message).toMatch(/^peers\[0\]: Invalid input: expected object, received number; peers\[1\]: /);
    const shown = r.message.split('; ').filter((m) => m.startsWith('peers[')).length;
    expect(r.message).toMatch(new RegExp(`; … and ${7000 - shown} more problems \\(7000 in all\\)$`));
  });

  it('shortens one huge problem instead of dropping it', () => {
    const r = rejectionOf([{ reason: 'badName', message: `cluster: "${'é'.repeat(20_000)}" is longer than 128 characters` }]);
    expect(bytes(r.message)).toBeLessThanOrEqual(MAX_REJECTION_MESSAGE_BYTES);
    expect(r.message).toMatch(/^cluster: "éé.*… \(\d+ characters cut\)$/);
  });

  it('leaves a short list alone', () => {
    const r = rejectionOf([
      { reason: 'unknownPeer', message: 'peers[0].cluster: "x" has no cluster node' },
      { reason: 'noPeerWithHosts', message: 'peers: none has an announced host (force overrides)' },
    ]);
    expect(r.message).toBe('peers[0].cluster: "x" has no cluster node; peers: none has an announced host (force overrides)');
  });
});

describe('the rejection of a 14 KB body of zeros', () => {
  it('names the first problems in a message of at most MAX_REJECTION_MESSAGE_BYTES', () => {
    const body = JSON.stringify({ version: 1, requestId: 'r-zeros', action: 'failout', cluster: 'a', peers: Array(7000).fill(0), duration: 'PT1H' });
    expect(bytes(body)).toBeGreaterThan(14_000);
    const result = parseChangeRequest(body, { now: NOW });
    if (result.ok) throw new Error('accepted');
    expect(result.rejection).toMatchObject({ reason: 'badSchema', requestId: 'r-zeros' });
    expect(bytes(result.rejection.message)).toBeLessThanOrEqual(MAX_REJECTION_MESSAGE_BYTES);
    expect(result.rejection.message).toMatch(/more problems \(7000 in all\)$/);
  });
});

describe('encodeRequestRecord', () => {
  const record = (message: string, requestedBy?: string): RequestRecord => ({
    requestId: 'r'.repeat(128),
    status: 'rejected',
    reason: 'badSchema',
    message,
    cluster: 'c'.repeat(128),
    action: 'failout',
    appliedAt: NOW,
    clusterVersion: null,
    messageId: '6c1f0d0e-8a4b-4c0e-9a55-0b5e3f1c2d7a',
    ...(requestedBy === undefined ? {} : { requestedBy }),
  });

  it('never writes more than MAX_RECORD_BYTES, cutting the message and saying so', () => {
    expect(MAX_RECORD_BYTES).toBe(4096);
    const encoded = encodeRequestRecord(record('\u{1F525}'.repeat(50_000), '\ud800'.repeat(256)));
    expect(encoded.length).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    const back = decodeRequestRecord(encoded);
    expect(back.message).toMatch(/^(\u{1F525})+… \(\d+ characters cut\)$/u);
    expect(back.requestId).toBe('r'.repeat(128));
  });

  it("keeps a restore's unreadableFailout, at its cap, beside the longest reason the schema lets through", () => {
    const restored: RequestRecord = {
      ...record('', 'é'.repeat(256)),
      status: 'applied',
      action: 'restore',
      clusterVersion: 7,
      requestReason: '\u{1F525}'.repeat(128),
      unreadableFailout: cutText('\u0001'.repeat(1000), MAX_RECORDED_UNREADABLE_FAILOUT),
    };
    const { message: _none, reason: _rejection, ...applied } = restored;
    const encoded = encodeRequestRecord(applied);
    expect(encoded.length).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    expect(decodeRequestRecord(encoded)).toEqual(applied);
  });

  it('writes a record that fits unchanged', () => {
    const small = record('peers[0].cluster: "x" has no cluster node', 'oncall@example.com');
    expect(decodeRequestRecord(encodeRequestRecord(small))).toEqual(small);
  });
});
