/**
 * LRS follows the server that delivered the CDS resource (gRFC A47 caveat, reference §6 (vii)):
 * it moves to the fallback on fallback and back to the primary on return, even when the primary's
 * CDS resource is byte-identical.
 */
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { buildCluster } from '../../../lib/xds/resource-types';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { eventually, fallbackBootstrap, startXdsServer } from '../../helpers/xds-chain';

const reportsFor = (s: XdsManagementServer, cluster: string): number =>
  s.recorder.loadReports.filter((r) => r.clusterStats.some((c) => c.cluster_name === cluster && Number(c.upstream_locality_stats?.[0]?.total_issued_requests ?? 0) > 0)).length;

describe('LRS across fallback and return', () => {
  const servers: XdsManagementServer[] = [];
  let client: XdsClient | undefined;

  afterEach(async () => {
    client?.close();
    client = undefined;
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('reports to the CDS source: primary, then the fallback, then the primary again with byte-identical CDS', async () => {
    const primary = await startXdsServer();
    const secondary = await startXdsServer();
    servers.push(primary, secondary);
    primary.lrs.setReportInterval(200);
    secondary.lrs.setReportInterval(200);
    const c1 = buildCluster('c1', { lrs: true });
    primary.setSnapshot('*', { version: '1', clusters: [c1] });
    secondary.setSnapshot('*', { version: '1', clusters: [c1, buildCluster('only-on-secondary')] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const reporter = client.reportLoad('c1');
    const call = (): void => {
      reporter.callStarted({ zone: 'z' });
      reporter.callFinished({ zone: 'z' }, true);
    };
    await eventually('LRS to the primary', () => reporter.serverUri === primary.uri);
    call();
    await eventually('a report at the primary', () => reportsFor(primary, 'c1') > 0);

    const extra = recordingWatcher();
    client.watch('cluster', 'only-on-secondary', extra); // uncached: makes the primary's failure a fallback
    await primary.stopServing();
    await eventually('LRS to the secondary', () => reporter.serverUri === secondary.uri);
    call();
    await eventually('a report at the secondary', () => reportsFor(secondary, 'c1') > 0);

    await primary.start();
    await eventually('LRS back to the primary', () => reporter.serverUri === primary.uri, 10_000);
    const before = reportsFor(primary, 'c1');
    call();
    await eventually('a new report at the primary', () => reportsFor(primary, 'c1') > before);
    await eventually('the secondary LRS stream closed', () => secondary.lrs.activeStreams === 0);
    reporter.close();
  });
});
