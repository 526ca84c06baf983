/**
 * Issue 16, the local stack's alarm evaluator: `<cluster>-errors` goes to ALARM when the error rate of
 * the requests that landed on the cluster in the window passes the threshold, back to OK below it; each
 * transition is emitted as a CloudWatch alarm state change event; the states are served on loopback.
 */
import { AlarmEvaluator, errorAlarmName } from '../../../lib/local/alarm-evaluator';
import type { Sample } from '../../../lib/local/traffic';
import { parseAlarmEvent } from '../../../lib/safety';

const T0 = 1_000_000;

function samples(cluster: string, from: number, count: number, errors: number): Sample[] {
  return Array.from({ length: count }, (_, i) => ({ at: from + i * 10, service: 'greetings', cluster, host: 'h', ok: i >= errors, latencyMs: 1 }));
}

describe('AlarmEvaluator', () => {
  let evaluator: AlarmEvaluator | undefined;
  let all: Sample[] = [];
  const emitted: Record<string, unknown>[] = [];

  beforeEach(async () => {
    all = [];
    emitted.length = 0;
    // A long interval: the test drives evaluate() itself.
    evaluator = await AlarmEvaluator.start({
      samplesSince: (since) => all.filter((s) => s.at >= since),
      clusters: ['lor1', 'lva1'],
      emit: async (event) => void emitted.push(event),
      intervalMs: 3_600_000,
      windowMs: 1000,
      thresholdPct: 20,
      minSamples: 5,
    });
  });
  afterEach(async () => {
    await evaluator?.close();
  });

  it('starts OK, fires at the threshold, and returns to OK, emitting one event per transition', () => {
    // Prepare
    const e = evaluator!;

    // Act
    all = samples('lva1', T0, 10, 1);
    e.evaluate(T0 + 200);
    const below = e.state('lva1-errors');
    all = [...all, ...samples('lva1', T0 + 200, 10, 10)];
    e.evaluate(T0 + 400);
    const fired = e.state('lva1-errors');
    e.evaluate(T0 + 500);
    e.evaluate(T0 + 2000);

    // Assess
    expect(below).toBe('OK');
    expect(fired).toBe('ALARM');
    expect(e.state('lva1-errors')).toBe('OK');
    expect(e.state('lor1-errors')).toBe('OK');
    expect(e.transitions().map((t) => [t.name, t.from, t.to, t.at])).toEqual([
      ['lva1-errors', 'OK', 'ALARM', T0 + 400],
      ['lva1-errors', 'ALARM', 'OK', T0 + 2000],
    ]);
    const events = emitted.map((ev) => parseAlarmEvent(ev));
    expect(events.map((r) => (r.ok ? [r.event.alarmName, r.event.state, r.event.previousState] : r.error.message))).toEqual([
      ['lva1-errors', 'ALARM', 'OK'],
      ['lva1-errors', 'OK', 'ALARM'],
    ]);
  });

  it('judges nothing on fewer than minSamples requests: a peer without traffic stays OK', () => {
    // Act
    all = samples('lva1', T0, 4, 4);
    evaluator!.evaluate(T0 + 100);

    // Assess
    expect(evaluator!.state('lva1-errors')).toBe('OK');
    expect(emitted).toEqual([]);
  });

  it('serves every alarm on loopback as the drills read them, and 404 elsewhere', async () => {
    // Prepare
    all = samples('lor1', T0, 10, 10);
    evaluator!.evaluate(T0 + 100);

    // Act
    const response = await fetch(evaluator!.url);
    const other = await fetch(evaluator!.url.replace('/alarms', '/other'));

    // Assess
    expect(evaluator!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/alarms$/);
    expect(await response.json()).toEqual({
      alarms: [
        { name: errorAlarmName('lor1'), state: 'ALARM', since: T0 + 100 },
        { name: errorAlarmName('lva1'), state: 'OK', since: expect.any(Number) },
      ],
    });
    expect(other.status).toBe(404);
  });
});
