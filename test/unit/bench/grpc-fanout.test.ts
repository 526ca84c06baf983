/**
 * bench/grpc-fanout, the transport floor of D2 over xDS: its command line, the message layout both
 * sides share, and the figures of a measurement (the last client over rounds, CPU per 1,000 clients).
 * The measurement itself forks gRPC servers and clients: `npm run bench -- grpc-fanout`.
 */
import { parameters, summarizeGrpcFanout, type GrpcFanoutMeasurement } from '../../../bench/grpc-fanout';
import { HELLO_ROUND, message, roundOf } from '../../../bench/grpc-fanout/wire';

describe('grpc-fanout bench', () => {
  it('reads its defaults and never runs more servers or processes than clients', () => {
    expect(parameters([])).toMatchObject({ clients: 1000, servers: 4, bytes: 2048, ackBytes: 160, processes: 4, rounds: 20, warmup: 2, semiSpaceMb: 64 });
    expect(parameters([]).clientFlags).toEqual(['--expose-gc', '--max-semi-space-size=64']);
    expect(parameters(['--clients', '3', '--servers', '8'])).toMatchObject({ clients: 3, servers: 3, processes: 3 });
    expect(parameters(['--semi-space-mb', '0']).clientFlags).toEqual(['--expose-gc']);
  });

  it.each([[['--bytes', '2']], [['--servers', '0']], [['--observers', '4']]])('refuses %j', (args) => {
    expect(() => parameters(args)).toThrow();
  });

  it('carries the round in a message of the asked size, the hello included', () => {
    const m = message(7, 2048);
    expect(m.length).toBe(2048);
    expect(roundOf(m)).toBe(7);
    expect(roundOf(message(HELLO_ROUND, 1))).toBe(HELLO_ROUND);
    expect(roundOf(Buffer.alloc(2))).toBeNaN();
  });

  it('sums the servers’ and the client processes’ CPU per round, per 1,000 clients, median over rounds', () => {
    const m: GrpcFanoutMeasurement = {
      setupMs: 1,
      streams: [2, 2],
      rounds: [
        { round: 1, allReceivedMs: 90, latencies: [10, 90, 50, 60], serverCpuMs: [1, 1], clientCpuMs: [2, 2] },
        { round: 2, allReceivedMs: 30, latencies: [10, 30, 20, 20], serverCpuMs: [2, 2], clientCpuMs: [3, 3] },
        { round: 3, allReceivedMs: 40, latencies: [40, 40, 40, 40], serverCpuMs: [3, 3], clientCpuMs: [1, 1] },
      ],
    };
    const s = summarizeGrpcFanout(m, 4);
    expect(s.allReceived).toMatchObject({ allP50: 40, allMax: 90 });
    // 4 ms of server CPU for 4 clients: 1,000 ms per 1,000 clients.
    expect(s.serverCpuMsPer1000).toBe(1000);
    expect(s.clientCpuMsPer1000).toBe(1000);
  });
});
