import { describeCluster, formatClusterStatus } from '../../../lib/operator';
import { formatRemaining } from '../../../lib/text';

const NOW = Date.parse('2026-11-30T16:30:00Z');
const H = 3_600_000;

function clusterJson(failoutProperties: unknown): string {
  return JSON.stringify({ clusterName: 'greetings-lor1', someUnknownKey: 1, failoutProperties });
}

const failout = (offlineAt: number, onlineAt: number, range = { from: 0, to: 99 }): unknown => ({
  failoutRedirectConfigs: [
    { peer: 'greetings-lva1', weight: 2 },
    { peer: 'greetings-ltx1', weight: 1 },
  ],
  failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: range, offlineAt, onlineAt, requestId: 'r-1', requestedBy: 'oncall@example.com', reason: 'INC-4711' }],
});

describe('describeCluster', () => {
  it.each([
    ['active window', failout(NOW - H, NOW + H), 'failed-out'],
    ['future window', failout(NOW + H, NOW + 2 * H), 'scheduled'],
    ['past window', failout(NOW - 2 * H, NOW - H), 'ended'],
    ['no failout', undefined, 'serving'],
    ['null failout', null, 'serving'],
    ['empty failout', {}, 'serving'],
    ['malformed failout', { failoutRedirectConfigs: 'nope' }, 'malformed'],
    ['failout with a window that ends before it starts', { failoutBucketConfigs: [{ offlineAt: NOW, onlineAt: NOW - H }] }, 'malformed'],
    ["rest.li's opaque entries (fabric, {} redirect, bucket with defaults)", { failoutRedirectConfigs: [{}, { fabric: 'testfabric', weight: 1 }], failoutBucketConfigs: [{ partition: 'main' }] }, 'failed-out'],
  ])('%s → %s', (_name, props, state) => {
    expect(describeCluster('greetings-lor1', clusterJson(props), NOW).state).toBe(state);
  });

  it('reports peers with weights, the window, the share, who and why', () => {
    const status = describeCluster('greetings-lor1', clusterJson(failout(NOW - H, NOW + H, { from: 0, to: 49 })), NOW);
    expect(status).toEqual({
      cluster: 'greetings-lor1',
      state: 'failed-out',
      peers: [
        { cluster: 'greetings-lva1', weight: 2 },
        { cluster: 'greetings-ltx1', weight: 1 },
      ],
      windows: [
        {
          offlineAt: '2026-11-30T15:30:00.000Z',
          onlineAt: '2026-11-30T17:30:00.000Z',
          active: true,
          buckets: { from: 0, to: 49 },
          sharePct: 50,
          requestId: 'r-1',
          requestedBy: 'oncall@example.com',
          reason: 'INC-4711',
        },
      ],
    });
  });

  it('names the offending field of a malformed failout, as clients would refuse it', () => {
    expect(describeCluster('greetings-lor1', clusterJson({ failoutRedirectConfigs: [{ peer: 'x', weight: 0 }] }), NOW)).toMatchObject({
      state: 'malformed',
      problem: expect.stringContaining('failoutProperties.failoutRedirectConfigs[0].weight'),
    });
  });

  it('says a node that is not JSON is malformed instead of throwing', () => {
    expect(describeCluster('c', '{', NOW)).toMatchObject({ state: 'malformed', problem: expect.stringMatching(/not valid JSON/) });
  });
});

describe('formatClusterStatus', () => {
  it('prints state, window with time left, share, who and why, and peers with their share of traffic', () => {
    const text = formatClusterStatus(describeCluster('greetings-lor1', clusterJson(failout(NOW - H, NOW + 90 * 60_000)), NOW), NOW);
    expect(text).toBe(
      [
        'greetings-lor1  FAILED OUT',
        '  window   from 2026-11-30T15:30:00.000Z until 2026-11-30T18:00:00.000Z (1h 30m left)',
        '  share    100% of traffic (buckets 0-99)',
        '  by       oncall@example.com — INC-4711  [request r-1]',
        '  peers    greetings-lva1 (weight 2, 67%), greetings-ltx1 (weight 1, 33%)',
      ].join('\n'),
    );
  });

  it('prints a serving cluster on one line', () => {
    expect(formatClusterStatus(describeCluster('greetings-lva1', clusterJson(null), NOW), NOW)).toBe('greetings-lva1  serving');
  });

  it.each([
    [0, '0s'],
    [45_000, '45s'],
    [5_400_000, '1h 30m'],
    [90_000_000, '1d 1h'],
  ])('formatRemaining(%i) = %s', (ms, text) => {
    expect(formatRemaining(ms)).toBe(text);
  });
});
