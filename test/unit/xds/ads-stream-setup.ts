/** Shared setup for the AdsStream tests (not a test file). */
import { AdsStream, type AdsResponseEvent } from '../../../lib/xds/ads-stream';
import type { AdsCallFactory, AdsStreamBaseOptions } from '../../../lib/xds/ads-stream-base';
import type { AnyResourceType } from '../../../lib/xds/resource-state';
import type { XdsError } from '../../../lib/xds/errors';
import { FakeAdsTransport, fakeTypes } from '../../helpers/xds-fakes';

/** What a stream fixture records of its stream's handler calls. */
export interface StreamEvents {
  errors: Array<{ error: XdsError; beforeFirstResponse: boolean }>;
  responses: AdsResponseEvent[];
  doesNotExist: string[];
  cached: Set<string>;
}

export interface StreamFixture extends StreamEvents {
  stream: AdsStream;
  transport: FakeAdsTransport;
}

/**
 * The options every stream test builds its stream with (SotW or incremental): a handler recording into
 * the returned events, retry delays of 1000 × 1.6^attempt without jitter, readiness from the transport.
 */
export function streamOptions<Req, Res>(
  serverUri: string,
  transport: { readonly factory: AdsCallFactory<Req, Res>; readonly ready: boolean },
  watchExpiryMs: number | undefined,
  resourceTypes: ReadonlyMap<string, AnyResourceType> = fakeTypes(),
): { options: AdsStreamBaseOptions<Req, Res>; events: StreamEvents } {
  const events: StreamEvents = { errors: [], responses: [], doesNotExist: [], cached: new Set<string>() };
  const options: AdsStreamBaseOptions<Req, Res> = {
    serverUri,
    callFactory: transport.factory,
    handler: {
      onStreamError: (error, { beforeFirstResponse }) => events.errors.push({ error, beforeFirstResponse }),
      onResponse: (event) => events.responses.push(event),
      onResourceDoesNotExist: (_typeUrl, name) => events.doesNotExist.push(name),
      isResourceCached: (_typeUrl, name) => events.cached.has(name),
    },
    node: { id: 'node-1' },
    resourceTypes,
    retryDelayMs: (attempt) => Math.round(1000 * 1.6 ** attempt),
    isTransportReady: () => transport.ready,
    watchExpiryMs,
  };
  return { options, events };
}

/** A stream on a fake transport (see {@link streamOptions}). */
export function streamFixture(watchExpiryMs?: number): StreamFixture {
  const transport = new FakeAdsTransport();
  const { options, events } = streamOptions('primary:1', transport, watchExpiryMs);
  return { stream: new AdsStream(options), transport, ...events };
}

/** Runs the pending setImmediate callbacks (fake timers). */
export function tick(): void {
  jest.advanceTimersByTime(0);
}
