import { buildFabricBody, judgeFabricBody } from '../../../lib/operator/fabric-requests';
import { isOperatorError, resolveSettings } from '../../../lib/operator';

// The evacuate form's fields read as `failout evacuate`'s flags (issue 23, item 6): the console's
// request is the one the CLI would build, and it is judged through the same steps.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const CONTEXT = { requestId: '0195d5a8-7c00-7000-8000-000000000000', now: NOW, requestedBy: 'tester' };
const SETTINGS = resolveSettings({}, {});

describe('the fabric form as the CLI flags', () => {
  it('builds the evacuate body `failout evacuate` builds from the same text', () => {
    // Act
    const body = buildFabricBody(
      'evacuate',
      'lor1',
      { to: 'lva1:2, ltx1', for: '2h', stageClusters: 'greetings-lor1; hello-lor1, legacy-a', gateAlarms: '1=fe-5xx', stopAlarms: 'lor1-errors, lor1-p99', exclude: 'batch, cron', reason: 'INC-23', by: 'oncall', force: true },
      CONTEXT,
    );

    // Assess
    expect(body).toEqual({
      version: 1,
      requestId: CONTEXT.requestId,
      action: 'evacuate',
      fabric: 'lor1',
      targets: [
        { fabric: 'lva1', weight: 2 },
        { fabric: 'ltx1', weight: 1 },
      ],
      duration: 'PT2H',
      stages: [{ clusters: ['greetings-lor1'], gateAlarms: ['fe-5xx'] }, { clusters: ['hello-lor1', 'legacy-a'] }],
      stopAlarms: ['lor1-errors', 'lor1-p99'],
      exclude: ['batch', 'cron'],
      reason: 'INC-23',
      requestedBy: 'oncall',
      force: true,
    });
  });

  it('builds a restoreFabric body from the reason and the requester only', () => {
    expect(buildFabricBody('restoreFabric', 'lor1', { reason: 'over', to: 'ignored' }, CONTEXT)).toEqual({ version: 1, requestId: CONTEXT.requestId, action: 'restoreFabric', fabric: 'lor1', requestedBy: 'tester', reason: 'over' });
  });

  it.each([
    [{ to: 'lor1', for: '1h' }, 'targets'],
    [{ to: 'lva1:0', for: '1h' }, 'targets'],
    [{ stages: 'frontend', stageClusters: 'a', for: '1h' }, 'stages'],
    [{ gateAlarms: 'fe-5xx', stages: 'frontend', for: '1h' }, 'gateAlarms'],
  ])('names the field at fault for %j', (fields, field) => {
    // Act
    let error: unknown;
    try {
      buildFabricBody('evacuate', 'lor1', fields, CONTEXT);
    } catch (err) {
      error = err;
    }

    // Assess
    expect(isOperatorError(error, 'input') && error.field).toBe(field);
  });
});

describe('judging a fabric body', () => {
  it('is ready but not judged while ZooKeeper is out of reach, and says the named alarms were not checked', async () => {
    // Prepare
    const body = buildFabricBody('evacuate', 'lor1', { for: '1h', stopAlarms: 'lor1-errors' }, CONTEXT);

    // Act
    const result = await judgeFabricBody(SETTINGS, {}, body, { now: NOW, session: undefined });

    // Assess
    expect(result).toEqual(expect.objectContaining({ kind: 'ready', judged: false, body, judgement: expect.stringContaining('not judged now'), notes: [expect.stringContaining('could not check the alarms (lor1-errors)')] }));
  });

  it("refuses what the worker's schema refuses, before anything is read", async () => {
    // Prepare: a fabric name no znode may have
    const body = buildFabricBody('evacuate', 'lor/1', { for: '1h' }, CONTEXT);

    // Act
    const result = await judgeFabricBody(SETTINGS, {}, body, { now: NOW, session: undefined });

    // Assess
    expect(result).toEqual(expect.objectContaining({ kind: 'invalid', message: expect.stringContaining('the worker would reject this request') }));
  });
});
