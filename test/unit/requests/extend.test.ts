/**
 * Issue 16, extend and the no-op restore: `extend` moves the end of the active failout (every window
 * that has not ended) and nothing else; bad input and a cluster with nothing to extend are recorded
 * rejections; a restore of a serving cluster is `unchanged`.
 */
import { parseClusterProperties, type ClusterProperties } from '../../../lib/d2';
import { parseChangeRequest, type ChangeRequest } from '../../../lib/requests';
import { applyRequest, type PeerState } from '../../../lib/requests/apply-request';
import { failoutInput, HOUR, NOW, restoreInput } from '../../helpers/requests';

const MINUTE = 60_000;
const healthy: PeerState = { exists: true, hostCount: 3, failoutProperties: null };

function extendInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, requestId: `ext-${Math.random().toString(36).slice(2)}`, action: 'extend', cluster: 'greetings-lor1', duration: 'PT3H', ...overrides };
}

function parse(body: object, now = NOW) {
  return parseChangeRequest(JSON.stringify(body), { now });
}

function accepted(body: object, now = NOW): ChangeRequest {
  const result = parse(body, now);
  if (!result.ok) throw new Error(`rejected: ${result.rejection.reason}: ${result.rejection.message}`);
  return result.request;
}

/** A cluster failed out by `body` (applied at NOW). */
function failedOut(body: object): ClusterProperties {
  const result = applyRequest(parseClusterProperties({ clusterName: 'greetings-lor1', extra: 1 }), accepted(body), { now: NOW, peers: () => healthy });
  if (!result.ok) throw new Error(result.rejection.message);
  return result.props;
}

describe('extend: parsing', () => {
  it('resolves a duration from the time of parsing, and reads onlineAt', () => {
    expect(accepted(extendInput({ requestId: 'e1', requestedBy: 'oncall@example.com' }))).toEqual({
      version: 1,
      requestId: 'e1',
      action: 'extend',
      cluster: 'greetings-lor1',
      requestedBy: 'oncall@example.com',
      force: false,
      onlineAt: NOW + 3 * HOUR,
    });
    expect(accepted(extendInput({ duration: undefined, onlineAt: '2026-11-30T20:00:00Z' }))).toMatchObject({ onlineAt: Date.parse('2026-11-30T20:00:00Z') });
  });

  it.each([
    ['no end', { duration: undefined }, 'missingEnd', /onlineAt or duration/],
    ['both ends', { onlineAt: NOW + HOUR }, 'badWindow', /give one end, not both/],
    ['an end already past', { duration: undefined, onlineAt: NOW - MINUTE }, 'badWindow', /onlineAt: 2026-11-30T15:59:00.000Z is not after now \(2026-11-30T16:00:00.000Z\)/],
    ['an end now', { duration: undefined, onlineAt: NOW }, 'badWindow', /is not after now/],
    ['an end past the maximum window', { duration: 'PT73H' }, 'windowTooLong', /more than 72h ahead/],
    ['an end after 9999', { duration: undefined, onlineAt: '10000-01-01T00:00:00Z' }, 'badSchema', /onlineAt/],
    ['a bad duration', { duration: 'soon' }, 'badSchema', /duration/],
    ['peers (an extend moves only the end)', { peers: [{ cluster: 'greetings-lva1' }] }, 'badSchema', /peers/],
    ['a ramp', { ramp: [{ percent: 100 }] }, 'badSchema', /ramp/],
    ['an offlineAt', { offlineAt: NOW }, 'badSchema', /offlineAt/],
    ['a bad cluster name', { cluster: '../etc' }, 'badName', /cluster/],
  ])('rejects %s', (_name, overrides, reason, message) => {
    const result = parse(extendInput(overrides));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rejection.reason).toBe(reason);
    expect(result.rejection.message).toMatch(message);
  });
});

describe('extend: applying', () => {
  it('moves the end of every window of a ramp and touches nothing else', () => {
    const before = failedOut(failoutInput({ ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] }));
    const result = applyRequest(before, accepted(extendInput({ duration: 'PT3H' }), NOW + MINUTE), { now: NOW + MINUTE, peers: () => healthy });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const expected = before.failoutProperties!.buckets.map((b) => ({ ...b, onlineAt: NOW + MINUTE + 3 * HOUR }));
    expect(result.props).toEqual({ ...before, failoutProperties: { ...before.failoutProperties, buckets: expected } });
  });

  it('prunes windows that already ended (issue 21: the next real write drops them)', () => {
    const props = parseClusterProperties({
      clusterName: 'c',
      failoutProperties: {
        failoutRedirectConfigs: [{ peer: 'p' }],
        failoutBucketConfigs: [
          { bucketOfflineRange: { from: 0, to: 9 }, offlineAt: NOW - 2 * HOUR, onlineAt: NOW - HOUR },
          { bucketOfflineRange: { from: 0, to: 99 }, offlineAt: NOW - MINUTE, onlineAt: NOW + HOUR },
        ],
      },
    });
    const result = applyRequest(props, accepted(extendInput()), { now: NOW, peers: () => healthy });
    expect(result.ok && result.props.failoutProperties?.buckets.map((b) => b.onlineAt)).toEqual([NOW + 3 * HOUR]);
  });

  it.each([
    ['no failout', parseClusterProperties({ clusterName: 'c' })],
    [
      'only an ended failout',
      parseClusterProperties({ clusterName: 'c', failoutProperties: { failoutRedirectConfigs: [{ peer: 'p' }], failoutBucketConfigs: [{ offlineAt: NOW - 2 * HOUR, onlineAt: NOW - HOUR }] } }),
    ],
  ])('rejects an extend of a cluster with %s as notFailedOut', (_name, props) => {
    const result = applyRequest(props, accepted(extendInput()), { now: NOW, peers: () => healthy });
    expect(result).toEqual({ ok: false, rejection: expect.objectContaining({ reason: 'notFailedOut', message: expect.stringMatching(/no active or scheduled failout/) }) });
  });

  it('rejects a new end that is not after the start of a window it would move (a later ramp step)', () => {
    const before = failedOut(failoutInput({ ramp: [{ percent: 10, duration: 'PT90M' }, { percent: 100 }] }));
    const result = applyRequest(before, accepted(extendInput({ duration: 'PT1H' })), { now: NOW, peers: () => healthy });
    expect(result).toEqual({ ok: false, rejection: expect.objectContaining({ reason: 'badWindow', message: expect.stringMatching(/is not after .* when a window of the failout starts/) }) });
  });

  it('rejects a new end that passed before the request could be applied', () => {
    const before = failedOut(failoutInput());
    const result = applyRequest(before, accepted(extendInput({ duration: 'PT1M' })), { now: NOW + 2 * MINUTE, peers: () => healthy });
    expect(result).toEqual({ ok: false, rejection: expect.objectContaining({ reason: 'badWindow', message: expect.stringMatching(/passed before the request could be applied/) }) });
  });
});

describe('restore of a serving cluster', () => {
  it('is unchanged: the same properties, nothing to write', () => {
    const props = parseClusterProperties({ clusterName: 'c' });
    expect(applyRequest(props, accepted(restoreInput()), { now: NOW, peers: () => healthy })).toEqual({ ok: true, props, unchanged: true });
  });

  it('still removes a failout whose window is open', () => {
    const before = failedOut(failoutInput());
    expect(applyRequest(before, accepted(restoreInput()), { now: NOW + HOUR, peers: () => healthy })).toEqual({ ok: true, props: { ...before, failoutProperties: null } });
  });

  it('writes nothing for a failout whose windows all ended (issue 21: status says serving, so restore does too)', () => {
    const before = failedOut(failoutInput());
    expect(applyRequest(before, accepted(restoreInput()), { now: NOW + 5 * HOUR, peers: () => healthy })).toEqual({ ok: true, props: before, unchanged: true });
  });
});
