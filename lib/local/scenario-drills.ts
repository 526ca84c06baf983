/**
 * The scenario's drill steps (issue 16, "Drills"): a drill that passes and one that is stopped, run
 * with `failout drill run-now` (the runner's checks, alarm states from the local alarm evaluator's
 * FAILOUT_ALARMS_URL) through the real pipeline — queue → worker → ZooKeeper → clients — and, for the
 * stopped one, the evaluator's alarm event → the failout-guard bundle → a restore with
 * `stoppedByAlarm`, which the worker records as the run `failed`.
 */
import { errorAlarmName } from './alarm-evaluator';
import { PEER_A, PEER_B, pct, sleep, type Step, type Steps } from './scenario-steps';
import { LOCAL_CLUSTER } from './topology';

/** How long the passing drill moves the traffic. */
export const PASSING_DRILL_MS = 6000;

/**
 * Both peers, 2:1, as the stop-alarm step: the capacity step leaves lor1 with one host more than each
 * peer, so a single peer would be refused (`insufficientPeerCapacity`), and rightly so.
 */
const PEERS = ['--peer', `${PEER_A}:2`, '--peer', PEER_B];

/** A schedule that never comes due during a scenario (03:00 UTC on January 1st): these drills run by run-now only. */
const NEVER_DURING_SCENARIO = 'cron(0 3 1 1 ? *)';

interface RunView {
  readonly runId: string;
  readonly status: string;
  readonly skipReason?: string;
  readonly detail?: string;
  readonly stoppedByAlarm?: string;
}

async function lastRun(s: Steps, name: string): Promise<RunView | undefined> {
  const history = await s.cli('drill', 'history', name, '--json');
  if (history.code !== 0) return undefined;
  return (JSON.parse(history.stdout) as { runs: RunView[] }).runs[0];
}

/** Waits until the outcome alarm is OK (an earlier step may have left it in ALARM for a moment). */
async function alarmOk(s: Steps, alarm: string): Promise<void> {
  await s.until(() => s.stack.alarms.state(alarm) !== 'ALARM', `${alarm} back to OK`);
}

/**
 * A drill of lor1 → lva1:2, ltx1:1 for 6 s, outcome alarm lva1's error alarm: run now, the traffic
 * moves, the alarm stays OK, the window ends, the traffic is home and the history says `passed`.
 */
export const drillPasses: Step = async (s) => {
  const name = 'scenario-passes';
  const alarm = errorAlarmName(PEER_A);
  await alarmOk(s, alarm);
  const put = await s.cli('drill', 'put', name, '--cluster', LOCAL_CLUSTER, ...PEERS, '--for', `${PASSING_DRILL_MS / 1000}s`, '--every', NEVER_DURING_SCENARIO, '--outcome-alarm', alarm, '--wait');
  const sentAt = Date.now();
  const run = await s.cli('drill', 'run-now', name, '--wait');
  if (run.code !== 0) throw new Error(`the run was not applied: ${run.stdout.trim().split('\n').slice(0, 2).join(' / ')}`);
  const movedMs = await s.timeToAll(sentAt, (x) => x.cluster !== LOCAL_CLUSTER);
  const during = await s.measure(1000);
  const moved = 100 - during.share(LOCAL_CLUSTER);
  await sleep(Math.max(0, sentAt + PASSING_DRILL_MS + 500 - Date.now()));
  const homeMs = await s.timeToAll(sentAt + PASSING_DRILL_MS, (x) => x.cluster === LOCAL_CLUSTER);
  const outcome = await lastRun(s, name);
  const deleted = await s.cli('drill', 'delete', name, '--wait');
  return {
    name: 'drill passes: run now, alarm stays OK, window ends',
    expectation: `100 % to the peers during the ${PASSING_DRILL_MS / 1000} s run, home after it; history says passed`,
    measured: `run ${outcome?.runId ?? '?'}: ${outcome?.status ?? '?'}; all moved ${movedMs} ms after run-now, ${pct(moved)} off lor1 during; home ${homeMs} ms after the window's end`,
    passed: put.code === 0 && run.code === 0 && moved === 100 && outcome?.status === 'passed' && deleted.code === 0,
  };
};

/**
 * A drill of lor1 → lva1:2, ltx1:1 for 2 minutes, outcome alarm lva1's error alarm: run now, break
 * lva1, the alarm fires, the guard restores lor1, the traffic comes home and the history says `failed`,
 * stopped by that alarm.
 */
export const drillStopped: Step = async (s) => {
  const name = 'scenario-stopped';
  const alarm = errorAlarmName(PEER_A);
  await alarmOk(s, alarm);
  const put = await s.cli('drill', 'put', name, '--cluster', LOCAL_CLUSTER, ...PEERS, '--for', '2m', '--every', NEVER_DURING_SCENARIO, '--outcome-alarm', alarm, '--wait');
  const sentAt = Date.now();
  const run = await s.cli('drill', 'run-now', name, '--wait');
  if (run.code !== 0) throw new Error(`the run was not applied: ${run.stdout.trim().split('\n').slice(0, 2).join(' / ')}`);
  await s.timeToAll(sentAt, (x) => x.cluster !== LOCAL_CLUSTER);
  const topology = s.stack.topology;
  const brokenAt = Date.now();
  topology.setFault(PEER_A, true);
  let homeMs: number;
  try {
    homeMs = await s.timeToAll(brokenAt, (x) => x.cluster === LOCAL_CLUSTER);
  } finally {
    topology.setFault(PEER_A, false);
  }
  let outcome: RunView | undefined;
  // The guard's restore is applied by the time the traffic is home; its record of the run follows in the same write.
  for (let i = 0; i < 100 && outcome?.status !== 'failed'; i++) {
    outcome = await lastRun(s, name);
    if (outcome?.status !== 'failed') await sleep(100);
  }
  await alarmOk(s, alarm);
  const deleted = await s.cli('drill', 'delete', name, '--wait');
  return {
    name: 'drill stopped: outcome alarm fires, guard restores',
    expectation: `${alarm} fires; the guard restores ${LOCAL_CLUSTER}; history says failed, stopped by ${alarm}`,
    measured: `run ${outcome?.runId ?? '?'}: ${outcome?.status ?? '?'}${outcome?.stoppedByAlarm ? ` by ${outcome.stoppedByAlarm}` : ''}; traffic home ${homeMs} ms after ${PEER_A} broke`,
    passed: put.code === 0 && run.code === 0 && outcome?.status === 'failed' && outcome.stoppedByAlarm === alarm && deleted.code === 0,
  };
};
