/**
 * Issue 16: the local stack's view shows a ramp advancing — the share moved now, the step, and when
 * the next step starts — from the bucket windows every client evaluates.
 */
import { describeFailout } from '../../../lib/local/view';
import { configOf } from '../failout/config-factories';

const NOW = Date.parse('2026-11-30T16:00:00Z');
const M = 60_000;
// --ramp 10%:5m,50%:10m,100% --for 2h, started two minutes ago.
const ramp = (startedAgo: number) =>
  configOf('greetings-lor1', [['greetings-lva1', 2], ['greetings-ltx1', 1]], [
    { from: 0, to: 9, offlineAt: NOW - startedAgo, onlineAt: NOW - startedAgo + 120 * M },
    { from: 10, to: 49, offlineAt: NOW - startedAgo + 5 * M, onlineAt: NOW - startedAgo + 120 * M },
    { from: 50, to: 99, offlineAt: NOW - startedAgo + 15 * M, onlineAt: NOW - startedAgo + 120 * M },
  ]);

describe('the view describes a ramp', () => {
  it('shows the first step, its share, and when the next starts', () => {
    expect(describeFailout(ramp(2 * M), NOW)).toBe('FAILED OUT → lva1:2 ltx1:1 · ramp step 1/3: 10 % (buckets 0-9) · next 50 % at 16:03:00 (in 3m) · until 17:58:00 (118m left)');
  });

  it('shows the middle step once its window has started', () => {
    expect(describeFailout(ramp(6 * M), NOW)).toBe('FAILED OUT → lva1:2 ltx1:1 · ramp step 2/3: 50 % (buckets 0-49) · next 100 % at 16:09:00 (in 9m) · until 17:54:00 (114m left)');
  });

  it('shows the last step with no next one', () => {
    expect(describeFailout(ramp(20 * M), NOW)).toBe('FAILED OUT → lva1:2 ltx1:1 · ramp step 3/3: 100 % (buckets 0-99) · until 17:40:00 (100m left)');
  });

  it('shows a ramp that has not started as scheduled, with its first step', () => {
    expect(describeFailout(ramp(-M), NOW)).toBe('scheduled at 16:01:00 → lva1:2 ltx1:1 · ramp of 3 steps from 10 % (buckets 0-9) · until 18:01:00 (121m left)');
  });

  it('keeps the single-window form for a failout without a ramp', () => {
    const plain = configOf('greetings-lor1', [['greetings-lva1', 1]], [{ from: 0, to: 49, offlineAt: NOW - M, onlineAt: NOW + 29 * M }]);
    expect(describeFailout(plain, NOW)).toBe('FAILED OUT → lva1:1 · buckets 0-49 · until 16:29:00 (29m left)');
  });
});
