/**
 * Issue 14, "bad input never blocks a cluster": the schema's bounds on everything an operator types.
 * Every instant form (ISO-8601, epoch ms, `offlineAt + duration`) gets the same range; a value outside
 * it is a recorded `badWindow`, never an exception (an exception is a batch item failure: SQS retries
 * it into the DLQ while the rest of the cluster's FIFO group waits). Names follow one grammar (SQS
 * MessageGroupId ∩ znode name), free text refuses control characters.
 */
import { parseChangeRequest } from '../../../lib/requests';
import { MAX_NAME_LENGTH } from '../../../lib/requests/names';
import { type ParseResult } from '../../../lib/requests/schema';
import { failoutInput, HOUR, NOW, restoreInput } from '../../helpers/requests';

const options = { now: NOW };
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

function parse(body: unknown): ParseResult {
  return parseChangeRequest(typeof body === 'string' ? body : JSON.stringify(body), options);
}

function rejection(body: unknown): { reason: string; message: string } {
  const result = parse(body);
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.request)}`);
  return result.rejection;
}

describe('instants: one range for every form, judged without throwing', () => {
  const end = new Date(NOW + HOUR).toISOString();
  it.each([
    ['an ISO offlineAt before 1970', { offlineAt: '1969-12-31T23:00:00Z', onlineAt: end }, /^offlineAt: 1969-12-31T23:00:00\.000Z is before 1970-01-01T00:00:00\.000Z/],
    ['an ISO offlineAt in year 0000', { offlineAt: '0000-01-01T00:00:00Z', onlineAt: end }, /^offlineAt: .* is before 1970-01-01T00:00:00\.000Z/],
    ['an ISO offlineAt with an offset that lands before 1970', { offlineAt: '1970-01-01T00:30:00+01:00', onlineAt: end }, /^offlineAt: 1969-12-31T23:30:00\.000Z is before 1970/],
    ['an epoch-ms offlineAt before 1970', { offlineAt: -3_600_000, onlineAt: end }, /^offlineAt: 1969-12-31T23:00:00\.000Z is before 1970/],
    ['an epoch-ms onlineAt past year 9999', { offlineAt: NOW, onlineAt: LATEST + 1 }, /^onlineAt: .* is after 9999-12-31T23:59:59\.999Z/],
    ['an epoch-ms onlineAt beyond what a Date can hold', { offlineAt: NOW, onlineAt: 9e15 }, /^onlineAt: 9000000000000000 is after 9999-12-31T23:59:59\.999Z/],
    ['a duration that ends past year 9999', { duration: 'P99999999999W' }, /^duration: P99999999999W ends after 9999-12-31T23:59:59\.999Z/],
    ['a duration that ends past year 9999 (short form)', { duration: '99999999999999d' }, /^duration: 99999999999999d ends after 9999/],
  ])('%s is a badWindow rejection', (_, window, message) => {
    const body = failoutInput({ duration: undefined, ...window });
    expect(() => parse(body)).not.toThrow();
    const r = rejection(body);
    expect(r).toMatchObject({ reason: 'badWindow', message: expect.stringMatching(message) });
  });

  it('accepts the first millisecond of 1970 as a start in both forms', () => {
    for (const offlineAt of [0, '1970-01-01T00:00:00Z']) {
      const result = parse(failoutInput({ duration: undefined, offlineAt, onlineAt: NOW + HOUR }));
      expect(result).toMatchObject({ ok: true, request: { offlineAt: 0, onlineAt: NOW + HOUR } });
    }
  });

  it('refuses an epoch-ms instant that is not an integer in the same way as before', () => {
    expect(rejection(failoutInput({ duration: undefined, offlineAt: NOW + 0.5, onlineAt: NOW + HOUR })).reason).toBe('badSchema');
  });
});

describe('names: one grammar, SQS MessageGroupId ∩ znode name', () => {
  const punctuation = '!"#$%&\'()*+,-.:;<=>?@[\\]^_`{|}~';
  it('accepts 128 characters of letters, digits and every SQS punctuation mark but the slash', () => {
    const cluster = `${punctuation}${'a1'.repeat(64)}`.slice(0, 128);
    const result = parse(restoreInput({ cluster, requestId: cluster }));
    expect(MAX_NAME_LENGTH).toBe(128);
    expect(result).toMatchObject({ ok: true, request: { cluster, requestId: cluster } });
  });

  it.each([
    ['129 characters', 'a'.repeat(129), /is longer than 128 characters/],
    ['a non-ASCII letter', 'grüße-lor1', /characters other than ASCII letters, digits and punctuation/],
    ['a space', 'greetings lor1', /characters other than ASCII letters, digits and punctuation/],
    ['a slash', '../x', /characters other than ASCII letters, digits and punctuation/],
    ['a dot', '.', /is not a valid znode name/],
    ['two dots', '..', /is not a valid znode name/],
    ['a NUL', 'a\u0000b', /characters other than/],
    ['nothing', '', /is empty/],
  ])('refuses a cluster, a peer and a request id with %s', (_, name, message) => {
    for (const [field, body] of [
      ['cluster', restoreInput({ cluster: name })],
      ['peers[1].cluster', failoutInput({ peers: [{ cluster: 'ok' }, { cluster: name }] })],
      ['requestId', restoreInput({ requestId: name })],
    ] as const) {
      const r = rejection(body);
      expect({ field, reason: r.reason }).toEqual({ field, reason: 'badName' });
      expect(r.message).toMatch(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}: `));
      expect(r.message).toMatch(message);
    }
  });
});

describe('request ids: the name grammar, and no leading dot', () => {
  it('refuses a request id that starts with a dot (reserved for the prune mark), which a cluster name may', () => {
    const r = rejection(restoreInput({ requestId: '.prune-mark' }));
    expect(r).toMatchObject({ reason: 'badName', message: 'requestId: ".prune-mark" starts with a dot, which is reserved' });
    expect(parse(restoreInput({ cluster: '.hidden-cluster' }))).toMatchObject({ ok: true });
  });
});

describe('free text: reason and requestedBy refuse control characters', () => {
  it.each([
    ['ESC (a terminal escape sequence)', 'INC-1\u001b[2J\u001b[Hall clear', 'U+001B'],
    ['a newline', 'INC-1\nall clear', 'U+000A'],
    ['a NUL', 'INC\u0000', 'U+0000'],
    ['DEL', 'INC\u007f', 'U+007F'],
    ['a C1 control (CSI)', 'INC\u009b2J', 'U+009B'],
    ['a bidi override', 'INC\u202e1-CNI', 'U+202E'],
  ])('refuses %s in reason and in requestedBy', (_, text, code) => {
    for (const field of ['reason', 'requestedBy'] as const) {
      const r = rejection(failoutInput({ [field]: text }));
      expect(r.reason).toBe('badSchema');
      expect(r.message).toMatch(new RegExp(`^${field}: must not contain control characters \\(${code.replace('+', '\\+')} at `));
    }
  });

  it('keeps ordinary Unicode text: accents, dashes, quotes, emoji', () => {
    const result = parse(failoutInput({ reason: 'Störung INC-4711 — “lor1” 🔥', requestedBy: 'José <oncall@example.com>' }));
    expect(result).toMatchObject({ ok: true, request: { reason: 'Störung INC-4711 — “lor1” 🔥', requestedBy: 'José <oncall@example.com>' } });
  });
});
