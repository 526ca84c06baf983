import { isFailedOutAt, parseClusterProperties, serializeClusterProperties, type FailoutProperties } from '../../../lib/d2/data';
import { parseChangeRequest, type ChangeRequest } from '../../../lib/requests';
import { applyRequest, type PeerState } from '../../../lib/requests/apply-request';
import { failoutInput, HOUR, NOW, restoreInput } from '../../helpers/requests';

const CLUSTER_JSON = {
  clusterName: 'greetings-lor1',
  properties: { masterColo: 'lor1' },
  darkClusters: { 'greetings-dark': { multiplier: '0.1' } },
  someFutureKey: { kept: [1, 2, 3] },
  failoutProperties: { failoutRedirectConfigs: [{ peer: 'old', note: 'replaced' }, {}], failoutBucketConfigs: [{ partition: 'main' }], writerNote: 'kept' },
};

function request(body: object): ChangeRequest {
  const result = parseChangeRequest(body, { now: NOW });
  if (!result.ok) throw new Error(result.rejection.message);
  return result.request;
}

/** A peer's own failout with one window. */
function peerFailout(offlineAt: number, onlineAt?: number): FailoutProperties {
  return { redirects: [{ peer: 'q' }], ignoredRedirectEntries: 0, buckets: [onlineAt === undefined ? { offlineAt } : { offlineAt, onlineAt }] };
}

const healthy: PeerState = { exists: true, hostCount: 3, failoutProperties: null };
const failedOut: PeerState = { exists: true, hostCount: 3, failoutProperties: peerFailout(0) };
const empty: PeerState = { exists: true, hostCount: 0, failoutProperties: null };
const missing: PeerState = { exists: false, hostCount: 0, failoutProperties: null };

/** `reason: message` of a rejection. */
function result(r: ReturnType<typeof applyRequest>): string {
  return r.ok ? 'applied' : `${r.rejection.reason}: ${r.rejection.message}`;
}

function peers(states: Record<string, PeerState>): (c: string) => PeerState {
  return (c) => states[c] ?? missing;
}

describe('applyRequest', () => {
  const props = parseClusterProperties(CLUSTER_JSON);

  it('replaces the failout with the peers and one window, and touches no other key', () => {
    const r = request(failoutInput({ requestId: 'r-1', peers: [{ cluster: 'a', weight: 2 }, { cluster: 'b' }], buckets: { from: 0, to: 49 } }));
    const result = applyRequest(props, r, { now: NOW, peers: peers({ a: healthy, b: healthy }) });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const json = JSON.parse(serializeClusterProperties(result.props));
    expect(json.failoutProperties).toEqual({
      failoutRedirectConfigs: [
        { peer: 'a', weight: 2 },
        { peer: 'b', weight: 1 },
      ],
      failoutBucketConfigs: [
        {
          partition: 'main',
          bucketOfflineRange: { from: 0, to: 49 },
          offlineAt: NOW,
          onlineAt: NOW + 2 * HOUR,
          requestId: 'r-1',
          requestedBy: 'oncall@example.com',
          reason: 'INC-4711',
        },
      ],
      writerNote: 'kept',
    });
    const before = JSON.parse(serializeClusterProperties(props));
    delete json.failoutProperties;
    delete before.failoutProperties;
    expect(json).toEqual(before);
    expect(isFailedOutAt(parseClusterProperties(serializeClusterProperties(result.props)).failoutProperties, NOW)).toBe(true);
  });

  it('removes the failout on restore and keeps every other key', () => {
    const result = applyRequest(props, request(restoreInput()), { now: NOW, peers: peers({}) });
    expect(result.ok && result.props.failoutProperties).toBeNull();
    if (!result.ok) return;
    const json = JSON.parse(serializeClusterProperties(result.props));
    expect(json).not.toHaveProperty('failoutProperties');
    expect(json.someFutureKey).toEqual({ kept: [1, 2, 3] });
    expect(json.darkClusters).toEqual(CLUSTER_JSON.darkClusters);
  });

  it.each([
    ['unknownPeer', { a: missing, b: healthy }, false],
    ['unknownPeer', { a: missing, b: healthy }, true],
    ['peerFailedOut', { a: failedOut, b: healthy }, false],
    ['noPeerWithHosts', { a: empty, b: empty }, false],
  ] as const)('rejects as %s (force: %s)', (reason, states, force) => {
    const r = request(failoutInput({ peers: [{ cluster: 'a' }, { cluster: 'b' }], force }));
    const result = applyRequest(props, r, { now: NOW, peers: peers(states) });
    expect(result.ok ? 'applied' : result.rejection.reason).toBe(reason);
    if (!result.ok) expect(result.rejection.requestId).toBe(r.requestId);
  });

  describe("a restore carrying a drill run's verdict (drill, stoppedByAlarm, alarmAt)", () => {
    /** A cluster in a run of drill `d` from NOW - 1 min to NOW + 1 h whose stop alarms (amended) are `stopAlarms`. */
    const inRun = (drill: string | undefined, stopAlarms: string[], offlineAt = NOW - 60_000) =>
      parseClusterProperties({
        clusterName: 'greetings-lor1',
        failoutProperties: { failoutRedirectConfigs: [{ peer: 'a' }], failoutBucketConfigs: [{ partition: 'main', offlineAt, onlineAt: NOW + HOUR, requestId: 'drill-d-1', stopAlarms, ...(drill === undefined ? {} : { drill }) }] },
      });
    const stop = (overrides: Record<string, unknown> = {}) => request(restoreInput({ stoppedByAlarm: 'd-errors', alarmAt: NOW - 1000, drill: 'd', ...overrides }));

    it("stops the run the alarm was seen in, though an amend took the alarm off its stop alarms", () => {
      const result = applyRequest(inRun('d', ['deploys']), stop(), { now: NOW, peers: peers({}) });
      expect(result.ok && result.unchanged !== true && result.props.failoutProperties).toBeNull();
    });

    it.each([
      ["another drill's window", inRun('other', ['deploys']), {}],
      ["an operator's failout", inRun(undefined, ['deploys']), {}],
      ['a window that began after the alarm was seen (a later run)', inRun('d', ['deploys'], NOW - 500), {}],
      ['a restore that names no drill', inRun('d', ['deploys']), { drill: undefined }],
    ])('leaves %s alone (unchanged) when its stop alarms do not name the alarm', (_what, props, overrides) => {
      expect(applyRequest(props, stop(overrides), { now: NOW, peers: peers({}) })).toMatchObject({ ok: true, unchanged: true });
    });
  });

  describe('a peer failed out for some buckets (the clients skip a peer only for the buckets it is failed out for)', () => {
    /** A peer failed out now for `from`–`to` only. */
    const partly = (from: number, to: number): PeerState => ({
      exists: true,
      hostCount: 3,
      failoutProperties: { redirects: [{ peer: 'q' }], ignoredRedirectEntries: 0, buckets: [{ bucketOfflineRange: { from, to }, offlineAt: NOW - HOUR, onlineAt: NOW + HOUR }] },
    });

    it.each([
      ['buckets 0–49 onto a peer out for 50–99', { from: 0, to: 49 }, partly(50, 99)],
      ['buckets 50–99 onto a peer out for 0–49', { from: 50, to: 99 }, partly(0, 49)],
      ['buckets 10–19 onto a peer out for 20–29', { from: 10, to: 19 }, partly(20, 29)],
    ])('applies %s: no request it moves is one the peer sends away', (_what, buckets, a) => {
      const result = applyRequest(props, request(failoutInput({ peers: [{ cluster: 'a' }], buckets })), { now: NOW, peers: peers({ a }) });
      expect(result.ok ? 'applied' : `${result.rejection.reason}: ${result.rejection.message}`).toBe('applied');
    });

    it.each([
      ['buckets 40–59 onto a peer out for 50–99', { from: 40, to: 59 }, partly(50, 99), /"a" is failed out itself for buckets 50–59, which this failout moves/],
      ['all buckets onto a peer out for 0–49', { from: 0, to: 99 }, partly(0, 49), /for buckets 0–49,/],
      ['bucket 49 onto a peer out for 49', { from: 0, to: 49 }, partly(49, 49), /for buckets 49–49,/],
    ])('refuses %s as peerFailedOut, naming the buckets both move', (_what, buckets, a, message) => {
      const result = applyRequest(props, request(failoutInput({ peers: [{ cluster: 'a' }], buckets })), { now: NOW, peers: peers({ a }) });
      expect(result.ok ? 'applied' : result.rejection.reason).toBe('peerFailedOut');
      expect(result.ok ? '' : result.rejection.message).toMatch(message);
      expect(applyRequest(props, request(failoutInput({ peers: [{ cluster: 'a' }], buckets, force: true })), { now: NOW, peers: peers({ a }) }).ok).toBe(true);
    });

    it("judges a ramp by all the buckets its steps move, and a peer's window that is not active now not at all", () => {
      const ramp = request(failoutInput({ peers: [{ cluster: 'a' }], buckets: { from: 0, to: 59 }, ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] }));
      const refused = applyRequest(props, ramp, { now: NOW, peers: peers({ a: partly(50, 99) }) });
      expect(refused.ok ? 'applied' : result(refused)).toMatch(/^peerFailedOut: .*for buckets 50–59,/);
      const later: PeerState = { ...partly(0, 99), failoutProperties: { redirects: [], ignoredRedirectEntries: 0, buckets: [{ bucketOfflineRange: { from: 0, to: 99 }, offlineAt: NOW + HOUR }] } };
      expect(applyRequest(props, ramp, { now: NOW, peers: peers({ a: later }) }).ok).toBe(true);
    });
  });

  it.each([
    ['a failed-out peer', { a: failedOut, b: healthy }],
    ['no peer with hosts', { a: empty, b: empty }],
    ['both', { a: failedOut, b: empty }],
  ])('applies with force despite %s', (_what, states) => {
    const r = request(failoutInput({ peers: [{ cluster: 'a' }, { cluster: 'b' }], force: true }));
    expect(applyRequest(props, r, { now: NOW, peers: peers(states) }).ok).toBe(true);
  });

  it('builds the typed model the codec writes: the request\'s peers and window, the old entries replaced', () => {
    const r = request(failoutInput({ requestId: 'r-2', peers: [{ cluster: 'a', weight: 3 }], buckets: { from: 10, to: 19 } }));
    const result = applyRequest(props, r, { now: NOW, peers: peers({ a: healthy }) });
    expect(result.ok && result.props.failoutProperties).toEqual<FailoutProperties>({
      redirects: [{ peer: 'a', weight: 3 }],
      ignoredRedirectEntries: 0,
      buckets: [
        {
          partition: 'main',
          bucketOfflineRange: { from: 10, to: 19 },
          offlineAt: NOW,
          onlineAt: NOW + 2 * HOUR,
          requestId: 'r-2',
          requestedBy: 'oncall@example.com',
          reason: 'INC-4711',
        },
      ],
      extra: { writerNote: 'kept' },
    });
  });

  it.each([
    ['ended', peerFailout(NOW - 2 * HOUR, NOW - HOUR)],
    ['scheduled to start later', peerFailout(NOW + HOUR)],
  ])('does not count a peer whose own failout is %s as failed out', (_when, failoutProperties) => {
    const r = request(failoutInput({ peers: [{ cluster: 'a' }] }));
    const result = applyRequest(props, r, { now: NOW, peers: peers({ a: { exists: true, hostCount: 1, failoutProperties } }) });
    expect(result.ok).toBe(true);
  });

  it('names every peer problem, unknown peers first', () => {
    const r = request(failoutInput({ peers: [{ cluster: 'a' }, { cluster: 'b' }] }));
    const result = applyRequest(props, r, { now: NOW, peers: peers({ a: failedOut, b: missing }) });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rejection.reason).toBe('unknownPeer');
    expect(result.rejection.message).toMatch(/peers\[1\]\.cluster: "b" has no cluster node; peers\[0\]\.cluster: "a" is failed out/);
  });

  it('rejects a window that ended while the request waited in the queue', () => {
    const r = request(failoutInput({ duration: 'PT1H' }));
    const result = applyRequest(props, r, { now: NOW + 2 * HOUR, peers: peers({ 'greetings-lva1': healthy, 'greetings-ltx1': healthy }) });
    expect(result.ok ? 'applied' : result.rejection.reason).toBe('badWindow');
  });

  it('does not modify its input', () => {
    const snapshot = serializeClusterProperties(props);
    applyRequest(props, request(failoutInput()), { now: NOW, peers: () => healthy });
    applyRequest(props, request(restoreInput()), { now: NOW, peers: () => healthy });
    expect(serializeClusterProperties(props)).toBe(snapshot);
  });
});
