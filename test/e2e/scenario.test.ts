import { run } from '../../lib/cli';
import { formatResults, runScenario, type StepResult } from '../../lib/local/scenario';
import { LocalStack } from '../../lib/local/stack';

// The whole system on one machine (real ZooKeeper, fauxqs, two xDS control planes, two bridge
// replicas, two D2 observers, the real request handler, FailoutClient traffic to two services in
// three fabrics) through the scripted steps: in full with the traffic reading D2 data through the
// observers (`--discovery xds`), and the short run with it reading ZooKeeper (the default), so both
// discovery modes pass while the e2e run stays one full scenario long.

/** Runs the scenario and asserts that every step passed, with the whole table in the failure. */
async function passes(stack: LocalStack, short: boolean): Promise<StepResult[]> {
  const lines: string[] = [];
  const results = await runScenario(stack, (line) => lines.push(line), (argv, io) => run(argv, io), { short });
  const table = formatResults(results).join('\n');
  expect({ failed: results.filter((r) => !r.passed).map((r) => r.step), table }).toEqual({ failed: [], table });
  return results;
}

/** Stops the stack and asserts that nothing it started runs. */
async function stopsEverything(stack: LocalStack): Promise<void> {
  const zk = stack.zk;
  await stack.close();
  expect(zk.pid).toBeUndefined();
  expect([stack.planes.primary.lifecycle, stack.planes.fallback.lifecycle]).toEqual(['closed', 'closed']);
  expect(stack.replicas.map((r) => r.role)).toEqual(['closed', 'closed']);
  expect(stack.observers.views().map((o) => o.state)).toEqual(['closed', 'closed']);
  await expect(fetch(`${stack.sqs.endpoint}/`)).rejects.toThrow();
}

describe('the local stack scenario, clients reading D2 data through the observers (--discovery xds)', () => {
  let stack: LocalStack | undefined;

  afterAll(async () => {
    await stack?.close();
  }, 30_000);

  it('meets every step: failout, partial failout, bad request, ramp, extend, control plane fallback, observer-1 killed (failout through observer-2, return), capacity guard, stop alarm, a drill that passes and one that is stopped, evacuating fabric lor1 and restoring it, leader failover', async () => {
    // Prepare
    stack = await LocalStack.start({ rate: 50, discovery: 'xds' });

    // Act
    const results = await passes(stack, false);

    // Assess
    expect(results).toHaveLength(14);
    expect(results.find((r) => r.name.startsWith('observer-1 killed'))).toEqual(expect.objectContaining({ passed: true }));
    // Issue 23: both services' traffic left lor1 (2:1 to lva1 and ltx1) and came back, measured per service.
    const evacuation = results.find((r) => r.name.startsWith('evacuate lor1'));
    expect(evacuation).toEqual(expect.objectContaining({ passed: true, measured: expect.stringMatching(/greetings \d+ ms, hello \d+ ms/) }));
    // No error but those the stop-alarm step injected on purpose (the fault switch's 500s, counted by the topology).
    expect(stack.traffic.counts.errors - stack.topology.faultAnswers).toBe(0);
    expect(stack.topology.faultAnswers).toBeGreaterThan(0);
    // The traffic is wired as the README tells a service to: failouts warmed their peers up first.
    const deadline = Date.now() + 5_000;
    while (stack.traffic.warmUps().succeeded === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(stack.traffic.warmUps().succeeded).toBeGreaterThan(0);
    expect(stack.traffic.warmUps().connections).toBeGreaterThan(0);
    // The traffic read through observer-1 at the end (it returned after the observer step).
    expect(stack.observerViews().map((o) => [o.name, o.state, o.clientsOn])).toEqual([
      ['observer-1', 'serving', true],
      ['observer-2', 'serving', false],
    ]);
  }, 330_000);

  it('leaves no node anyone may change: every component ran under its own identity (failout zk check exits 0)', async () => {
    // Prepare
    if (!stack) throw new Error('the stack did not start');
    let stdout = '';

    // Act
    const code = await run(['zk', 'check'], { stdout: (t) => void (stdout += t), stderr: (t) => void (stdout += t), env: { ...stack.env() }, now: () => Date.now() });

    // Assess
    expect({ code, stdout }).toEqual({ code: 0, stdout: expect.stringContaining('none can be changed without credentials') });
  }, 30_000);

  it('stops everything it started: ZooKeeper, the queue server, the control planes, the observers', async () => {
    if (!stack) throw new Error('the stack did not start');
    await stopsEverything(stack);
  }, 30_000);
});

describe('the local stack scenario, clients reading D2 data from ZooKeeper (the default): the short run', () => {
  let stack: LocalStack | undefined;

  afterAll(async () => {
    await stack?.close();
  }, 30_000);

  it('meets the short run: steady state, failout, partial failout and restore, with the observers running beside', async () => {
    // Prepare
    stack = await LocalStack.start({ rate: 50 });

    // Act
    const results = await passes(stack, true);

    // Assess
    expect(results.map((r) => r.step)).toEqual([1, 2, 3]);
    expect(stack.discovery).toBe('zookeeper');
    expect(stack.traffic.activeXdsServer()).toBeUndefined();
    expect(stack.observers.views().map((o) => o.state)).toEqual(['serving', 'serving']);
  }, 120_000);

  it('stops everything it started', async () => {
    if (!stack) throw new Error('the stack did not start');
    await stopsEverything(stack);
  }, 30_000);
});
