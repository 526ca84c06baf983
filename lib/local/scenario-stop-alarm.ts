/**
 * The scenario's stop-conditions step (issue 16): a failout naming its peer's alarm, the peer broken
 * with the fault switch, and the alarm bringing the traffic home through the real path — the local
 * alarm evaluator's event → the failout-guard bundle → the queue → the worker → ZooKeeper → clients.
 */
import { errorAlarmName, type AlarmTransition } from './alarm-evaluator';
import { PEER_A, PEER_B, pct, type Step, type Steps } from './scenario-steps';
import { LOCAL_CLUSTER } from './topology';

/** The figure of issue 16: from the alarm event to 100 % of traffic back home. */
export const STOP_HOME_TARGET_MS = 1000;

/** Waits for the next transition of `alarm` to `to`. */
function nextTransition(s: Steps, alarm: string, to: string, timeoutMs = 15_000): Promise<AlarmTransition> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no transition of ${alarm} to ${to} within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = s.stack.alarms.onTransition((t) => {
      if (t.name !== alarm || t.to !== to) return;
      clearTimeout(timer);
      off();
      resolve(t);
    });
  });
}

/** The request ids of the guard's restores in its response to an event (a `GuardResponse`). */
function restoreIds(response: unknown): string[] {
  const restores = (response as { restores?: { requestId?: unknown }[] } | undefined)?.restores ?? [];
  return restores.map((r) => r.requestId).filter((id): id is string => typeof id === 'string');
}

/**
 * Fail lor1 out to lva1 and ltx1 with `--stop-alarm greetings-lva1-errors`, break lva1, and measure
 * from the alarm's event to the first request after the last one that did not land on lor1. The
 * request record must say the alarm stopped it. Two peers, not lva1 alone: earlier steps leave lor1
 * with a fourth host, and one peer of three hosts could not take it (the capacity guard).
 */
export const stopAlarmBringsTrafficHome: Step = async (s) => {
  const alarm = errorAlarmName(PEER_A);
  const topology = s.stack.topology;
  const sentAt = Date.now();
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', PEER_A, '--peer', PEER_B, '--for', '30m', '--stop-alarm', alarm, '--reason', 'scenario: stop alarm', '--wait');
  if (out.code !== 0) throw new Error(`failout out ${LOCAL_CLUSTER} --stop-alarm ${alarm} failed (exit ${out.code}): ${(out.stdout + out.stderr).trim().split('\n')[0] ?? ''}`);
  await s.timeToAll(sentAt, (x) => x.cluster !== LOCAL_CLUSTER);
  const fired = nextTransition(s, alarm, 'ALARM');
  topology.setFault(PEER_A, true);
  let transition: AlarmTransition;
  let homeMs: number;
  let response: unknown;
  try {
    transition = await fired;
    s.log(`  ${PEER_A} broken; ${alarm} in ALARM ${transition.at - sentAt} ms after the failout was sent`);
    response = await transition.response;
    homeMs = await s.timeToAll(transition.at, (x) => x.cluster === LOCAL_CLUSTER);
  } finally {
    topology.setFault(PEER_A, false);
  }
  const ids = restoreIds(response);
  const record = ids.length === 1 ? await s.cli('request', ids[0]!, '--json') : undefined;
  const parsed = record === undefined || record.code !== 0 ? undefined : { record: JSON.parse(record.stdout) as { stoppedByAlarm?: string; requestedBy?: string; status?: string } };
  const stoppedBy = parsed?.record.stoppedByAlarm;
  const status = await s.cli('status', LOCAL_CLUSTER, '--json');
  const state = (JSON.parse(status.stdout) as { clusters: { state: string }[] }).clusters[0]?.state;
  const after = await s.measure(1000);
  // The next steps start with the alarm OK again (its window empty of errors), as they found it.
  await s.until(() => s.stack.alarms.state(alarm) === 'OK', `${alarm} back to OK`);
  return {
    name: 'stop alarm: peer breaks, alarm brings traffic home',
    expectation: `${alarm} fires; 100 % back on lor1 ≤ ${STOP_HOME_TARGET_MS} ms after the alarm event; record says stopped by alarm`,
    measured: `alarm event → 100 % home: ${homeMs} ms; record ${ids[0] ?? '(none)'}: ${parsed?.record.status ?? '?'} by ${parsed?.record.requestedBy ?? '?'}, stopped by ${stoppedBy ?? 'nothing'}; lor1 ${state ?? '?'}, then ${pct(after.share(LOCAL_CLUSTER))} on lor1`,
    passed: homeMs <= STOP_HOME_TARGET_MS && stoppedBy === alarm && parsed?.record.requestedBy === 'failout-guard' && state === 'serving' && after.share(LOCAL_CLUSTER) === 100,
  };
};
