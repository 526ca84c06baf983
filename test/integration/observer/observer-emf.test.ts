/**
 * The observer's CloudWatch EMF line (what the deployment's "not ready" and "ZooKeeper lag" alarms
 * read), from a real observer over a real ZooKeeper: ready and 0 s disconnected while the session is
 * up; not ready and counting once the session is gone.
 */
import { D2Observer, OBSERVER_EMF_METRICS, startObserverEmfReporter } from '../../../lib/observer';
import type { ZkSession } from '../../../lib/zk';
import { closeSessions, eventually, openSession, proxyOf, uniqueBase } from '../../helpers/zk';

describe('the observer EMF reporter', () => {
  let session: ZkSession;
  let observer: D2Observer;

  beforeEach(async () => {
    session = await openSession({ sessionTimeoutMs: 4000 });
    observer = await D2Observer.start({ zk: session, basePath: uniqueBase('observer-emf') });
  });

  afterEach(async () => {
    await observer.close();
    await closeSessions();
  });

  it('writes one EMF line per interval: Ready 1 and ZkDisconnectedSeconds 0 while connected, Ready 0 and a growing lag once cut off', async () => {
    // Prepare
    const lines: Array<Record<string, unknown>> = [];
    await eventually(() => observer.ready, 5000, 'ready');
    const reporter = startObserverEmfReporter(observer, { namespace: 'failout-test', intervalMs: 100, write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>), clock: () => 1_000 });

    try {
      // Act
      const connected = lines[0];
      proxyOf(session).refuse();
      await eventually(() => lines.some((l) => l[OBSERVER_EMF_METRICS.ready] === 0 && Number(l[OBSERVER_EMF_METRICS.zkDisconnectedSeconds]) >= 1), 15_000, 'a lagging line');

      // Assess
      expect(connected).toMatchObject({
        _aws: { Timestamp: 1_000, CloudWatchMetrics: [{ Namespace: 'failout-test', Dimensions: [['service']], Metrics: [{ Name: 'Ready' }, { Name: 'ZkDisconnectedSeconds', Unit: 'Seconds' }] }] },
        service: 'd2-observer',
        Ready: 1,
        ZkDisconnectedSeconds: 0,
      });
    } finally {
      reporter.close();
      proxyOf(session).accept();
    }
  }, 30_000);
});
