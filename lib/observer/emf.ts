/**
 * CloudWatch embedded metric format (EMF) for the observer's alarmable gauges, as the bridge does it
 * (`lib/bridge/emf.ts`, not imported: the two wings stay apart): on Fargate stdout goes to CloudWatch
 * Logs through the awslogs driver, which extracts metrics from any JSON line with an `_aws` block, so
 * one line a minute carries the deployment's "not ready" and "ZooKeeper lag" alarms with no agent, no
 * SDK call and no IAM permission. `/metrics` (Prometheus) stays the rich view.
 *
 * Metrics (namespace from the caller, one dimension `service`):
 * - `Ready`: 1 while `/readyz` would answer 200, else 0.
 * - `ZkDisconnectedSeconds`: how long the ZooKeeper session has been disconnected (0 while connected):
 *   the bound on how far the served view may lag ZooKeeper (a connected session's watches deliver).
 */
import type { ObserverStatus } from './observer';

/** The metric names, shared with the CDK alarms (`infra/lib/d2-observer-service.ts`). */
export const OBSERVER_EMF_METRICS = { ready: 'Ready', zkDisconnectedSeconds: 'ZkDisconnectedSeconds' } as const;

/** What the reporter reads: {@link D2Observer.status} fits. */
export interface ObserverEmfSource {
  status(): Pick<ObserverStatus, 'ready' | 'zkDisconnectedSeconds'>;
}

/** Options of {@link startObserverEmfReporter}. */
export interface ObserverEmfOptions {
  /** CloudWatch namespace, e.g. `failout`. */
  readonly namespace: string;
  /** Value of the `service` dimension. Default `d2-observer`. */
  readonly service?: string;
  /** Time between lines. Default 60 000 ms (CloudWatch's standard resolution). */
  readonly intervalMs?: number;
  /** Where lines go. Default: `process.stdout`, one line each. */
  readonly write?: (line: string) => void;
  /** Epoch ms for the `Timestamp`. Default `Date.now`. */
  readonly clock?: () => number;
}

/** One EMF record for a status snapshot. */
export function observerEmfRecord(status: ReturnType<ObserverEmfSource['status']>, options: { namespace: string; service: string; timestamp: number }): Record<string, unknown> {
  return {
    _aws: {
      Timestamp: options.timestamp,
      CloudWatchMetrics: [{ Namespace: options.namespace, Dimensions: [['service']], Metrics: [{ Name: OBSERVER_EMF_METRICS.ready, Unit: 'None' }, { Name: OBSERVER_EMF_METRICS.zkDisconnectedSeconds, Unit: 'Seconds' }] }],
    },
    service: options.service,
    [OBSERVER_EMF_METRICS.ready]: status.ready ? 1 : 0,
    [OBSERVER_EMF_METRICS.zkDisconnectedSeconds]: Math.round(status.zkDisconnectedSeconds),
  };
}

/**
 * Writes one EMF line now and one every `intervalMs` until `close()`. The timer is unref'd (it never
 * keeps the process alive); a failing `status()` skips that line rather than crashing the observer.
 */
export function startObserverEmfReporter(source: ObserverEmfSource, options: ObserverEmfOptions): { close(): void } {
  const service = options.service ?? 'd2-observer';
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const clock = options.clock ?? Date.now;
  const emit = (): void => {
    try {
      write(`${JSON.stringify(observerEmfRecord(source.status(), { namespace: options.namespace, service, timestamp: clock() }))}\n`);
    } catch {
      // Skipped: the alarms treat a missing minute as they are configured to.
    }
  };
  emit();
  const timer = setInterval(emit, options.intervalMs ?? 60_000);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
