import { describeCluster, formatClusterStatus, withDrills } from '../../../lib/operator';
import type { DrillNode, DrillRun } from '../../../lib/requests/drills';
import { clusterDrillDefinition } from '../../helpers/drill-nodes';

// `failout status` names a cluster's drills (docs/operators.md "Drills": `drills   weekly-lor1:
// RUNNING (drill-weekly-lor1-…)`): whether a run moves the cluster's traffic now, else the last outcome.

const MIN = 60_000;
const NOW = Date.UTC(2026, 11, 1, 14, 10);
const STARTED = NOW - 10 * MIN;

/** The run started at 14:00, moving greetings-lor1's traffic until 14:30. */
const running: DrillRun = { runId: `drill-weekly-lor1-${STARTED}`, status: 'running', at: STARTED, endsAt: STARTED + 30 * MIN, buckets: { from: 0, to: 99 }, peers: [{ cluster: 'greetings-lva1', weight: 2 }] };
/** A later due time (or a `drill run-now`) during that run: recorded skipped, newest first. */
const skippedMeanwhile: DrillRun = { runId: `drill-weekly-lor1-${NOW}`, status: 'skipped', at: NOW, skipReason: 'drillRunning', detail: `greetings-lor1 is in a run of drill weekly-lor1 (${running.runId})` };

function node(runs: readonly DrillRun[]): DrillNode {
  return { version: 1, definition: clusterDrillDefinition(NOW), runs };
}

describe("a cluster's drills in failout status", () => {
  it('says RUNNING with the run moving traffic, though a skip was recorded after it', () => {
    // Prepare
    const status = describeCluster('greetings-lor1', JSON.stringify({ clusterName: 'greetings-lor1' }), NOW);

    // Act
    const [withDrill] = withDrills([status], [node([skippedMeanwhile, running])], NOW);

    // Assess
    expect(withDrill!.drills).toEqual([{ name: 'weekly-lor1', running: true, lastOutcome: 'running', lastAt: new Date(STARTED).toISOString(), lastRunId: running.runId }]);
    expect(formatClusterStatus(withDrill!, NOW)).toContain(`drills   weekly-lor1: RUNNING (${running.runId})`);
  });

  it('gives the newest run when none moves traffic', () => {
    // Prepare
    const status = describeCluster('greetings-lor1', JSON.stringify({ clusterName: 'greetings-lor1' }), NOW + 40 * MIN);

    // Act
    const [withDrill] = withDrills([status], [node([skippedMeanwhile, running])], NOW + 40 * MIN);

    // Assess
    expect(withDrill!.drills).toEqual([{ name: 'weekly-lor1', running: false, lastOutcome: 'skipped', lastAt: new Date(NOW).toISOString(), lastRunId: skippedMeanwhile.runId }]);
  });
});
