// bench/propagation, xDS mode: the figures of one size from what was measured. Pure (rounds and
// samples in, summary out), for the report and its test: write → rerouted over xDS against the
// ZooKeeper fan-out floor and the ZooKeeper-discovery path of the same run, per observer too, and
// what each observer costs per client it serves.
import { overRounds as stats, percentile, round, type OverRounds as Stats } from '../lib/report';
import { mean } from '../lib/workers';
import { clientsPerObserver, primaryObserver } from './assignment';
import type { Round } from './rounds';

/** Targets of issue 25 ("Speed"), and the client count each is stated at. */
export const XDS_TARGET = {
  /** ZooKeeper write → all clients rerouted over xDS, p99 over rounds, at 10,000 clients. */
  writeToReroutedP99Ms: 1000,
  /** That p99 over the ZooKeeper fan-out floor's, same run, at 10,000 clients. */
  floorRatioP99: 0.6,
  /** At 1,000 clients: over xDS ÷ over ZooKeeper discovery (the same writes, the same run), p99. */
  zkPathRatioP99: 1.2,
  /** Where the issue states the first two. */
  atClients: 10_000,
  /** Where the issue states the third. */
  zkPathAtClients: 1000,
} as const;

/** One observer's readings: memory before its clients came and once they subscribed, CPU per measured round. */
export interface ObserverSample {
  readonly before: { readonly rssBytes: number; readonly heapUsedBytes: number };
  readonly after: { readonly rssBytes: number; readonly heapUsedBytes: number };
  /** ADS streams the observer had once every client was set up (its clients, if none fell back). */
  readonly streams: number;
  /** Per measured round: the process's CPU from just before the write until every client had the change. */
  readonly cpuMs: readonly number[];
}

/** A floor round as bench/zk-fanout measures it: the last watcher, and every watcher. */
export interface FloorRound {
  readonly allNotifiedMs: number;
  readonly latencies: readonly number[];
}

/**
 * The transport floor at one size (bench/grpc-fanout): raw messages of the xDS response's size pushed
 * to as many streams, each acknowledged with a message of the ACK's size.
 */
export interface TransportFloor {
  readonly rounds: readonly { readonly allReceivedMs: number; readonly latencies: readonly number[] }[];
  /** Bytes of each pushed message: the encoded SotW response the xDS clients received. */
  readonly response: number;
  /** Bytes of each acknowledgement: the clients' ACK. */
  readonly ack: number;
}

/** What was measured at one size. */
export interface SizeMeasurement {
  readonly clients: number;
  readonly observers: number;
  readonly xds: readonly Round[];
  readonly floor: readonly FloorRound[];
  /** The transport floor, when it ran. */
  readonly transportFloor?: TransportFloor;
  /** The ZooKeeper-discovery path, when it ran. */
  readonly zkPath: readonly Round[] | undefined;
  readonly observerSamples: readonly ObserverSample[];
}

/** One observer's share and cost. */
export interface ObserverSummary {
  readonly observer: number;
  /** Clients whose primary it is. */
  readonly clients: number;
  readonly streams: number;
  /** Write → the last of its clients rerouted, over rounds. */
  readonly writeToAllP50Ms: number;
  readonly writeToAllP99Ms: number;
  readonly rssBytesPerClient: number;
  readonly heapBytesPerClient: number;
  /** The observer's CPU for one pushed update, per 1,000 of its clients: median and mean over rounds. */
  readonly cpuMsPerUpdatePer1000P50: number;
  readonly cpuMsPerUpdatePer1000Mean: number;
}

/** A target's verdict: met or not, or `null` at a size the issue does not state it for. */
export type Verdict = boolean | null;

const lastOf = (xs: readonly number[]): number => Math.max(...xs);
const ratio = (a: number, b: number): number => (b > 0 ? round(a / b) : NaN);

/** The two figures of a path: write → rerouted and SQS send → rerouted. */
function path(rounds: readonly Round[]): { writeToRerouted: Stats; endToEnd: Stats } {
  return {
    writeToRerouted: stats(rounds.map((r) => lastOf(r.fromWrite)), rounds.flatMap((r) => r.fromWrite)),
    endToEnd: stats(rounds.map((r) => lastOf(r.endToEnd)), rounds.flatMap((r) => r.endToEnd)),
  };
}

/** Per observer: its clients' rerouting (client i is on observer i mod N) and its cost per client. */
export function observerSummaries(m: Pick<SizeMeasurement, 'clients' | 'observers' | 'xds' | 'observerSamples'>): ObserverSummary[] {
  const shares = clientsPerObserver(m.clients, m.observers);
  return shares.map((clients, o) => {
    const perRound = m.xds.map((r) => {
      let last = 0;
      r.fromWrite.forEach((t, i) => {
        if (primaryObserver(i, m.observers) === o && t > last) last = t;
      });
      return last;
    });
    const sample = m.observerSamples[o];
    const per1000 = (sample?.cpuMs ?? []).map((ms) => (clients > 0 ? ms / (clients / 1000) : NaN));
    const perClient = (after: number, before: number): number => (clients > 0 ? round((after - before) / clients, 0) : NaN);
    return {
      observer: o,
      clients,
      streams: sample?.streams ?? 0,
      writeToAllP50Ms: round(percentile(perRound, 50)),
      writeToAllP99Ms: round(percentile(perRound, 99)),
      rssBytesPerClient: sample ? perClient(sample.after.rssBytes, sample.before.rssBytes) : NaN,
      heapBytesPerClient: sample ? perClient(sample.after.heapUsedBytes, sample.before.heapUsedBytes) : NaN,
      cpuMsPerUpdatePer1000P50: round(percentile(per1000, 50)),
      cpuMsPerUpdatePer1000Mean: round(mean(per1000)),
    };
  });
}

/** The summary of one size: the paths, the ratios, the verdicts (only where the issue states a target) and the observers. */
export function summarizeSize(m: SizeMeasurement) {
  const xds = path(m.xds);
  const floor = stats(m.floor.map((r) => r.allNotifiedMs), m.floor.flatMap((r) => r.latencies));
  const zk = m.zkPath ? path(m.zkPath) : undefined;
  const ratioToFloor = { p50: ratio(xds.writeToRerouted.allP50, floor.allP50), p99: ratio(xds.writeToRerouted.allP99, floor.allP99) };
  const xdsOverZk = zk ? { p50: ratio(xds.writeToRerouted.allP50, zk.writeToRerouted.allP50), p99: ratio(xds.writeToRerouted.allP99, zk.writeToRerouted.allP99) } : undefined;
  const zkOverFloor = zk ? { p50: ratio(zk.writeToRerouted.allP50, floor.allP50), p99: ratio(zk.writeToRerouted.allP99, floor.allP99) } : undefined;
  const t = m.transportFloor;
  const transport = t && { ...stats(t.rounds.map((r) => r.allReceivedMs), t.rounds.flatMap((r) => r.latencies)), responseBytes: t.response, ackBytes: t.ack };
  // What the transport alone leaves of the targets: over xDS against it, and it against the ZooKeeper floor.
  const xdsOverTransport = transport && { p50: ratio(xds.writeToRerouted.allP50, transport.allP50), p99: ratio(xds.writeToRerouted.allP99, transport.allP99) };
  const transportOverFloor = transport && { p50: ratio(transport.allP50, floor.allP50), p99: ratio(transport.allP99, floor.allP99) };
  const atScale = m.clients === XDS_TARGET.atClients;
  const met: { writeToReroutedP99: Verdict; floorRatioP99: Verdict; zkPathRatioP99: Verdict } = {
    writeToReroutedP99: atScale ? xds.writeToRerouted.allP99 <= XDS_TARGET.writeToReroutedP99Ms : null,
    floorRatioP99: atScale ? ratioToFloor.p99 <= XDS_TARGET.floorRatioP99 : null,
    zkPathRatioP99: m.clients === XDS_TARGET.zkPathAtClients && xdsOverZk ? xdsOverZk.p99 <= XDS_TARGET.zkPathRatioP99 : null,
  };
  return {
    clients: m.clients,
    observers: m.observers,
    rounds: m.xds.length,
    xds,
    floor,
    zkPath: zk,
    transport,
    ratioToFloor,
    xdsOverZk,
    zkOverFloor,
    xdsOverTransport,
    transportOverFloor,
    met,
    perObserver: observerSummaries(m),
  };
}
/** {@link summarizeSize}'s result. */
export type SizeSummary = ReturnType<typeof summarizeSize>;
