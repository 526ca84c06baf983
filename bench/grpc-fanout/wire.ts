// The one method both sides of bench/grpc-fanout speak: a bidirectional stream of raw bytes (no
// protobuf on either side, so what is measured is grpc-js and HTTP/2 alone), and the message layout.
import type { MethodDefinition } from '@grpc/grpc-js';

const raw = (bytes: Buffer): Buffer => bytes;

/** `/failout.bench.Fanout/Stream`: bytes in, bytes out, as ADS's StreamAggregatedResources is messages in, messages out. */
export const STREAM: MethodDefinition<Buffer, Buffer> = {
  path: '/failout.bench.Fanout/Stream',
  requestStream: true,
  responseStream: true,
  requestSerialize: raw,
  requestDeserialize: raw,
  responseSerialize: raw,
  responseDeserialize: raw,
};

/** The round a server's first message on a stream carries: "you are connected". */
export const HELLO_ROUND = -1;

/** A message of `bytes` bytes (at least 4) whose first four carry `round`. */
export function message(round: number, bytes: number): Buffer {
  const out = Buffer.alloc(Math.max(4, bytes), 0x2a);
  out.writeInt32LE(round, 0);
  return out;
}

/** The round a message carries. */
export const roundOf = (message: Buffer): number => (message.length >= 4 ? message.readInt32LE(0) : Number.NaN);
