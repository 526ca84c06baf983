import type { DigestCredential } from './types';

/** What {@link parseDigestCredential} made of a secret's text. */
export type DigestCredentialResult =
  | {
      /** The text held a credential. */
      readonly ok: true;
      /** The credential it held. */
      readonly credential: DigestCredential;
    }
  | {
      /** The text held no credential. */
      readonly ok: false;
      /** What is wrong, without any of the text (it may be a password). */
      readonly problem: string;
    };

/**
 * A ZooKeeper digest credential as secrets and variables hold it, one rule for every component (the
 * bridge's `ZK_CREDENTIALS`, the worker's `ZK_DIGEST` and its Secrets Manager secret): `user:password`
 * (split at the first colon: a password may contain colons), or JSON `{"user": …, "password": …}`
 * (what Secrets Manager's key/value editor writes). Both parts non-empty, the user without a colon. The
 * problem never quotes the text, which may hold a password.
 */
export function parseDigestCredential(text: string): DigestCredentialResult {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return { ok: false, problem: 'must be JSON {"user","password"} or user:password (it starts with "{" but is not JSON)' };
    }
    const { user, password } = (parsed ?? {}) as { user?: unknown; password?: unknown };
    if (typeof user !== 'string' || user === '' || typeof password !== 'string' || password === '') {
      return { ok: false, problem: 'must be JSON {"user","password"} with two non-empty strings, or user:password' };
    }
    // ZooKeeper reads `user:password` up to the first colon, and refuses an ACL id with a second one
    // (INVALID_ACL): such a user could authenticate but never create a node it may write again.
    if (user.includes(':')) return { ok: false, problem: 'must name a user with no colon (ZooKeeper splits user:password at the first one)' };
    return { ok: true, credential: { user, password } };
  }
  const colon = trimmed.indexOf(':');
  if (colon <= 0 || colon === trimmed.length - 1) return { ok: false, problem: 'must hold user:password (or JSON {"user","password"})' };
  return { ok: true, credential: { user: trimmed.slice(0, colon), password: trimmed.slice(colon + 1) } };
}
