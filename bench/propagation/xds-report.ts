// bench/propagation, xDS mode: the tables, bench/results/propagation-xds.json and, for a series of
// sizes, the chart of write → rerouted p99 against clients (bench/results/propagation-xds.svg).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { propagationXdsSpec, readXdsGrowth, xdsGrowthPoints } from '../charts/propagation-xds';
import { renderSvg } from '../charts/render';
import { percentile, printTable, round, writeResults, type OverRounds, type Row } from '../lib/report';
import type { XdsParameters } from './parameters';
import { XDS_TARGET, type SizeMeasurement, type SizeSummary, type Verdict } from './summary';

/** Setup times and the client processes' memory at one size. */
export interface SizeSetup {
  readonly floorMs: number;
  readonly xdsClientsMs: number;
  readonly zkClientsMs: number | undefined;
  /** RSS of each xDS client process once its clients were set up (after a GC). */
  readonly clientRssBytes: readonly number[];
}

const blank = { allP50: '', allP99: '', allMax: '', allMean: '', perClientP50: '', perClientP99: '' } as const;
const verdict = (v: Verdict): string => (v === null ? 'n/a' : v ? 'MET' : 'MISSED');
const mib = (bytes: number): number => round(bytes / 1024 / 1024, 1);

function summaryRows(s: SizeSummary): Row[] {
  const line = (measurement: string, st: OverRounds): Row => ({ measurement, ...st });
  const rows: Row[] = [
    line(`over xDS: ZooKeeper write → all clients rerouted (target p99 ≤ ${XDS_TARGET.writeToReroutedP99Ms} at ${XDS_TARGET.atClients.toLocaleString('en-US')})`, s.xds.writeToRerouted),
    line('over xDS: SQS send → all clients rerouted', s.xds.endToEnd),
    line('floor: setData → all watchers notified (zk-fanout)', s.floor),
    { measurement: `ratio over xDS / floor (target p99 ≤ ${XDS_TARGET.floorRatioP99} at ${XDS_TARGET.atClients.toLocaleString('en-US')})`, ...blank, allP50: s.ratioToFloor.p50, allP99: s.ratioToFloor.p99 },
  ];
  if (s.transport && s.xdsOverTransport && s.transportOverFloor) {
    const { responseBytes, ackBytes, ...transport } = s.transport;
    rows.push(
      line(`transport floor: gRPC push of ${responseBytes} bytes (+ ${ackBytes}-byte ACK) → all clients have it (grpc-fanout)`, transport),
      { measurement: 'ratio over xDS / transport floor', ...blank, allP50: s.xdsOverTransport.p50, allP99: s.xdsOverTransport.p99 },
      { measurement: 'ratio transport floor / ZooKeeper floor', ...blank, allP50: s.transportOverFloor.p50, allP99: s.transportOverFloor.p99 },
    );
  }
  if (s.zkPath && s.xdsOverZk && s.zkOverFloor) {
    rows.push(
      line('over ZooKeeper: ZooKeeper write → all clients rerouted', s.zkPath.writeToRerouted),
      line('over ZooKeeper: SQS send → all clients rerouted', s.zkPath.endToEnd),
      { measurement: `ratio over xDS / over ZooKeeper (target p99 ≤ ${XDS_TARGET.zkPathRatioP99} at ${XDS_TARGET.zkPathAtClients.toLocaleString('en-US')})`, ...blank, allP50: s.xdsOverZk.p50, allP99: s.xdsOverZk.p99 },
      { measurement: 'ratio over ZooKeeper / floor', ...blank, allP50: s.zkOverFloor.p50, allP99: s.zkOverFloor.p99 },
    );
  }
  return rows;
}

function observerRows(s: SizeSummary): Row[] {
  return s.perObserver.map((o) => ({
    observer: o.observer,
    clients: o.clients,
    streams: o.streams,
    writeToAllP50Ms: o.writeToAllP50Ms,
    writeToAllP99Ms: o.writeToAllP99Ms,
    rssKiBPerClient: round(o.rssBytesPerClient / 1024, 2),
    heapKiBPerClient: round(o.heapBytesPerClient / 1024, 2),
    cpuMsPerUpdatePer1000P50: o.cpuMsPerUpdatePer1000P50,
    cpuMsPerUpdatePer1000Mean: o.cpuMsPerUpdatePer1000Mean,
  }));
}

/** Per round of a size: the last client over xDS, the floor and the ZooKeeper path. */
function roundRows(m: SizeMeasurement): Row[] {
  return m.xds.map((r, i) => ({
    clients: m.clients,
    round: r.round,
    request: r.failedOut ? 'failout' : 'restore',
    sendToWriteMs: round(r.toWriteMs),
    xdsP50Ms: round(percentile(r.fromWrite, 50)),
    xdsAllMs: round(Math.max(...r.fromWrite)),
    floorAllMs: m.floor[i] ? round(m.floor[i].allNotifiedMs) : '',
    transportAllMs: m.transportFloor?.rounds[i] ? round(m.transportFloor.rounds[i].allReceivedMs) : '',
    zkPathAllMs: m.zkPath?.[i] ? round(Math.max(...m.zkPath[i].fromWrite)) : '',
  }));
}

/** Prints every size, writes the results file and, for two sizes or more, the chart beside it. */
export async function reportXds(sizes: readonly { measurement: SizeMeasurement; summary: SizeSummary; setup: SizeSetup }[], p: XdsParameters, elapsedMs: number): Promise<void> {
  const rows: Row[] = [];
  for (const { measurement, summary: s, setup } of sizes) {
    const perRound = roundRows(measurement);
    rows.push(...perRound);
    const where = `${s.clients} clients, ${s.observers} observers, ${p.processes} processes`;
    printTable(`propagation over xDS: per round (ms from the handler's write; ${where}; "all" = the last client)`, perRound);
    printTable(`propagation over xDS vs the floor${s.zkPath ? ' and the ZooKeeper path' : ''} (ms; ${where}; over rounds, "all" = last client of a round, perClient = pooled)`, summaryRows(s));
    printTable(`observers: share, rerouting and cost (${where}; memory after a GC, CPU from the write until every client had it)`, observerRows(s));
    process.stdout.write(
      `targets at ${s.clients}: write → rerouted p99 ${s.xds.writeToRerouted.allP99} ms ${verdict(s.met.writeToReroutedP99)}; ` +
        `/ floor p99 ${s.ratioToFloor.p99} ${verdict(s.met.floorRatioP99)}; ` +
        `/ ZooKeeper path p99 ${s.xdsOverZk?.p99 ?? 'not run'} ${verdict(s.met.zkPathRatioP99)}` +
        ` (n/a: the issue states the first two at ${XDS_TARGET.atClients}, the third at ${XDS_TARGET.zkPathAtClients})\n` +
        `client processes' RSS after setup (MiB): ${setup.clientRssBytes.map(mib).join(' / ')}\n`,
    );
  }
  const last = sizes[sizes.length - 1]!.summary;
  const file = writeResults('propagation-xds', {
    parameters: { ...p },
    rows,
    // The headline (`npm run bench`'s summary reads it): the largest size.
    summary: { clients: last.clients, writeToRerouted: last.xds.writeToRerouted, ratioToFloor: last.ratioToFloor, xdsOverZk: last.xdsOverZk, transportOverFloor: last.transportOverFloor, met: last.met, targets: XDS_TARGET },
    sizes: sizes.map(({ summary, setup }) => ({ ...summary, setupMs: { floor: round(setup.floorMs), xdsClients: round(setup.xdsClientsMs), zkClients: setup.zkClientsMs === undefined ? null : round(setup.zkClientsMs) }, clientRssMiB: setup.clientRssBytes.map(mib) })),
    elapsedMs: round(elapsedMs),
    note:
      'Over xDS: each client its own XdsClient (own connection) listing observer i mod N first and the next as fallback, its own ' +
      'LoadBalancerState over xdsSources and ZooKeeperFailoutConfigProvider, following the cluster (and its peers through the provider); ' +
      'the time is from the handler\'s one ZooKeeper multi (SQS → poller → the real handler, as the ZooKeeper mode) until ' +
      'getFailoutConfig(cluster)?.isFailedOut() answers the new way. Observers: one process each, its own ZooKeeper session. ' +
      'Memory per client: the observer process\'s RSS and heap after a GC once its clients subscribed, minus before they came, divided by its ' +
      'clients. CPU per update per 1,000 clients: the observer process\'s CPU from just before the write until every client had the change, ' +
      'divided by its clients / 1,000. The floor (zk-fanout\'s watchers, under tsx as in the ZooKeeper mode) and the ZooKeeper path ' +
      '(the same compiled client worker, each client its own session) run against the same ZooKeeper in the same run. The transport ' +
      'floor (grpc-fanout): as many gRPC servers as observers push raw messages of the response\'s size to as many clients, each its own ' +
      'connection and stream, which ACK with messages of the ACK\'s size; from just before the push until the last client has it.',
  });
  if (sizes.length >= 2) {
    // Drawn from the file just written, through the chart's own reader: what `npm run bench -- charts` draws from its copy.
    const run = readXdsGrowth(file);
    const svg = join(dirname(file), 'propagation-xds.svg');
    writeFileSync(svg, await renderSvg(propagationXdsSpec(run, xdsGrowthPoints(run))));
    process.stdout.write(`chart written to ${svg}\n`);
  }
}
