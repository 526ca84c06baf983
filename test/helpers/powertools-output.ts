import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createHandler, type RequestProcessor } from '../../lib/requests/lambda';
import type { Outcome } from '../../lib/requests/request-writer';

/**
 * What Powertools writes while a handler runs: its logger and EMF metrics write JSON lines straight to
 * stdout (info, EMF) and stderr (warn). Captured from {@link captureOutput} until `restore()`.
 */
export interface CapturedOutput {
  /** Every JSON line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Stops capturing. */
  restore(): void;
}

/** Captures stdout and stderr (call in `beforeEach`, `restore()` in `afterEach`). */
export function captureOutput(): CapturedOutput {
  const output: string[] = [];
  const capture = (chunk: string | Uint8Array): boolean => {
    output.push(String(chunk));
    return true;
  };
  const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
  return {
    lines: () =>
      output
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    restore: () => spies.forEach((s) => s.mockRestore()),
  };
}

/**
 * The real failout-requests handler over `writer`, its Powertools logger at INFO and its EMF metrics
 * writing the lines {@link captureOutput} sees; every outcome the writer returns is pushed to `outcomes`.
 */
export function recordingHandler(writer: RequestProcessor, outcomes: Outcome[]): ReturnType<typeof createHandler> {
  const processor: RequestProcessor = { process: async (body, meta) => outcomes[outcomes.push(await writer.process(body, meta)) - 1]! };
  return createHandler({ writer: processor, logger: new Logger({ logLevel: 'INFO' }), metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }) });
}
