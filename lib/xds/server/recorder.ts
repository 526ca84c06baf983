/**
 * What the management server saw, for tests: ADS streams, requests (classified), responses, LRS reports.
 *
 * Public names (stable):
 * - `ServerRecorder` — `new ServerRecorder(recordResourceNames = true)`; `streams`, `requests`, `responses`, `loadReports`, getters `acks` / `nacks` /
 *   `staleRequests`, `waitFor(predicate, timeoutMs?)`, `reset()`.
 * - `RequestClassification` — 'initial' | 'ack' | 'nack' | 'stale'.
 * - `RecordedStream`, `RecordedRequest`, `RecordedResponse`, `RecordedLoadReport`.
 */
import type { ClusterStatsMessage } from '../protos';

/**
 * How the server read a request (xds_protocol.rst "ACK and NACK semantics"):
 * - 'initial': the first request for a type on a stream (no response sent for that type yet).
 * - 'ack' / 'nack': response_nonce is the last nonce sent for the type; a NACK has error_detail.
 * - 'stale': response_nonce (including '') differs from the last nonce sent: IGNORED.
 */
export type RequestClassification = 'initial' | 'ack' | 'nack' | 'stale';

/** One ADS or LRS stream. */
export interface RecordedStream {
  readonly id: number;
  readonly service: 'ads' | 'lrs';
  readonly openedAt: number;
  nodeId: string | undefined;
  closedAt: number | undefined;
}

/** One DiscoveryRequest as received. */
export interface RecordedRequest {
  readonly at: number;
  readonly streamId: number;
  readonly nodeId: string;
  readonly typeUrl: string;
  readonly versionInfo: string;
  /** Empty when the recorder was built with `recordResourceNames: false`; see `resourceNameCount`. */
  readonly resourceNames: readonly string[];
  readonly resourceNameCount: number;
  readonly responseNonce: string;
  readonly errorDetail: { readonly code: number; readonly message: string } | undefined;
  readonly classification: RequestClassification;
}

/** One DiscoveryResponse (sent, or dropped by a fault). */
export interface RecordedResponse {
  readonly at: number;
  readonly streamId: number;
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly nonce: string;
  /** Empty when the recorder was built with `recordResourceNames: false`; see `resourceCount`. */
  readonly resourceNames: readonly string[];
  readonly resourceCount: number;
  readonly dropped: boolean;
}

/** One LoadStatsRequest. */
export interface RecordedLoadReport {
  readonly at: number;
  readonly streamId: number;
  readonly nodeId: string;
  readonly clusterStats: readonly ClusterStatsMessage[];
}

/** Append-only logs with change notification. */
export class ServerRecorder {
  readonly streams: RecordedStream[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly responses: RecordedResponse[] = [];
  readonly loadReports: RecordedLoadReport[] = [];
  private readonly waiters = new Set<() => void>();

  /**
   * @param recordResourceNames false keeps only name counts: a peer client that resends every name on
   *   every change (grpc-js-xds at N = 10,000 sends ~100 M names) would otherwise fill the heap.
   */
  constructor(readonly recordResourceNames = true) {}

  /** The names to store for a request/response under this recorder's policy. */
  names(names: readonly string[]): readonly string[] {
    return this.recordResourceNames ? [...names] : [];
  }

  /** Requests that ACKed a response. */
  get acks(): RecordedRequest[] {
    return this.requests.filter((r) => r.classification === 'ack');
  }

  /** Requests that NACKed a response (error_detail set). */
  get nacks(): RecordedRequest[] {
    return this.requests.filter((r) => r.classification === 'nack');
  }

  /** Requests ignored under the stale-nonce rule. */
  get staleRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.classification === 'stale');
  }

  /** Called by the server after every record. */
  notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with the first truthy value of `predicate`, checked now and after every record;
   * rejects after `timeoutMs`.
   */
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): boolean => {
        const value = predicate();
        if (!value) return false;
        cleanup();
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`ServerRecorder.waitFor timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (): void => void check();
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      this.waiters.add(waiter);
      check();
    });
  }

  /** Empties every log (open streams stay listed). */
  reset(): void {
    this.requests.length = 0;
    this.responses.length = 0;
    this.loadReports.length = 0;
    const open = this.streams.filter((s) => s.closedAt === undefined);
    this.streams.length = 0;
    this.streams.push(...open);
  }
}
