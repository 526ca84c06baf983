/**
 * Issue 21, item 8: a digest credential sent over plain TCP is warned about, at warn level, naming the
 * server it went to, once per ZkSession (a new session after expiry re-sends it without a second
 * warning); a session without a credential is not warned about. Over TLS: session.tls.test.ts.
 */
import type { ZkSession } from '../../../lib/zk';
import { capturingLogger, type LogLine } from '../../helpers/logging';
import { closeSessions, eventually, expireSession, openSession, proxyOf } from '../../helpers/zk';

const PLAIN = /^zookeeper digest credential sent over plain TCP/;
const CREDENTIAL = { user: 'writer', password: 'not-a-secret-of-this-test' };

afterEach(async () => {
  await closeSessions();
});

const plainWarnings = (lines: readonly LogLine[]): LogLine[] => lines.filter((l) => PLAIN.test(l.msg));

it('warns once, at warn level, naming the server, when a session with a credential connects over plain TCP; not again after expiry', async () => {
  // Prepare
  const { logger, lines } = capturingLogger();

  // Act
  const session: ZkSession = await openSession({ credentials: [CREDENTIAL], logger });
  const server = proxyOf(session).address;
  await expireSession(session);
  await eventually(() => session.stats().sessions === 2 && session.state === 'connected', 15_000, 'a new session after expiry');

  // Assess
  const warnings = plainWarnings(lines);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ level: 'warn', record: expect.objectContaining({ server }) });
  expect(warnings[0]!.msg).toContain(`to ${server}:`);
  expect(JSON.stringify(lines)).not.toContain(CREDENTIAL.password);
});

it('warns when a credential is added to a live plain-TCP session, and not for a session without one', async () => {
  // Prepare
  const { logger, lines } = capturingLogger();
  const session = await openSession({ logger });
  const before = plainWarnings(lines).length;

  // Act
  session.addCredential(CREDENTIAL);

  // Assess
  expect(before).toBe(0);
  expect(plainWarnings(lines)).toEqual([expect.objectContaining({ level: 'warn', record: expect.objectContaining({ server: proxyOf(session).address }) })]);
});
