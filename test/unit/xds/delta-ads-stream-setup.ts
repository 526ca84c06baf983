/** Shared setup for the DeltaAdsStream tests (not a test file). */
import type { AdsResponseEvent } from '../../../lib/xds/ads-stream';
import { DeltaAdsStream } from '../../../lib/xds/delta-ads-stream';
import type { XdsError } from '../../../lib/xds/errors';
import type { AnyResourceType } from '../../../lib/xds/resource-state';
import { FakeDeltaAdsTransport, fakeTypes } from '../../helpers/xds-fakes';

export interface DeltaStreamFixture {
  stream: DeltaAdsStream;
  transport: FakeDeltaAdsTransport;
  errors: Array<{ error: XdsError; beforeFirstResponse: boolean }>;
  responses: AdsResponseEvent[];
  doesNotExist: string[];
  cached: Set<string>;
}

/** An incremental stream on a fake transport; retry delays are 1000 × 1.6^attempt without jitter. */
export function deltaStreamFixture(watchExpiryMs?: number, resourceTypes: ReadonlyMap<string, AnyResourceType> = fakeTypes()): DeltaStreamFixture {
  const transport = new FakeDeltaAdsTransport();
  const errors: DeltaStreamFixture['errors'] = [];
  const responses: AdsResponseEvent[] = [];
  const doesNotExist: string[] = [];
  const cached = new Set<string>();
  const stream = new DeltaAdsStream({
    serverUri: 'observer:1',
    callFactory: transport.factory,
    handler: {
      onStreamError: (error, { beforeFirstResponse }) => errors.push({ error, beforeFirstResponse }),
      onResponse: (event) => responses.push(event),
      onResourceDoesNotExist: (_typeUrl, name) => doesNotExist.push(name),
      isResourceCached: (_typeUrl, name) => cached.has(name),
    },
    node: { id: 'node-1' },
    resourceTypes,
    retryDelayMs: (attempt) => Math.round(1000 * 1.6 ** attempt),
    isTransportReady: () => transport.ready,
    watchExpiryMs,
  });
  return { stream, transport, errors, responses, doesNotExist, cached };
}
