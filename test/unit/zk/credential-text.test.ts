import { parseDigestCredential } from '../../../lib/zk/config';

// One rule for a digest credential's text, shared by the bridge's ZK_CREDENTIALS and the worker's
// ZK_DIGEST / Secrets Manager secret (the CDK app lets an operator store either form).

describe('parseDigestCredential', () => {
  it.each([
    ['user:password', { user: 'user', password: 'password' }],
    ['user:pass:with:colons', { user: 'user', password: 'pass:with:colons' }],
    ['  user:password\n', { user: 'user', password: 'password' }],
    ['{"user":"u","password":"p"}', { user: 'u', password: 'p' }],
    [' {"user":"u","password":"p:q"} ', { user: 'u', password: 'p:q' }],
  ])('reads %j', (text, credential) => {
    expect(parseDigestCredential(text)).toEqual({ ok: true, credential });
  });

  it.each([
    ['', 'user:password'],
    ['nocolon', 'user:password'],
    [':password', 'user:password'],
    ['user:', 'user:password'],
    ['{"user":"u"}', 'two non-empty strings'],
    ['{"user":"u","password":""}', 'two non-empty strings'],
    ['{"user":"u","password":"hunter2"', 'not JSON'],
    // ZooKeeper splits `user:password` at the first colon, and refuses an ACL id with two (INVALID_ACL).
    ['{"user":"team:writer","password":"hunter2"}', 'no colon'],
  ])('refuses %j without quoting it', (text, problem) => {
    const result = parseDigestCredential(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem).toContain(problem);
    expect(result.problem).not.toContain('hunter2');
  });

  it('keeps the JSON form from being read as user `{"user"` (the bug a colon split had)', () => {
    const result = parseDigestCredential('{"user":"bridge","password":"s3cret"}');
    expect(result).toEqual({ ok: true, credential: { user: 'bridge', password: 's3cret' } });
  });
});
