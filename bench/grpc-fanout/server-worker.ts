// Child process of bench/grpc-fanout: one gRPC server on loopback (as one observer replica serves its
// ADS streams). Each stream gets a hello when it opens; per round the parent has it write one message
// on every open stream, the same bytes for all (as the observer encodes a response once for all its
// subscribers). It reads the clients' acknowledgements and answers nothing to them.
import * as grpc from '@grpc/grpc-js';
import { cpuSince, sendToParent, serveWorker } from '../lib/workers';
import type { FromServerWorker, ToServerWorker } from './protocol';
import { HELLO_ROUND, STREAM, message } from './wire';

type Stream = grpc.ServerDuplexStream<Buffer, Buffer>;

const streams = new Set<Stream>();
let acks = 0;
let server: grpc.Server | undefined;
let armed: { round: number; cpu: NodeJS.CpuUsage } | undefined;
const hello = message(HELLO_ROUND, 4);

function send(reply: FromServerWorker): void {
  sendToParent(reply);
}

function serve(stream: Stream): void {
  streams.add(stream);
  const drop = (): void => void streams.delete(stream);
  stream.on('data', () => void acks++);
  stream.on('end', () => {
    drop();
    stream.end();
  });
  stream.on('error', drop);
  stream.on('cancelled', drop);
  stream.write(hello);
}

async function start(): Promise<void> {
  const s = new grpc.Server();
  server = s;
  s.addService({ Stream: STREAM }, { Stream: serve });
  const port = await new Promise<number>((resolve, reject) => s.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))));
  send({ type: 'ready', address: `127.0.0.1:${port}` });
}

serveWorker<ToServerWorker>({
  onMessage: (m) => {
    if (m.type === 'init') return start();
    if (m.type === 'arm') {
      armed = { round: m.round, cpu: process.cpuUsage() };
      send({ type: 'armed', round: m.round });
    } else if (m.type === 'push') {
      const bytes = message(m.round, m.bytes);
      for (const stream of streams) stream.write(bytes);
      send({ type: 'pushed', round: m.round, streams: streams.size });
    } else if (m.type === 'cpu') {
      send({ type: 'cpu', round: m.round, cpuMs: armed?.round === m.round ? cpuSince(armed.cpu) : 0 });
    } else if (m.type === 'streams') {
      send({ type: 'streams', streams: streams.size, acks });
    }
  },
  close: async () => {
    for (const stream of streams) stream.end();
    server?.forceShutdown();
  },
});
