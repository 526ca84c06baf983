/**
 * Issue 21: a request applied while the alarm source could not be read (its record says
 * `alarmsUnchecked`) is counted (`AlarmsUnchecked`, an EMF metric an operator alarms on) and said on
 * its log line; a request whose alarms were checked is not.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { type Outcome } from '../../../lib/requests/request-writer';
import { createHandler, type RequestProcessor } from '../../../lib/requests/lambda';
import { sqsRecord } from '../../helpers/requests';

process.env.POWERTOOLS_METRICS_NAMESPACE = 'failout-test';
process.env.POWERTOOLS_SERVICE_NAME = 'failout-requests-test';

const context = { functionName: 'failout-requests', awsRequestId: 'aws-req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

/** Applies every body; the record says `alarmsUnchecked` when the body asks for it. */
const writer: RequestProcessor = {
  async process(body, meta): Promise<Outcome> {
    const { id, unchecked } = JSON.parse(body) as { id: string; unchecked: boolean };
    const record = { requestId: id, status: 'applied' as const, cluster: 'c', action: 'failout' as const, appliedAt: 0, clusterVersion: 1, messageId: meta.messageId, ...(unchecked ? { alarmsUnchecked: true as const } : {}) };
    return { status: 'applied', requestId: id, cluster: 'c', record, attempts: 1 };
  },
};

describe('failout-requests handler, alarms not checked', () => {
  let output: string[];
  let spies: jest.SpyInstance[];

  beforeEach(() => {
    output = [];
    const capture = (chunk: string | Uint8Array): boolean => {
      output.push(String(chunk));
      return true;
    };
    spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
  });
  afterEach(() => spies.forEach((s) => s.mockRestore()));

  it('counts AlarmsUnchecked once per request applied without its alarms checked, and says so on its line', async () => {
    // Prepare
    const handler = createHandler({ writer, logger: new Logger({ logLevel: 'INFO' }), metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }) });

    // Act
    await handler({ Records: [sqsRecord({ id: 'a1', unchecked: true }, 'A', 'a1'), sqsRecord({ id: 'a2', unchecked: false }, 'A', 'a2')] }, context);

    // Assess
    const lines = output.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const emf = lines.filter((l) => l._aws !== undefined);
    expect(emf.map((l) => l.AlarmsUnchecked).filter((v) => v !== undefined)).toEqual([1]);
    const applied = lines.filter((l) => l.message === 'request applied');
    expect(applied.map((l) => [l.requestId, l.alarmsUnchecked])).toEqual([
      ['a1', true],
      ['a2', undefined],
    ]);
  });
});
