import { DrillWatch } from '../../../lib/console/drill-watch';
import { FabricWatch } from '../../../lib/console/fabric-watch';
import { digestAcl, OPEN_ACL, type ZkSession } from '../../../lib/zk';
import pino from 'pino';
import { clusterDrillDefinition, writeDrillNode } from '../../helpers/drill-nodes';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// A drill node someone wrote past the worker (a hand edit, another tool) on the console's drill watch
// over a real ZooKeeper: the node's problem is named, and what the console last read of it stays on
// the page (its schedule, a run moving traffic) instead of the drill vanishing.

describe('a drill node that stops decoding', () => {
  let session: ZkSession;

  beforeEach(async () => {
    session = await openSession();
  });

  afterEach(async () => {
    await closeSessions();
  });

  it('keeps its last good read beside its problem, and a node never read well has none', async () => {
    // Prepare: one drill the watch has read, one that never decoded
    const drillsBase = `${uniqueBase('console-drill')}/drills`;
    const now = Date.now();
    await session.ensurePath(drillsBase, OPEN_ACL);
    await writeDrillNode(session, drillsBase, clusterDrillDefinition(now), [], now);
    await session.create(`${drillsBase}/broken`, Buffer.from('[]'), { acl: OPEN_ACL });
    const watch = new DrillWatch(session, { drillsBase, onChange: () => undefined });
    try {
      await eventually(async () => watch.entries().length === 2 && watch.entries().some((e) => 'node' in e), 10_000, 'both drills read');

      // Act: the good one is overwritten with something no codec reads
      await session.set(`${drillsBase}/weekly-lor1`, Buffer.from('{"version":1'));

      // Assess
      await eventually(async () => watch.entries().every((e) => 'problem' in e), 10_000, 'the overwritten drill named');
      expect(watch.entries()).toEqual([
        { name: 'broken', problem: expect.stringMatching(/drill node is malformed/) },
        { name: 'weekly-lor1', problem: 'drill node is not JSON', lastGood: expect.objectContaining({ definition: expect.objectContaining({ name: 'weekly-lor1' }) }) },
      ]);
    } finally {
      watch.close();
    }
  });

  it('is named when the console may not read it, as a fabric map so is', async () => {
    // Prepare: a drill node and a fabric map whose ACLs give the console's session no READ
    const base = uniqueBase('console-noauth');
    const locked = [digestAcl('someone-else', 'not-the-console')];
    for (const parent of [`${base}/drills`, `${base}/fabrics`]) await session.ensurePath(parent, OPEN_ACL);
    await session.create(`${base}/drills/weekly-lor1`, Buffer.from('{}'), { acl: locked });
    await session.create(`${base}/fabrics/edge`, Buffer.from('{}'), { acl: locked });
    const drills = new DrillWatch(session, { drillsBase: `${base}/drills`, onChange: () => undefined });
    const fabrics = new FabricWatch(session, { fabricsBase: `${base}/fabrics`, evacuationsBase: `${base}/evacuations`, logger: pino({ level: 'silent' }), onChange: () => undefined });
    try {
      // Act
      await eventually(async () => drills.entries().length === 1 && fabrics.fabricMaps().length === 1, 10_000, 'both named');

      // Assess
      expect(drills.entries()).toEqual([{ name: 'weekly-lor1', problem: expect.stringMatching(/no READ permission/) }]);
      expect(fabrics.fabricMaps()).toEqual([{ fabric: 'edge', problem: expect.stringMatching(/no READ permission/) }]);
    } finally {
      drills.close();
      fabrics.close();
    }
  });
});
