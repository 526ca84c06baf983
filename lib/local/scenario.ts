/**
 * The scripted end-to-end scenario (`npm start -- --scenario`, `npm run demo`, the e2e jest project)
 * over a running {@link LocalStack}: its steps (listed in `STEPS`), each with an expectation measured on the real traffic,
 * and a pass/fail table. Requests go through the `failout` CLI (`run(argv, io)`, in-process, handed in as a {@link CliRunner}).
 */
import type { LocalStack } from './stack';
import { PEER_A, PEER_B, pct, sleep, Steps, TARGETS, type CliRunner, type Step, type StepOutcome, type StepResult } from './scenario-steps';
import { capacityRejected, extendMovesTheEnd, rampAdvances } from './scenario-safety';
import { stopAlarmBringsTrafficHome } from './scenario-stop-alarm';
import { drillPasses, drillStopped } from './scenario-drills';
import { fabricEvacuated } from './scenario-evacuate';
import { observerFallback } from './scenario-observers';
import { fabricPercent, sharesByFabric } from './fabric-shares';
import { LOCAL_CLUSTER, LOCAL_FABRIC, type Backend } from './topology';
import { summarize } from './traffic';

export { TARGETS, type StepResult } from './scenario-steps';

async function steadyState(s: Steps): Promise<StepOutcome> {
  const from = Date.now();
  const m = await s.measure(2000);
  const fabrics = sharesByFabric(s.stack.traffic.allSamplesSince(from, Date.now()), s.stack.traffic.services);
  const local = m.share(LOCAL_CLUSTER);
  const home = fabrics.map((f) => ({ service: f.service, total: f.total, pct: fabricPercent(f, LOCAL_FABRIC), errors: f.errors }));
  return {
    name: 'steady state',
    expectation: `100 % on ${LOCAL_CLUSTER}, every service 100 % in ${LOCAL_FABRIC}, no errors`,
    measured: `${m.samples.length} requests: ${pct(local)} on ${LOCAL_CLUSTER}, ${m.errors} errors; ${home.map((h) => `${h.service} ${pct(h.pct)} of ${h.total} in ${LOCAL_FABRIC}`).join(', ')}`,
    passed: m.samples.length > 0 && local === 100 && m.errors === 0 && home.every((h) => h.total > 0 && h.pct === 100 && h.errors === 0),
  };
}

async function fullFailout(s: Steps): Promise<StepOutcome> {
  const sentAt = Date.now();
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', `${PEER_A}:2`, '--peer', `${PEER_B}:1`, '--for', '30m', '--reason', 'scenario step 2', '--wait');
  const tookMs = await s.timeToAll(sentAt, (x) => x.cluster !== LOCAL_CLUSTER);
  const m = await s.measure(3000);
  const moved = 100 - m.share(LOCAL_CLUSTER);
  const a = m.share(PEER_A);
  const splitA = a + m.share(PEER_B) === 0 ? 0 : (100 * a) / (a + m.share(PEER_B));
  const within = Math.abs(splitA - 200 / 3) <= TARGETS.splitTolerancePct;
  return {
    name: 'failout out lor1 → lva1:2, ltx1:1',
    expectation: `100 % moves; lva1:ltx1 = 2:1 ±${TARGETS.splitTolerancePct} %; send → 100 % time`,
    measured: `${pct(moved)} moved, lva1 ${pct(splitA)} of the moved (2:1 = 66.7 %), ${m.errors} errors; send → 100 %: ${tookMs} ms`,
    passed: out.code === 0 && moved === 100 && within && m.errors === 0,
  };
}

async function partialFailout(s: Steps): Promise<StepOutcome> {
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', `${PEER_A}:2`, '--peer', `${PEER_B}:1`, '--for', '30m', '--buckets', '0-49', '--wait');
  await sleep(500);
  const half = await s.measure(6000);
  const moved = 100 - half.share(LOCAL_CLUSTER);
  const restoredAt = Date.now();
  const restore = await s.cli('restore', LOCAL_CLUSTER, '--wait');
  const backMs = await s.timeToAll(restoredAt, (x) => x.cluster === LOCAL_CLUSTER);
  const after = await s.measure(1500);
  const [lo, hi] = TARGETS.halfRangePct;
  return {
    name: 'partial failout (buckets 0-49), restore',
    expectation: `${lo}-${hi} % moves; after restore 100 % back`,
    measured: `${pct(moved)} moved; restore → all back in ${backMs} ms, then ${pct(after.share(LOCAL_CLUSTER))} on lor1`,
    passed: out.code === 0 && restore.code === 0 && moved >= lo && moved <= hi && after.share(LOCAL_CLUSTER) === 100 && half.errors + after.errors === 0,
  };
}

async function badRequest(s: Steps): Promise<StepOutcome> {
  const bad = await s.cli('out', LOCAL_CLUSTER, '--peer', 'greetings-nowhere', '--for', '30m', '--wait');
  const reason = /REJECTED \([^)]*\): (\w+)/.exec(bad.stdout)?.[1];
  const started = Date.now();
  const good = await s.cli('out', LOCAL_CLUSTER, '--peer', PEER_A, '--for', '30m', '--wait');
  const appliedMs = Date.now() - started;
  const restore = await s.cli('restore', LOCAL_CLUSTER, '--wait');
  await s.timeToAll(Date.now(), (x) => x.cluster === LOCAL_CLUSTER);
  return {
    name: 'bad request (unknown peer), then a good one',
    expectation: `rejected with its reason; next request applied within ${TARGETS.nextAppliedMs} ms`,
    measured: `bad: exit ${bad.code}, ${reason ?? 'no reason shown'}; next: exit ${good.code} in ${appliedMs} ms (send → applied record)`,
    passed: bad.code === 1 && reason === 'unknownPeer' && good.code === 0 && /applied/.test(good.stdout) && appliedMs <= TARGETS.nextAppliedMs && restore.code === 0,
  };
}

async function controlPlaneFallback(s: Steps): Promise<StepOutcome> {
  const { stack } = s;
  const leaderPlane = (): string | undefined => stack.replicaViews().find((r) => r.role === 'leader')?.controlPlane;
  const from = Date.now();
  stack.planes.stopPrimaryMidRollout();
  const fallbackMs = await s.until(() => leaderPlane() === 'fallback', 'fallback');
  s.log(`  primary stopped mid-rollout; the bridge leader is on the fallback after ${fallbackMs} ms`);
  const primaryDown = stack.planes.primary.lifecycle === 'idle';
  const added: Backend = await stack.planes.addBackend(LOCAL_CLUSTER);
  const reachMs = await s.until(() => s.samples(Date.now() - 2000).some((x) => x.host === added.uri), `traffic to ${added.name}`);
  s.log(`  ${added.name} added on the fallback; clients send it traffic after ${reachMs} ms`);
  const restart = Date.now();
  await stack.planes.startPrimary();
  const returnMs = await s.until(() => leaderPlane() === 'primary', 'return to the primary');
  const errors = summarize(s.samples(from)).errors;
  return {
    name: 'primary control plane stopped, fallback, back',
    expectation: `falls back; endpoint added on the fallback gets traffic; back on the primary ≤ ${TARGETS.returnMs} ms`,
    measured: `${primaryDown ? 'primary down' : 'primary NOT down'}, fallback in ${fallbackMs} ms; ${added.name} gets traffic ${reachMs} ms after it was added; back on primary ${Date.now() - restart} ms after restart; ${errors} errors`,
    passed: primaryDown && returnMs <= TARGETS.returnMs && errors === 0,
  };
}

async function leaderKilled(s: Steps): Promise<StepOutcome> {
  const { stack } = s;
  const from = Date.now();
  const old = stack.leader()?.config.replicaId;
  const takeover = s.until(() => {
    const leader = stack.leader();
    return leader !== undefined && leader.config.replicaId !== old && leader.ready;
  }, 'a new leader');
  const killed = await stack.killLeader();
  const takeoverMs = await takeover;
  await sleep(2000);
  const samples = s.samples(from);
  const errors = summarize(samples).errors;
  // "Never stops": every 250 ms slice since the kill has requests.
  let gaps = 0;
  for (let t = from; t + 250 <= Date.now() - 100; t += 250) if (!samples.some((x) => x.at >= t && x.at < t + 250)) gaps++;
  const leader = stack.leader()?.config.replicaId;
  return {
    name: 'bridge leader killed',
    expectation: 'the standby leads; traffic never stops (0 errors, no gap)',
    measured: `${killed ?? '?'} killed; ${leader ?? 'nobody'} leads after ${takeoverMs} ms; ${samples.length} requests, ${errors} errors, ${gaps} empty 250 ms slices`,
    passed: killed !== undefined && leader !== undefined && leader !== killed && errors === 0 && gaps === 0,
  };
}

const STEPS: readonly Step[] = [
  steadyState,
  fullFailout,
  partialFailout,
  badRequest,
  rampAdvances,
  extendMovesTheEnd,
  controlPlaneFallback,
  capacityRejected,
  stopAlarmBringsTrafficHome,
  drillPasses,
  drillStopped,
  // After every single-cluster step has restored what it failed out (an open failout with a peer in
  // lor1 would be stranded, and the evacuation refused); it restores the fabric before the last step.
  fabricEvacuated,
  leaderKilled,
];

/** The short run (`{ short: true }`): steady state, a failout and a partial one with its restore. */
const SHORT_STEPS: readonly Step[] = [steadyState, fullFailout, partialFailout];

/**
 * The steps for a stack: with `--discovery xds` the observer step follows the control plane's (the
 * two outages one after the other, each with its own failout restored before the next step).
 */
export function scenarioSteps(discovery: LocalStack['discovery'], short = false): readonly Step[] {
  if (short) return SHORT_STEPS;
  if (discovery !== 'xds') return STEPS;
  const at = STEPS.indexOf(controlPlaneFallback) + 1;
  return [...STEPS.slice(0, at), observerFallback, ...STEPS.slice(at)];
}

/** What to run: every step (default), or the short run (`short`). */
export interface ScenarioOptions {
  /** Only the first steps (steady state, full and partial failout): the other discovery mode's check. */
  readonly short?: boolean;
}

/** Runs the steps in order (a failing step does not stop the rest) and returns their results. */
export async function runScenario(stack: LocalStack, out: (line: string) => void, cli: CliRunner, options: ScenarioOptions = {}): Promise<StepResult[]> {
  const steps = new Steps(stack, out, cli);
  const results: StepResult[] = [];
  for (const [i, step] of scenarioSteps(stack.discovery, options.short).entries()) {
    out(`\nstep ${i + 1}…`);
    let result: StepOutcome;
    try {
      result = await step(steps);
    } catch (err) {
      result = { name: step.name, expectation: '(see above)', measured: `error: ${err instanceof Error ? err.message : String(err)}`, passed: false };
    }
    out(`step ${i + 1} ${result.passed ? 'PASS' : 'FAIL'}: ${result.name} — ${result.measured}`);
    results.push({ step: i + 1, ...result });
  }
  return results;
}

/** The summary table, as text lines. */
export function formatResults(results: readonly StepResult[]): string[] {
  const rows = results.map((r) => [String(r.step), r.passed ? 'PASS' : 'FAIL', r.name, r.expectation, r.measured]);
  const header = ['#', 'result', 'step', 'expectation', 'measured'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const passed = results.filter((r) => r.passed).length;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), '', `${passed}/${results.length} steps passed`];
}
