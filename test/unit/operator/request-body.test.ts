import { exitCodeOf } from '../../../lib/cli';
import { parseChangeRequest } from '../../../lib/requests/schema';
import { OperatorError, buildFailoutBody, buildRestoreBody, type OutOptions } from '../../../lib/operator';

const NOW = Date.parse('2026-11-30T16:00:00Z');
const CONTEXT = { requestId: '6c1f0d0e-8a4b-4c0e-9a55-0b5e3f1c2d7a', now: NOW, requestedBy: 'oncall@host' };

describe('buildFailoutBody', () => {
  it('sends --for without --at as a duration, so the window starts when applied', () => {
    const body = buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1:2', 'greetings-ltx1'], for: '2h', reason: 'INC-4711' }, CONTEXT);
    expect(body).toEqual({
      version: 1,
      requestId: CONTEXT.requestId,
      action: 'failout',
      cluster: 'greetings-lor1',
      peers: [
        { cluster: 'greetings-lva1', weight: 2 },
        { cluster: 'greetings-ltx1', weight: 1 },
      ],
      duration: 'PT2H',
      buckets: { from: 0, to: 99 },
      requestedBy: 'oncall@host',
      reason: 'INC-4711',
      force: false,
    });
  });

  it('sends both ends for --at with --for, and --until as onlineAt', () => {
    expect(buildFailoutBody('c', { peer: ['p'], at: '+15m', for: '90m' }, CONTEXT)).toMatchObject({
      offlineAt: '2026-11-30T16:15:00.000Z',
      onlineAt: '2026-11-30T17:45:00.000Z',
    });
    expect(buildFailoutBody('c', { peer: ['p'], until: '2026-11-30T18:00:00Z', share: '50', by: 'me', force: true }, CONTEXT)).toMatchObject({
      onlineAt: '2026-11-30T18:00:00.000Z',
      buckets: { from: 0, to: 49 },
      requestedBy: 'me',
      force: true,
    });
  });

  it.each<[string, OutOptions, RegExp]>([
    ['no peer', { for: '2h' }, /at least one --peer/],
    ['no end', { peer: ['p'] }, /--for <duration> .* or --until <time>/],
    ['both ends', { peer: ['p'], for: '2h', until: '+3h' }, /either --for .* or --until/],
    ['both share and buckets', { peer: ['p'], for: '2h', share: '50', buckets: '0-9' }, /either --share .* or --buckets/],
    ['an end before the start', { peer: ['p'], at: '+2h', until: '+1h' }, /not after the start/],
  ])('refuses %s with a usage error that says what to do', (_name, options, message) => {
    let caught: unknown;
    try {
      buildFailoutBody('c', options, CONTEXT);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(OperatorError);
    expect(exitCodeOf(caught as OperatorError)).toBe(2);
    expect((caught as OperatorError).message).toMatch(message);
  });

  it('builds bodies the request schema accepts', () => {
    const bodies = [
      buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1:2'], for: '2h' }, CONTEXT),
      buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1'], at: '+1m', until: '+3h', buckets: '0-9' }, CONTEXT),
      buildRestoreBody('greetings-lor1', { reason: 'done' }, CONTEXT),
    ];
    for (const body of bodies) expect(parseChangeRequest(JSON.stringify(body), { now: NOW })).toMatchObject({ ok: true });
  });
});
