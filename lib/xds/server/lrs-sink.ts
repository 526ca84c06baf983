/**
 * LRS sink: accepts `StreamLoadStats`, asks for every cluster at a fixed interval, records reports.
 *
 * Public names (stable):
 * - `LrsSink` — `handle(call)` (the grpc handler), `setReportInterval(ms)`, `closeAll()`, getter `activeStreams`.
 */
import type * as grpc from '@grpc/grpc-js';
import type { LoadStatsRequest, LoadStatsResponse } from '../protos';
import type { ServerRecorder } from './recorder';

type LrsCall = grpc.ServerDuplexStream<LoadStatsRequest, LoadStatsResponse>;

/** Records LoadStatsRequests into a {@link ServerRecorder}. */
export class LrsSink {
  private readonly open = new Set<LrsCall>();

  constructor(
    private readonly recorder: ServerRecorder,
    private readonly nextStreamId: () => number,
    private reportIntervalMs: number,
  ) {}

  /** Number of LRS streams open now. */
  get activeStreams(): number {
    return this.open.size;
  }

  /** Interval asked of clients in the first LoadStatsResponse of later streams. */
  setReportInterval(ms: number): void {
    this.reportIntervalMs = ms;
  }

  /** The `StreamLoadStats` handler. */
  handle(call: LrsCall): void {
    const stream = { id: this.nextStreamId(), service: 'lrs' as const, openedAt: Date.now(), nodeId: undefined as string | undefined, closedAt: undefined as number | undefined };
    this.recorder.streams.push(stream);
    this.open.add(call);
    const closed = (): void => {
      if (stream.closedAt !== undefined) return;
      stream.closedAt = Date.now();
      this.open.delete(call);
      this.recorder.notify();
    };
    call.on('data', (req: LoadStatsRequest) => {
      const first = stream.nodeId === undefined;
      stream.nodeId ??= req.node?.id ?? '';
      this.recorder.loadReports.push({ at: Date.now(), streamId: stream.id, nodeId: stream.nodeId, clusterStats: req.cluster_stats ?? [] });
      if (first) {
        const ms = this.reportIntervalMs;
        call.write({
          clusters: [],
          send_all_clusters: true,
          load_reporting_interval: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 },
        });
      }
      this.recorder.notify();
    });
    call.on('end', () => {
      call.end();
      closed();
    });
    call.on('error', closed);
    call.on('cancelled', closed);
    call.on('close', closed);
    this.recorder.notify();
  }

  /** Ends every open LRS stream with UNAVAILABLE. */
  closeAll(): void {
    for (const call of this.open) call.emit('error', Object.assign(new Error('server stopping'), { code: 14 }));
    this.open.clear();
  }
}
