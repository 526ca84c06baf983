import { run } from '../../lib/cli';
import { formatResults, runScenario } from '../../lib/local/scenario';
import { LocalStack } from '../../lib/local/stack';

// The whole system on one machine (real ZooKeeper, fauxqs, two xDS control planes, two bridge
// replicas, the real request handler, FailoutClient traffic to two services in three fabrics) through
// the scripted steps.

describe('the local stack scenario', () => {
  let stack: LocalStack | undefined;

  afterAll(async () => {
    await stack?.close();
  }, 30_000);

  it('meets every step: failout, partial failout, bad request, ramp, extend, control plane fallback, capacity guard, stop alarm, a drill that passes and one that is stopped, evacuating fabric lor1 and restoring it, leader failover', async () => {
    // Prepare
    stack = await LocalStack.start({ rate: 50 });
    const lines: string[] = [];

    // Act
    const results = await runScenario(stack, (line) => lines.push(line), (argv, io) => run(argv, io));

    // Assess: the whole table on failure, so the cause is in the report
    const table = formatResults(results).join('\n');
    expect({ failed: results.filter((r) => !r.passed).map((r) => r.step), table }).toEqual({ failed: [], table });
    expect(results).toHaveLength(13);
    // Issue 23: both services' traffic left lor1 (2:1 to lva1 and ltx1) and came back, measured per service.
    const evacuation = results.find((r) => r.name.startsWith('evacuate lor1'));
    expect(evacuation).toEqual(expect.objectContaining({ passed: true, measured: expect.stringMatching(/greetings \d+ ms, hello \d+ ms/) }));
    // No error but those the stop-alarm step injected on purpose (the fault switch's 500s, counted by the topology).
    expect(stack.traffic.counts.errors - stack.topology.faultAnswers).toBe(0);
    expect(stack.topology.faultAnswers).toBeGreaterThan(0);
    // The traffic is wired as the README tells a service to: failouts warmed their peers up first.
    const deadline = Date.now() + 5_000;
    while (stack.traffic.warmUps().succeeded === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(stack.traffic.warmUps()).toEqual(expect.objectContaining({ succeeded: expect.any(Number), connections: expect.any(Number) }));
    expect(stack.traffic.warmUps().succeeded).toBeGreaterThan(0);
    expect(stack.traffic.warmUps().connections).toBeGreaterThan(0);
  }, 300_000);

  it('leaves no node anyone may change: every component ran under its own identity (failout zk check exits 0)', async () => {
    // Prepare
    if (!stack) throw new Error('the stack did not start');
    let stdout = '';

    // Act
    const code = await run(['zk', 'check'], { stdout: (t) => void (stdout += t), stderr: (t) => void (stdout += t), env: { ...stack.env() }, now: () => Date.now() });

    // Assess
    expect({ code, stdout }).toEqual({ code: 0, stdout: expect.stringContaining('none can be changed without credentials') });
  }, 30_000);

  it('stops everything it started: ZooKeeper, the queue server, the control planes', async () => {
    // Prepare
    if (!stack) throw new Error('the stack did not start');
    const zk = stack.zk;

    // Act
    await stack.close();

    // Assess
    expect(zk.pid).toBeUndefined();
    expect([stack.planes.primary.lifecycle, stack.planes.fallback.lifecycle]).toEqual(['closed', 'closed']);
    expect(stack.replicas.map((r) => r.role)).toEqual(['closed', 'closed']);
    await expect(fetch(`${stack.sqs.endpoint}/`)).rejects.toThrow();
  }, 30_000);
});
