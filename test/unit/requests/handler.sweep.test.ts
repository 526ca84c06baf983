/**
 * The handler runs the writer's record sweep after each batch (issue 14: records are pruned after a
 * retention). The sweep never decides a record's fate: it runs after the batch is processed, and a
 * sweep that fails is logged, never turned into batch item failures.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSEvent } from 'aws-lambda';
import { type Outcome } from '../../../lib/requests/request-writer';
import { type SweepResult } from '../../../lib/requests/record-sweeper';
import { createHandler, type RequestProcessor } from '../../../lib/requests/lambda';
import { sqsRecord } from '../../helpers/requests';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const context = { functionName: 'failout-requests', awsRequestId: 'aws-req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

function writer(executed: string[], sweep: () => Promise<SweepResult | undefined>): RequestProcessor {
  return {
    async process(body, meta): Promise<Outcome> {
      const { id } = JSON.parse(body) as { id: string };
      executed.push(`process ${id}`);
      const record = { requestId: id, status: 'applied' as const, cluster: 'c', action: 'restore' as const, appliedAt: 0, clusterVersion: 1, messageId: meta.messageId };
      return { status: 'applied', requestId: id, cluster: 'c', record, attempts: 1 };
    },
    sweepIfDue: async () => {
      executed.push('sweep');
      return sweep();
    },
  };
}

const event = (...ids: string[]): SQSEvent => ({ Records: ids.map((id) => sqsRecord({ id }, 'A', id)) });
const deps = { logger: new Logger({ logLevel: 'SILENT' }), metrics: new Metrics({ namespace: 'failout-test' }) };

describe('failout-requests handler: record retention', () => {
  it('sweeps once per batch, after every record of it', async () => {
    const executed: string[] = [];
    const handler = createHandler({ ...deps, writer: writer(executed, async () => undefined) });
    expect(await handler(event('a1', 'a2'), context)).toEqual({ batchItemFailures: [] });
    expect(executed).toEqual(['process a1', 'process a2', 'sweep']);
  });

  it('acknowledges the batch even when the sweep fails', async () => {
    const executed: string[] = [];
    const handler = createHandler({ ...deps, writer: writer(executed, async () => Promise.reject(new Error('zookeeper said no'))) });
    expect(await handler(event('a1'), context)).toEqual({ batchItemFailures: [] });
    expect(executed).toEqual(['process a1', 'sweep']);
  });

  it('skips the sweep, without asking for a writer again, when no record got one (ZooKeeper down at a cold start)', async () => {
    let calls = 0;
    const handler = createHandler({
      ...deps,
      writer: async () => {
        calls++;
        throw new Error('no session');
      },
    });
    const response = await handler(event('a1'), context);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a1']);
    expect(calls).toBe(1);
  });
});
