// Child process of bench/grpc-fanout: N gRPC clients, each its own channel (its own connection: the
// local subchannel pool lib/xds's channels use) holding one bidirectional stream to server i mod S.
// Each message is acknowledged with a small message, as an xDS client ACKs every response; per round
// it reports when each client had the round's message.
import * as grpc from '@grpc/grpc-js';
import { clock, cpuSince, inLanes, sendToParent, serveWorker, settleHeap } from '../lib/workers';
import type { FromClientWorker, ToClientWorker } from './protocol';
import { HELLO_ROUND, STREAM, message, roundOf } from './wire';

type Init = Extract<ToClientWorker, { type: 'init' }>;

/** lib/xds/channel.ts's transport options that shape the connection (keepalive, one connection per channel). */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 300_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.use_local_subchannel_pool': 1,
  'grpc.enable_retries': 0,
};

const clients: grpc.Client[] = [];
const calls: grpc.ClientDuplexStream<Buffer, Buffer>[] = [];
let current: { round: number; times: number[]; remaining: number; cpu: NodeJS.CpuUsage } | undefined;

function send(reply: FromClientWorker): void {
  sendToParent(reply);
}

function onMessage(index: number, bytes: Buffer, ack: Buffer): void {
  const at = clock();
  calls[index]?.write(ack);
  const round = current;
  if (!round || roundOf(bytes) !== round.round || round.times[index] !== 0) return;
  round.times[index] = at;
  if (--round.remaining === 0) {
    current = undefined;
    send({ type: 'received', round: round.round, times: round.times, cpuMs: cpuSince(round.cpu) });
  }
}

/** Opens client `index`'s channel and stream; resolves once the server's hello arrived. */
function startClient(init: Init, index: number, ack: Buffer): Promise<void> {
  const server = init.servers[(init.first + index) % init.servers.length]!;
  const client = new grpc.Client(server, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  clients[index] = client;
  const call = client.makeBidiStreamRequest(STREAM.path, STREAM.requestSerialize, STREAM.responseDeserialize);
  calls[index] = call;
  return new Promise<void>((resolve, reject) => {
    call.once('error', reject);
    call.on('data', (bytes: Buffer) => {
      if (roundOf(bytes) === HELLO_ROUND) resolve();
      onMessage(index, bytes, ack);
    });
    call.write(ack);
  });
}

async function setup(init: Init): Promise<void> {
  const started = clock();
  const ack = message(HELLO_ROUND, init.ackBytes);
  await inLanes(init.clients, init.connectConcurrency, (index) => startClient(init, index, ack));
  settleHeap();
  send({ type: 'ready', clients: init.clients, setupMs: clock() - started });
}

serveWorker<ToClientWorker>({
  onMessage: (m) => {
    if (m.type === 'init') return setup(m);
    if (m.type === 'arm') {
      current = { round: m.round, times: new Array<number>(calls.length).fill(0), remaining: calls.length, cpu: process.cpuUsage() };
      send({ type: 'armed', round: m.round });
    }
  },
  close: async () => {
    current = undefined;
    for (const call of calls) call.end();
    for (const client of clients) client.close();
  },
});
