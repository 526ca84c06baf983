import { exitCodeOf } from '../../../lib/cli';
import { OperatorError, validateLocally, buildFailoutBody, buildRestoreBody, type OutOptions } from '../../../lib/operator';
/**
 * Issue 14: the CLI runs the worker's own schema and rules before it sends. A body the worker would
 * reject for its shape (a name that is no cluster, a peer equal to the cluster, a window too long or
 * before 1970, a request id that reaches out of the records directory, control characters) is a usage
 * error (exit 2): nothing is sent. The limits are the worker's defaults unless the CLI's environment
 * carries the deployment's (`MAX_FAILOUT_WINDOW`, `MAX_PEERS`, `MAX_REQUEST_BYTES`).
 */

const NOW = Date.parse('2026-11-30T16:00:00Z');
const CONTEXT = { requestId: '0195d5a8-7c00-7000-8000-000000000000', now: NOW, requestedBy: 'oncall@host' };

function failout(cluster: string, options: OutOptions, requestId = CONTEXT.requestId) {
  return buildFailoutBody(cluster, options, { ...CONTEXT, requestId });
}

function usage(act: () => unknown): OperatorError {
  try {
    act();
  } catch (err) {
    if (err instanceof OperatorError) return err;
    throw err;
  }
  throw new Error('no usage error');
}

describe('validateLocally', () => {
  it.each([
    ['a cluster that is a path', () => failout('../x', { peer: ['greetings-lva1'], for: '1h' }), /badName.*cluster: "\.\.\/x"/],
    ['a peer that is the cluster itself', () => failout('greetings-lor1', { peer: ['greetings-lor1'], for: '1h' }), /peerIsCluster/],
    ['--for 3650d', () => failout('greetings-lor1', { peer: ['greetings-lva1'], for: '3650d' }), /windowTooLong.*more than 72h ahead/],
    ['--request-id ../../etc', () => failout('greetings-lor1', { peer: ['greetings-lva1'], for: '1h' }, '../../etc'), /badName.*requestId: "\.\.\/\.\.\/etc"/],
    ['--at before 1970', () => failout('greetings-lor1', { peer: ['greetings-lva1'], at: '1969-12-31T23:00:00Z', until: '+1h' }), /badWindow.*before 1970/],
    ['an ESC in --reason', () => failout('greetings-lor1', { peer: ['greetings-lva1'], for: '1h', reason: 'x\u001b[2J' }), /badSchema.*reason: must not contain control characters/],
    ['a restore of a name that is no cluster', () => buildRestoreBody('a b', {}, CONTEXT), /badName/],
  ])('refuses %s as a usage error, nothing sent', (_, body, message) => {
    const error = usage(() => validateLocally(body(), NOW, {}));
    expect(exitCodeOf(error)).toBe(2);
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/nothing was sent/);
  });

  it('returns the normalised request the worker would judge', () => {
    const request = validateLocally(failout('greetings-lor1', { peer: ['greetings-lva1:2'], for: '2h' }), NOW, {});
    expect(request).toMatchObject({ action: 'failout', cluster: 'greetings-lor1', offlineAt: NOW, onlineAt: NOW + 2 * 3_600_000 });
  });

  it("takes the deployment's limits from the environment", () => {
    const body = failout('greetings-lor1', { peer: ['greetings-lva1'], for: '10d' });
    expect(usage(() => validateLocally(body, NOW, {})).message).toMatch(/windowTooLong/);
    expect(validateLocally(body, NOW, { MAX_FAILOUT_WINDOW: 'P14D' })).toMatchObject({ action: 'failout' });
    expect(usage(() => validateLocally(body, NOW, { MAX_FAILOUT_WINDOW: 'forever' })).message).toMatch(/MAX_FAILOUT_WINDOW/);
  });
});
