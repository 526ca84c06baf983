import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSEvent } from 'aws-lambda';
import { TransientRequestError } from '../../../lib/requests/errors';
import { type Outcome } from '../../../lib/requests/request-writer';
import { createHandler, type RequestProcessor } from '../../../lib/requests/lambda';
import { sqsRecord } from '../../helpers/requests';

process.env.POWERTOOLS_METRICS_NAMESPACE = 'failout-test';
process.env.POWERTOOLS_SERVICE_NAME = 'failout-requests-test';

const context = {
  functionName: 'failout-requests',
  functionVersion: '1',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:failout-requests',
  memoryLimitInMB: '256',
  awsRequestId: 'aws-req-1',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

type Kind = 'applied' | 'rejected' | 'duplicate' | 'transient' | 'broken';

/** A writer that does what each body says, and logs the order it was called in. */
function fakeWriter(executed: string[]): RequestProcessor {
  return {
    async process(body, meta): Promise<Outcome> {
      const { kind, id } = JSON.parse(body) as { kind: Kind; id: string };
      executed.push(id);
      if (kind === 'transient') throw new TransientRequestError('connectionLoss', 'zookeeper down');
      if (kind === 'broken') throw new Error('bug');
      const status = kind;
      const record = { requestId: id, status, cluster: 'c', action: 'failout' as const, appliedAt: 0, clusterVersion: 1, messageId: meta.messageId };
      return { status, requestId: id, cluster: 'c', record, attempts: 1, ...(kind === 'rejected' ? { reason: 'unknownPeer' as const } : {}) };
    },
  };
}

function event(...records: [Kind, string, string][]): SQSEvent {
  return { Records: records.map(([kind, id, group]) => sqsRecord({ kind, id }, group, id)) };
}

describe('failout-requests handler', () => {
  let output: string[];
  let spies: jest.SpyInstance[];

  // Powertools writes JSON lines straight to stdout (info, EMF) and stderr (warn): capture both.
  beforeEach(() => {
    output = [];
    const capture = (chunk: string | Uint8Array): boolean => {
      output.push(String(chunk));
      return true;
    };
    spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
  });
  afterEach(() => spies.forEach((s) => s.mockRestore()));

  function build(executed: string[]) {
    const logger = new Logger({ serviceName: 'failout-requests-test', logLevel: 'INFO' });
    const metrics = new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' });
    return createHandler({ writer: fakeWriter(executed), logger, metrics });
  }

  it('acknowledges applied, rejected and duplicate records: an empty partial batch response', async () => {
    const executed: string[] = [];
    const response = await build(executed)(event(['applied', 'a1', 'A'], ['rejected', 'a2', 'A'], ['duplicate', 'a3', 'A']), context);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(executed).toEqual(['a1', 'a2', 'a3']);
  });

  it('reports a transient failure and the rest of its group, while other groups proceed', async () => {
    const executed: string[] = [];
    const response = await build(executed)(
      event(['applied', 'a1', 'A'], ['transient', 'a2', 'A'], ['applied', 'b1', 'B'], ['applied', 'a3', 'A'], ['rejected', 'b2', 'B'], ['applied', 'b3', 'B']),
      context,
    );
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a2', 'a3']);
    expect(executed).toEqual(['a1', 'a2', 'b1', 'b2', 'b3']);
  });

  it('reports unexpected errors as failures too, so nothing is lost', async () => {
    const response = await build([])(event(['broken', 'x1', 'X'], ['applied', 'y1', 'Y']), context);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['x1']);
  });

  it('returns every record as failed rather than throwing when the whole batch fails', async () => {
    const response = await build([])(event(['transient', 'a1', 'A'], ['transient', 'b1', 'B']), context);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a1', 'b1']);
  });

  it('logs request id, cluster and outcome on each record line, and publishes EMF metrics', async () => {
    await build([])(event(['applied', 'a1', 'A'], ['rejected', 'a2', 'A'], ['transient', 'b1', 'B']), context);
    const lines = output.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const logs = lines.filter((l) => typeof l.message === 'string');
    expect(logs.find((l) => l.message === 'request applied')).toMatchObject({ requestId: 'a1', cluster: 'c', outcome: 'applied', messageId: 'a1' });
    expect(logs.find((l) => l.message === 'request rejected')).toMatchObject({ requestId: 'a2', outcome: 'rejected', reason: 'unknownPeer' });
    expect(logs.find((l) => String(l.message).startsWith('request not processed'))).toMatchObject({ messageId: 'b1', outcome: 'transientFailure' });
    const emf = lines.filter((l) => l._aws !== undefined);
    const names = emf.flatMap((l) => (l._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics[0]!.Metrics.map((m) => m.Name));
    expect(names).toEqual(expect.arrayContaining(['Applied', 'Rejected', 'TransientFailure', 'ApplyLatency']));
    expect(emf.some((l) => l.reason === 'unknownPeer' && l.Rejected === 1)).toBe(true);
  });

  it('resolves the writer lazily through a factory', async () => {
    const factory = jest.fn(async () => fakeWriter([]));
    const logger = new Logger({ logLevel: 'SILENT' });
    const metrics = new Metrics({ namespace: 'failout-test' });
    const handler = createHandler({ writer: factory, logger, metrics });
    await handler(event(['applied', 'a1', 'A'], ['applied', 'a2', 'A']), context);
    expect(factory).toHaveBeenCalledTimes(2);
  });
});
