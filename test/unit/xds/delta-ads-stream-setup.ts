/** Shared setup for the DeltaAdsStream tests (not a test file). */
import { DeltaAdsStream } from '../../../lib/xds/delta-ads-stream';
import type { AnyResourceType } from '../../../lib/xds/resource-state';
import { FakeDeltaAdsTransport, fakeTypes } from '../../helpers/xds-fakes';
import { streamOptions, type StreamEvents } from './ads-stream-setup';

export interface DeltaStreamFixture extends StreamEvents {
  stream: DeltaAdsStream;
  transport: FakeDeltaAdsTransport;
}

/** An incremental stream on a fake transport, built as the SotW tests build theirs (`streamOptions`). */
export function deltaStreamFixture(watchExpiryMs?: number, resourceTypes: ReadonlyMap<string, AnyResourceType> = fakeTypes()): DeltaStreamFixture {
  const transport = new FakeDeltaAdsTransport();
  const { options, events } = streamOptions('observer:1', transport, watchExpiryMs, resourceTypes);
  return { stream: new DeltaAdsStream(options), transport, ...events };
}
