import pino from 'pino';
import { ZkView } from '../../../lib/console/zk-view';
import { startTcpProxy, type TcpProxy } from '../../../lib/local/tcp-proxy';
import { historyRecords, seedRecords } from '../../helpers/history-records';
import { closeSessions, eventually, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

// The console's request records over a real ZooKeeper behind a proxy whose link is cut while the
// records are being read: a record whose read failed for a moment (connection loss) must be read again
// once the session is back, not left out of the history until some other record arrives.

describe("the console's request records", () => {
  let proxy: TcpProxy | undefined;
  let view: ZkView | undefined;

  afterEach(async () => {
    await view?.close();
    view = undefined;
    await proxy?.close();
    proxy = undefined;
    await closeSessions();
  });

  it('are all read after a connection loss in the middle of reading them', async () => {
    // Prepare: many records, so the cut falls while some are still being read
    const base = uniqueBase('console-records');
    const session = await openSession();
    const records = historyRecords(2000, Date.now());
    await seedRecords(session, `${base}/requests`, records);
    proxy = await startTcpProxy(Number(sharedConnectString().split(',')[0]!.split(':')[1]));
    view = new ZkView({
      connectString: proxy.address,
      d2Base: `${base}/d2`,
      requestsBase: `${base}/requests`,
      fabricsBase: `${base}/fabrics`,
      evacuationsBase: `${base}/evacuations`,
      logger: pino({ level: 'silent' }),
      onChange: () => undefined,
    });
    view.start();
    await eventually(() => view!.requestRecords().length > 0, 10_000, 'the first records read');

    // Act: the link drops while reads are in flight, and comes back
    proxy.refuse();
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.accept();

    // Assess
    await eventually(() => view!.requestRecords().length === records.length, 15_000, `all ${records.length} records read (read: ${view!.requestRecords().length})`);
  });
});
