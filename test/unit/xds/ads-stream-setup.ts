/** Shared setup for the AdsStream tests (not a test file). */
import { AdsStream, type AdsResponseEvent } from '../../../lib/xds/ads-stream';
import type { XdsError } from '../../../lib/xds/errors';
import { FakeAdsTransport, fakeTypes } from '../../helpers/xds-fakes';

export interface StreamFixture {
  stream: AdsStream;
  transport: FakeAdsTransport;
  errors: Array<{ error: XdsError; beforeFirstResponse: boolean }>;
  responses: AdsResponseEvent[];
  doesNotExist: string[];
  cached: Set<string>;
}

/** A stream on a fake transport; retry delays are 1000 × 1.6^attempt without jitter. */
export function streamFixture(watchExpiryMs?: number): StreamFixture {
  const transport = new FakeAdsTransport();
  const errors: StreamFixture['errors'] = [];
  const responses: AdsResponseEvent[] = [];
  const doesNotExist: string[] = [];
  const cached = new Set<string>();
  const stream = new AdsStream({
    serverUri: 'primary:1',
    callFactory: transport.factory,
    handler: {
      onStreamError: (error, { beforeFirstResponse }) => errors.push({ error, beforeFirstResponse }),
      onResponse: (event) => responses.push(event),
      onResourceDoesNotExist: (_typeUrl, name) => doesNotExist.push(name),
      isResourceCached: (_typeUrl, name) => cached.has(name),
    },
    node: { id: 'node-1' },
    resourceTypes: fakeTypes(),
    retryDelayMs: (attempt) => Math.round(1000 * 1.6 ** attempt),
    isTransportReady: () => transport.ready,
    watchExpiryMs,
  });
  return { stream, transport, errors, responses, doesNotExist, cached };
}

/** Runs the pending setImmediate callbacks (fake timers). */
export function tick(): void {
  jest.advanceTimersByTime(0);
}
