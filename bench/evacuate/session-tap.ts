// bench/evacuate: the benchmark's only instrumentation of the request worker. Its session's `multi`
// is wrapped to note when each transaction is sent, when ZooKeeper answered, how many operations it
// held and its payload (paths and data): the worker's write, told apart from its judgement. Its reads
// are counted, to say what the judgement's time is made of.
import type { MultiOp, ZkReader, ZkWriter } from '../../lib/zk';
import { clock } from '../lib/workers';

/** One multi the worker sent. */
export interface TappedMulti {
  /** {@link clock} time the multi was sent. */
  readonly sentAt: number;
  /** {@link clock} time ZooKeeper answered (success or failure). */
  readonly doneAt: number;
  readonly ops: number;
  /** Bytes of the operations' paths and data: what the request carries, less jute's framing. */
  readonly bytes: number;
  readonly ok: boolean;
}

/** Paths and data of `ops` in bytes (UTF-8). */
export function multiPayloadBytes(ops: readonly MultiOp[]): number {
  let bytes = 0;
  for (const op of ops) bytes += Buffer.byteLength(op.path) + ('data' in op && op.data ? op.data.length : 0);
  return bytes;
}

/** Wraps `session.multi` in place; every multi from then on is appended to the returned list. */
export function tapMultis(session: Pick<ZkWriter, 'multi'>): TappedMulti[] {
  const tapped: TappedMulti[] = [];
  const multi = session.multi.bind(session);
  session.multi = async (ops) => {
    const sentAt = clock();
    const bytes = multiPayloadBytes(ops);
    try {
      const result = await multi(ops);
      tapped.push({ sentAt, doneAt: clock(), ops: ops.length, bytes, ok: true });
      return result;
    } catch (err) {
      tapped.push({ sentAt, doneAt: clock(), ops: ops.length, bytes, ok: false });
      throw err;
    }
  };
  return tapped;
}

/** The largest successful multi in `tapped` (the evacuation's write; the others are records and views), or undefined. */
export function largestMulti(tapped: readonly TappedMulti[]): TappedMulti | undefined {
  let best: TappedMulti | undefined;
  for (const m of tapped) if (m.ok && (!best || m.ops > best.ops)) best = m;
  return best;
}

/**
 * Read requests a session sent to ZooKeeper, by method, since {@link tapReads} (reset by the caller
 * between requests). `read` is not counted on its own: it goes through `get`.
 */
export type ReadCounts = Record<'get' | 'exists' | 'children', number>;

/** Wraps the session's read methods in place to count calls into the returned record. */
export function tapReads(session: ZkReader): ReadCounts {
  const counts: ReadCounts = { get: 0, exists: 0, children: 0 };
  for (const name of Object.keys(counts) as (keyof ReadCounts)[]) {
    const original = session[name].bind(session) as (path: string) => Promise<unknown>;
    (session as unknown as Record<string, (path: string) => Promise<unknown>>)[name] = (path: string) => {
      counts[name]++;
      return original(path);
    };
  }
  return counts;
}

/** The total of `counts`, and zeroes them. */
export function takeReads(counts: ReadCounts): number {
  let total = 0;
  for (const name of Object.keys(counts) as (keyof ReadCounts)[]) {
    total += counts[name];
    counts[name] = 0;
  }
  return total;
}
