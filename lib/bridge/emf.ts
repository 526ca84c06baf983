/**
 * CloudWatch embedded metric format (EMF) for the bridge's alarmable gauges. On Fargate the container's
 * stdout goes to CloudWatch Logs through the awslogs driver, and CloudWatch Logs extracts metrics from
 * any JSON log event that carries an `_aws` block (the `x-amzn-logs-format` header is optional), so one
 * line a minute is enough for the deployment's "on a fallback server too long" and "not ready" alarms —
 * no agent sidecar, no SDK call, no IAM permission. The Prometheus `/metrics` endpoint stays the rich view.
 *
 * Metrics (namespace from the caller, one dimension `service`):
 * - `FallbackActive`: 1 while some authority is served by a lower-priority xDS server (gRFC A71), else 0.
 * - `Ready`: 1 while `/readyz` would answer 200, else 0.
 * - `Leader`: 1 while this replica writes to ZooKeeper, else 0.
 * `replicaId` and `role` ride along as plain fields for Logs Insights, not as dimensions.
 */
import type { BridgeStatus } from './bridge';

/** What the reporter reads: {@link XdsBridge.status} fits. */
export interface EmfSource {
  status(): Pick<BridgeStatus, 'replicaId' | 'role' | 'ready' | 'authorities'>;
}

/** Options of {@link startEmfReporter}. */
export interface EmfReporterOptions {
  /** CloudWatch namespace, e.g. `failout`. */
  readonly namespace: string;
  /** Value of the `service` dimension. Default `xds-bridge`. */
  readonly service?: string;
  /** Time between lines. Default 60 000 ms (CloudWatch's standard resolution). */
  readonly intervalMs?: number;
  /** Where lines go. Default: `process.stdout`, one line each. */
  readonly write?: (line: string) => void;
  /** Epoch ms for the `Timestamp`. Default `Date.now`. */
  readonly clock?: () => number;
}

/** The metric names, shared with the CDK alarms (`infra/lib/failout-alarms.ts`). */
export const BRIDGE_EMF_METRICS = { fallbackActive: 'FallbackActive', ready: 'Ready', leader: 'Leader' } as const;

/** One EMF record for a status snapshot. */
export function bridgeEmfRecord(status: ReturnType<EmfSource['status']>, options: { namespace: string; service: string; timestamp: number }): Record<string, unknown> {
  const fallback = status.authorities.some((a) => a.fallbackActive);
  return {
    _aws: {
      Timestamp: options.timestamp,
      CloudWatchMetrics: [
        {
          Namespace: options.namespace,
          Dimensions: [['service']],
          Metrics: Object.values(BRIDGE_EMF_METRICS).map((Name) => ({ Name, Unit: 'None' })),
        },
      ],
    },
    service: options.service,
    replicaId: status.replicaId,
    role: status.role,
    [BRIDGE_EMF_METRICS.fallbackActive]: fallback ? 1 : 0,
    [BRIDGE_EMF_METRICS.ready]: status.ready ? 1 : 0,
    [BRIDGE_EMF_METRICS.leader]: status.role === 'leader' ? 1 : 0,
  };
}

/** A running reporter. */
export interface EmfReporter {
  /** Stops the timer; no line is written afterwards. Idempotent. */
  close(): void;
}

/**
 * Writes one EMF line now and one every `intervalMs` until stopped. The timer is unref'd, so it never
 * keeps the process alive. A failing `status()` skips that line (the alarm treats a gap as it is
 * configured to) rather than crashing the bridge.
 */
export function startEmfReporter(source: EmfSource, options: EmfReporterOptions): EmfReporter {
  const service = options.service ?? 'xds-bridge';
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const clock = options.clock ?? Date.now;
  const emit = (): void => {
    let record: Record<string, unknown>;
    try {
      record = bridgeEmfRecord(source.status(), { namespace: options.namespace, service, timestamp: clock() });
    } catch {
      return;
    }
    write(`${JSON.stringify(record)}\n`);
  };
  emit();
  const timer = setInterval(emit, options.intervalMs ?? 60_000);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
