/**
 * LoadStore: what one report carries and what it resets.
 */
import { createLoadStore } from '../../../lib/xds/lrs-client';

describe('LoadStore', () => {
  it('reports calls per locality since the last snapshot and keeps in-progress as a gauge', () => {
    const store = createLoadStore('c1', 'eds-1');
    store.callStarted({ zone: 'a' });
    store.callStarted({ zone: 'a' });
    store.callFinished({ zone: 'a' }, true);
    store.callStarted({ zone: 'b' });
    store.callFinished({ zone: 'b' }, false);
    store.callDropped('overload');
    store.callDropped();
    const first = store.takeSnapshot();
    expect(first).toMatchObject({
      cluster_name: 'c1',
      cluster_service_name: 'eds-1',
      total_dropped_requests: 2,
      dropped_requests: [{ category: 'overload', dropped_count: 1 }],
    });
    expect(first.upstream_locality_stats).toEqual([
      { locality: { region: '', zone: 'a', sub_zone: '' }, total_successful_requests: 1, total_requests_in_progress: 1, total_error_requests: 0, total_issued_requests: 2 },
      { locality: { region: '', zone: 'b', sub_zone: '' }, total_successful_requests: 0, total_requests_in_progress: 0, total_error_requests: 1, total_issued_requests: 1 },
    ]);
    const second = store.takeSnapshot();
    expect(second.upstream_locality_stats).toEqual([
      { locality: { region: '', zone: 'a', sub_zone: '' }, total_successful_requests: 0, total_requests_in_progress: 1, total_error_requests: 0, total_issued_requests: 0 },
    ]);
    expect(second.total_dropped_requests).toBe(0);
  });
});
