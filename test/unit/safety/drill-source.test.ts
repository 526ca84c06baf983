import { loadDrillRunnerConfig } from '../../../lib/safety';

const BASE = { ZK_CONNECT: 'zk1:2181,zk2:2181', FAILOUT_QUEUE_URL: 'http://sqs.us-east-1.127.0.0.1:4566/000000000000/failout-requests.fifo' };

describe('loadDrillRunnerConfig', () => {
  it('takes the defaults: paths, a 10-minute grace, plain TCP', () => {
    expect(loadDrillRunnerConfig(BASE)).toEqual({
      zkConnect: 'zk1:2181,zk2:2181',
      queueUrl: BASE.FAILOUT_QUEUE_URL,
      d2BasePath: '/d2',
      requestsPath: '/failout/requests',
      drillsPath: '/failout/drills',
      fabricsPath: '/failout/fabrics',
      evacuationsPath: '/failout/evacuations',
      graceMs: 600_000,
      sessionTimeoutMs: 15_000,
      connectTimeoutMs: 10_000,
      tls: undefined,
    });
    expect(loadDrillRunnerConfig({ ...BASE, DRILL_GRACE: '2m', FAILOUT_DRILLS_PATH: '/x/drills' })).toMatchObject({ graceMs: 120_000, drillsPath: '/x/drills' });
    // Drain tests (issue 23): where the fabric maps and the evacuation nodes are.
    expect(loadDrillRunnerConfig({ ...BASE, FAILOUT_FABRICS_PATH: '/x/fabrics', FAILOUT_EVACUATIONS_PATH: '/x/evacuations' })).toMatchObject({ fabricsPath: '/x/fabrics', evacuationsPath: '/x/evacuations' });
  });

  it.each([
    [{ ZK_CONNECT: undefined }, /ZK_CONNECT is required/],
    [{ FAILOUT_QUEUE_URL: 'queue' }, /FAILOUT_QUEUE_URL must be the http\(s\) URL/],
    [{ DRILL_GRACE: 'soon' }, /DRILL_GRACE must be a positive duration/],
    [{ FAILOUT_DRILLS_PATH: 'drills' }, /FAILOUT_DRILLS_PATH must be an absolute znode path/],
  ])('refuses %j, naming the variable', (overrides, message) => {
    expect(() => loadDrillRunnerConfig({ ...BASE, ...overrides })).toThrow(expect.objectContaining({ name: 'SafetyError', kind: 'invalidConfig' }));
    expect(() => loadDrillRunnerConfig({ ...BASE, ...overrides })).toThrow(message);
  });
});
