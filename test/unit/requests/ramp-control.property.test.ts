/**
 * Issue 24, item 6, as properties over generated ramps and times (fast-check): while a ramp is held
 * its share stays what it was at the hold; after a resume the share at any time is the unheld ramp's
 * share at that time less the time held (never past the end); an advance never moves less traffic at
 * any time than before. What routes is read through the codec and the client runtime.
 */
import fc from 'fast-check';
import { parseClusterProperties, serializeClusterProperties, type ClusterProperties } from '../../../lib/d2';
import { createFailoutConfig } from '../../../lib/failout';
import { parseChangeRequest } from '../../../lib/requests';
import { applyRequest, type PeerState } from '../../../lib/requests/apply-request';
import { failoutInput, HOUR, NOW } from '../../helpers/requests';

const MINUTE = 60_000;
const END = NOW + 2 * HOUR;
const healthy: PeerState = { exists: true, hostCount: 3, failoutProperties: null };

function apply(props: ClusterProperties, body: object, now: number): ClusterProperties | undefined {
  const parsed = parseChangeRequest(JSON.stringify(body), { now });
  if (!parsed.ok) throw new Error(parsed.rejection.message);
  const result = applyRequest(props, parsed.request, { now, peers: () => healthy });
  return result.ok ? parseClusterProperties(serializeClusterProperties(result.props)) : undefined;
}

function shareAt(props: ClusterProperties, at: number): number {
  const config = createFailoutConfig(props.clusterName, props.failoutProperties);
  let moved = 0;
  for (let bucket = 0; bucket < 100; bucket++) if (config?.isBucketFailedOut(bucket, at)) moved++;
  return moved;
}

/** 2–5 steps of increasing percentages ending at 100, each but the last 1–20 minutes. */
const ramp = fc
  .uniqueArray(fc.integer({ min: 1, max: 99 }), { minLength: 1, maxLength: 4 })
  .chain((percents) => fc.tuple(fc.constant([...percents].sort((a, b) => a - b)), fc.array(fc.integer({ min: 1, max: 20 }), { minLength: percents.length, maxLength: percents.length })))
  .map(([percents, minutes]) => [...percents.map((percent, i) => ({ percent, duration: `PT${minutes[i]}M` })), { percent: 100 }]);

const body = (action: string) => ({ version: 1, requestId: `p-${action}`, action, cluster: 'greetings-lor1' });
const ramping = (steps: object[]) => apply(parseClusterProperties({ clusterName: 'greetings-lor1' }), failoutInput({ ramp: steps }), NOW)!;

describe('ramp control: properties', () => {
  it('a held ramp keeps its share until the end; resumed, it runs as the unheld ramp shifted by the time held', () => {
    fc.assert(
      fc.property(ramp, fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 130 }), (steps, holdMin, heldMin, probeMin) => {
        const before = ramping(steps);
        const holdAt = NOW + holdMin * MINUTE;
        const held = apply(before, body('rampHold'), holdAt);
        if (held === undefined) return; // nothing to hold (every step started): a rejection, checked elsewhere
        const probe = holdAt + probeMin * MINUTE;
        if (probe < END) expect(shareAt(held, probe)).toBe(shareAt(before, holdAt));
        const resumeAt = holdAt + heldMin * MINUTE;
        if (resumeAt >= END) return;
        const resumed = apply(held, body('rampResume'), resumeAt)!;
        const shift = resumeAt - holdAt;
        const at = resumeAt + probeMin * MINUTE;
        expect(shareAt(resumed, at)).toBe(at >= END ? 0 : shareAt(before, at - shift));
      }),
      { numRuns: 150 },
    );
  });

  it('an advance never moves less traffic at any time, and moves more now', () => {
    fc.assert(
      fc.property(ramp, fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 130 }), (steps, advanceMin, probeMin) => {
        const before = ramping(steps);
        const now = NOW + advanceMin * MINUTE;
        const advanced = apply(before, body('rampAdvance'), now);
        if (advanced === undefined) return;
        expect(shareAt(advanced, now)).toBeGreaterThan(shareAt(before, now));
        const at = now + probeMin * MINUTE;
        expect(shareAt(advanced, at)).toBeGreaterThanOrEqual(shareAt(before, at));
      }),
      { numRuns: 150 },
    );
  });
});
