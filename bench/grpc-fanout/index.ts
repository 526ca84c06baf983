// bench/grpc-fanout: the transport floor of D2 over xDS. S gRPC servers (one process each, as the
// observer replicas) each write one message of B bytes on every open bidirectional stream; C clients
// (over P processes, each its own channel and connection, as each xDS client holds its ADS stream)
// acknowledge it, as an xDS client ACKs each response. Measured: from just before the servers are told
// to write until every client has the message, and the servers' CPU per pushed message. No protobuf,
// no ZooKeeper, no D2: what grpc-js and HTTP/2 alone cost per message on this machine, for the
// observer tier's numbers to be read against (bench/propagation --discovery xds runs it in the same
// run, with B the size of the response its clients receive).
// `npm run bench -- grpc-fanout [--clients 1000] [--servers 4] [--bytes 2048] [--ack-bytes 160]
// [--processes 4] [--rounds 20] [--warmup 2] [--semi-space-mb 64]`.
import { join } from 'node:path';
import { createLogger, type Logger } from '../../lib/logging';
import { FANOUT_OPTIONS, fanoutParameters, parseIntOptions, type FanoutParameters } from '../lib/args';
import { overRounds, percentile, printTable, round, writeResults, type OverRounds, type Row } from '../lib/report';
import { calibrate, clock, mean, sleep, spawnWorker, split, type BenchWorker } from '../lib/workers';
import type { FromClientWorker, FromServerWorker, ToClientWorker, ToServerWorker } from './protocol';

type ServerWorker = BenchWorker<ToServerWorker, FromServerWorker>;
type ClientWorker = BenchWorker<ToClientWorker, FromClientWorker>;

/** Parameters of a grpc-fanout measurement. */
export interface GrpcFanoutParameters extends FanoutParameters {
  readonly clients: number;
  readonly servers: number;
  /** Size of each pushed message. */
  readonly bytes: number;
  /** Size of each acknowledgement. */
  readonly ackBytes: number;
  /** Node flags of the client processes (a benchmark that compares gives its own clients the same ones). */
  readonly clientFlags?: readonly string[];
}

/** One measured round. */
export interface GrpcFanoutRound {
  readonly round: number;
  /** The last client: the round's figure, as zk-fanout's `allNotifiedMs`. */
  readonly allReceivedMs: number;
  /** Every client's time from just before the push. */
  readonly latencies: readonly number[];
  /** Per server: its CPU from just before the push until every client had the message. */
  readonly serverCpuMs: readonly number[];
  /** Per client process: its CPU from 'arm' until its last client had the message. */
  readonly clientCpuMs: readonly number[];
}

/** What {@link measureGrpcFanout} measured. */
export interface GrpcFanoutMeasurement {
  readonly rounds: readonly GrpcFanoutRound[];
  readonly setupMs: number;
  /** Streams per server once every client had connected. */
  readonly streams: readonly number[];
}

/** Parses the command line; unknown flags and bad values fail with a message naming the flag. */
export function parameters(args: string[]): GrpcFanoutParameters & { readonly semiSpaceMb: number } {
  const v = parseIntOptions(args, {
    clients: { default: 1000, min: 1 },
    servers: { default: 4, min: 1 },
    bytes: { default: 2048, min: 4 },
    'ack-bytes': { default: 160, min: 4 },
    ...FANOUT_OPTIONS,
    'semi-space-mb': { default: 64, min: 0 },
  });
  const semiSpaceMb = v['semi-space-mb'];
  return {
    clients: v.clients,
    servers: Math.min(v.servers, v.clients),
    bytes: v.bytes,
    ackBytes: v['ack-bytes'],
    semiSpaceMb,
    clientFlags: ['--expose-gc', ...(semiSpaceMb > 0 ? [`--max-semi-space-size=${semiSpaceMb}`] : [])],
    ...fanoutParameters(v, v.clients),
  };
}

async function runRound(servers: readonly ServerWorker[], clients: readonly ClientWorker[], r: number, p: GrpcFanoutParameters): Promise<GrpcFanoutRound> {
  await Promise.all([...servers.map((w) => w.request({ type: 'arm', round: r }, 'armed', 5000, (m) => m.round === r)), ...clients.map((w) => w.request({ type: 'arm', round: r }, 'armed', 5000, (m) => m.round === r))]);
  const received = clients.map((w) => w.expect('received', p.roundTimeoutMs, (m) => m.round === r));
  // Keep the other workers' rejections from going unhandled while one fails first.
  for (const x of received) x.catch(() => undefined);
  const t0 = clock();
  await Promise.all(servers.map((w) => w.request({ type: 'push', round: r, bytes: p.bytes }, 'pushed', 5000, (m) => m.round === r)));
  const replies = await Promise.all(received);
  const serverCpu = await Promise.all(servers.map((w) => w.request({ type: 'cpu', round: r }, 'cpu', 5000, (m) => m.round === r)));
  const latencies = replies.flatMap((reply, i) => reply.times.map((t) => t - (clients[i]?.offsetMs ?? 0) - t0));
  return { round: r, allReceivedMs: Math.max(...latencies), latencies, serverCpuMs: serverCpu.map((c) => c.cpuMs), clientCpuMs: replies.map((x) => x.cpuMs) };
}

/**
 * Starts the servers and the clients, runs the warm-up and measured rounds, and stops every worker.
 * Reused by bench/propagation --discovery xds to measure the transport floor in the same run.
 */
export async function measureGrpcFanout(p: GrpcFanoutParameters, log: Logger): Promise<GrpcFanoutMeasurement> {
  const servers: ServerWorker[] = [];
  const clients: ClientWorker[] = [];
  try {
    // Compiled, as the observers and the xDS clients run.
    for (let i = 0; i < p.servers; i++) servers.push(spawnWorker<ToServerWorker, FromServerWorker>(join(__dirname, 'server-worker.ts'), i, 1, 'compiled', ['--expose-gc']));
    const addresses = (await Promise.all(servers.map((w) => w.request({ type: 'init' }, 'ready', 30_000)))).map((r) => r.address);
    const started = clock();
    let first = 0;
    split(p.clients, p.processes).forEach((n, i) => clients.push(spawnWorker<ToClientWorker, FromClientWorker>(join(__dirname, 'client-worker.ts'), i, n, 'compiled', p.clientFlags ?? [])));
    await Promise.all(
      clients.map((w) => {
        const init: ToClientWorker = { type: 'init', servers: addresses, first, clients: w.size, connectConcurrency: p.connectConcurrency, ackBytes: p.ackBytes };
        first += w.size;
        return w.request(init, 'ready', 60_000 + p.clients * 100);
      }),
    );
    const setupMs = clock() - started;
    for (const w of clients) await calibrate(w);
    const streams = (await Promise.all(servers.map((w) => w.request({ type: 'streams' }, 'streams', 5000)))).map((s) => s.streams);
    log.debug({ streams, setupMs }, 'grpc-fanout ready');
    const rounds: GrpcFanoutRound[] = [];
    for (let r = -p.warmup + 1; r <= p.rounds; r++) {
      const result = await runRound(servers, clients, r, p);
      if (r > 0) rounds.push(result);
      await sleep(p.gapMs);
    }
    return { rounds, setupMs, streams };
  } finally {
    await Promise.all([...clients, ...servers].map((w) => w.close()));
  }
}

/** The figures of a measurement: the last client over rounds, every client pooled, and the CPU per message. */
export function summarizeGrpcFanout(m: GrpcFanoutMeasurement, clients: number) {
  const allReceived: OverRounds = overRounds(
    m.rounds.map((r) => r.allReceivedMs),
    m.rounds.flatMap((r) => r.latencies),
  );
  const per1000 = (ms: number): number => (clients > 0 ? ms / (clients / 1000) : NaN);
  const serverCpu = m.rounds.map((r) => per1000(r.serverCpuMs.reduce((a, b) => a + b, 0)));
  const clientCpu = m.rounds.map((r) => per1000(r.clientCpuMs.reduce((a, b) => a + b, 0)));
  return {
    allReceived,
    /** All servers' CPU per pushed message, per 1,000 clients (median over rounds). */
    serverCpuMsPer1000: round(percentile(serverCpu, 50)),
    /** All client processes' CPU to receive and acknowledge one message, per 1,000 clients (median over rounds). */
    clientCpuMsPer1000: round(percentile(clientCpu, 50)),
  };
}

export default async function grpcFanout(args: string[]): Promise<void> {
  const p = parameters(args);
  const startedAt = clock();
  const log = createLogger('bench-grpc-fanout');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.stdout.write(`grpc-fanout: ${p.servers} servers → ${p.clients} clients (one connection and stream each) over ${p.processes} processes, ${p.bytes}-byte messages, ${p.ackBytes}-byte acknowledgements, ${p.rounds} rounds + ${p.warmup} warm-up\n`);
  try {
    const m = await measureGrpcFanout(p, log);
    const s = summarizeGrpcFanout(m, p.clients);
    const rows: Row[] = m.rounds.map((r) => ({
      round: r.round,
      clientP50Ms: round(percentile(r.latencies, 50)),
      allReceivedMs: round(r.allReceivedMs),
      serverCpuMs: round(r.serverCpuMs.reduce((a, b) => a + b, 0)),
      clientCpuMs: round(r.clientCpuMs.reduce((a, b) => a + b, 0)),
    }));
    printTable(`grpc-fanout: per round (ms; ${p.clients} clients, ${p.servers} servers, streams ${m.streams.join(' / ')})`, rows);
    printTable('grpc-fanout: summary (ms; "all" = the last client of a round, perClient = pooled)', [{ measurement: 'push → all clients have the message', ...s.allReceived }]);
    process.stdout.write(`CPU per message per 1,000 clients (median over rounds): servers ${s.serverCpuMsPer1000} ms, clients ${s.clientCpuMsPer1000} ms; setup ${round(m.setupMs / 1000, 1)} s\n`);
    writeResults('grpc-fanout', {
      parameters: { ...p },
      rows,
      summary: { ...s, setupMs: round(m.setupMs), streams: m.streams, meanAllReceivedMs: round(mean(m.rounds.map((r) => r.allReceivedMs))) },
      note:
        'Transport only: raw bytes over grpc-js bidirectional streams, each client its own channel with lib/xds\'s connection options, ' +
        'acknowledging every message. The time is from just before the servers are told to write (over IPC) until the last client has the ' +
        'message; times are performance.timeOrigin + performance.now() in each process, calibrated over IPC.',
    });
  } finally {
    process.stdout.write(`elapsed ${round((clock() - startedAt) / 1000, 1)} s\n`);
  }
}
