/**
 * Issue 21: the local evaluator lists every alarm it has, from its start and whatever its state, on
 * the port it was given (the stack hands that URL to the request worker before the evaluator starts),
 * so "unknown" means the same locally as in CloudWatch: the worker's HTTP reader finds every
 * `<cluster>-errors` and reads any other name as `unknown`.
 */
import { HttpAlarmStates } from '../../../lib/alarms';
import { AlarmEvaluator, alarmsUrl, errorAlarmName } from '../../../lib/local/alarm-evaluator';
import { reservePort } from '../../../lib/local/net';

describe('AlarmEvaluator listing', () => {
  let evaluator: AlarmEvaluator | undefined;

  afterEach(async () => {
    await evaluator?.close();
  });

  it('serves every alarm it evaluates on the port given, and the worker reads any other name as unknown', async () => {
    // Prepare
    const reserved = await reservePort();
    const port = reserved.port;
    const clusters = ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1'];
    evaluator = await AlarmEvaluator.start({ samplesSince: () => [], clusters, emit: async () => undefined, intervalMs: 3_600_000, port: reserved });

    // Act
    const readings = await new HttpAlarmStates(alarmsUrl(port)).read([...clusters.map(errorAlarmName), 'greetings-lor1-latency']);

    // Assess
    expect(evaluator.url).toBe(alarmsUrl(port));
    expect(Object.fromEntries(readings)).toEqual({ 'greetings-lor1-errors': 'OK', 'greetings-lva1-errors': 'OK', 'greetings-ltx1-errors': 'OK', 'greetings-lor1-latency': 'unknown' });
  });
});
