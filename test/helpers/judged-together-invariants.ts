import type fc from 'fast-check';
import { MAX_DRILL_RUNS } from '../../lib/requests/drill-node';
import { type Outcome } from '../../lib/requests/request-writer';
import { allowedTable, describeFailout, isActive, isOpen, loadsOf, type Routing } from './judged-together-oracle';
import { CLUSTERS, KEYS, MODEL_START, serviceOf, type ModelClock, type ModelWorld, type Snapshot } from './judged-together-world';

/**
 * The invariants of the "judged together" model test (issue 21, item 9; the test file lists them), checked
 * after every step against what ZooKeeper holds and where the real FailoutClient sends keys, and the
 * model they keep between steps.
 */

/** The capacity guard's limit the worker runs with (its default). */
export const MAX_FACTOR = 2.0;
/** One minute in ms. */
export const MINUTE = 60_000;

/**
 * What the model remembers between steps: the clock, ids, every drill run's status last read, and
 * (for steps that aim at the state) the clusters with a window that has not ended and the peers they name.
 */
export interface Model {
  readonly clock: ModelClock;
  nextId: number;
  readonly runs: Map<string, { readonly drill: string; status: string }>;
  open: readonly string[];
  receiving: readonly string[];
  /** This run's steps as sent (cluster resolved) with their outcomes: failure messages show them. */
  readonly trace: string[];
}

/** A step of the model. */
export type Step = fc.AsyncCommand<Model, ModelWorld>;

/** A fresh model at the start of the clock. */
export function newModel(clock: ModelClock): Model {
  return { clock, nextId: 1, runs: new Map(), open: [], receiving: [], trace: [] };
}

/** Where a run's status may go next (drill-node.ts: the first alarm seen in a run decides it). */
const NEXT: Readonly<Record<string, readonly string[]>> = {
  running: ['running', 'passed', 'failed', 'interrupted', 'replaced'],
  passed: ['passed', 'failed', 'interrupted'],
  failed: ['failed', 'interrupted'],
  interrupted: ['interrupted', 'failed'],
  replaced: ['replaced'],
  skipped: ['skipped'],
};

/** The state at a step, for failure messages: every cluster's hosts and failout. */
function described(snapshot: Snapshot, hosts: ReadonlyMap<string, number>, now: number): string {
  return CLUSTERS.map((c) => `  ${c} (${hosts.get(c)} hosts): ${describeFailout(snapshot.failouts.get(c) ?? null, now)}`).join('\n');
}

/**
 * Services with a window that has not ended and carries a recorded force (one that overrode something).
 * (b) and (d) exempt a whole service: peers are always of the same service, so a force moves load and
 * strands traffic only there, and telling which force caused which overload would take a routing model
 * as clever as the one under test. A `forced: []` (force given, nothing overridden) exempts nothing.
 */
function forcedServices(r: Routing): Set<string> {
  const out = new Set<string>();
  for (const [cluster, f] of r.failouts) if ((f?.windows ?? []).some((w) => isOpen(w, r.now) && (w.forced?.length ?? 0) > 0)) out.add(serviceOf(cluster));
  return out;
}

/**
 * (a) for every key: FailoutClient's decision (the ClusterRouter call D2Client makes), and for one key
 * in ten the whole resolve through D2Client too (URL, service lookup, decision, host pick).
 */
async function checkRouting(world: ModelWorld, r: Routing): Promise<string[]> {
  const problems: string[] = [];
  const table = allowedTable(r);
  for (let i = 0; i < KEYS.length && problems.length < 3; i++) {
    const { key, home, bucket } = KEYS[i]!;
    const decided = world.decide(key, home);
    const targets = [typeof decided === 'string' ? decided : await decided, ...(i % 10 === 0 ? [await world.route(key, home)] : [])];
    const allowed = table.get(home)![bucket]!;
    for (const target of targets) if (!allowed.includes(target)) problems.push(`(a) key ${key} of ${home} (bucket ${bucket}) went to ${target}; allowed: ${allowed.join(', ')}`);
  }
  return problems;
}

function checkLoads(r: Routing): string[] {
  const problems: string[] = [];
  const forced = forcedServices(r);
  const { factor, stranded } = loadsOf(r);
  for (const [cluster, f] of factor) {
    if (f > MAX_FACTOR + 1e-9 && !forced.has(serviceOf(cluster))) problems.push(`(b) ${cluster} carries ${f.toFixed(2)}× its load per host, above ${MAX_FACTOR}, and no force was recorded`);
  }
  for (const [cluster, buckets] of stranded) {
    if (!forced.has(serviceOf(cluster))) problems.push(`(d) ${cluster} is failed out for ${buckets.length} buckets (${buckets[0]}…) with no eligible peer, and no force was recorded`);
  }
  return problems;
}

function checkDrills(model: Model, snapshot: Snapshot, r: Routing): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [name, node] of snapshot.drills) {
    const ids = node.runs.map((run) => run.runId);
    if (new Set(ids).size !== ids.length) problems.push(`(c) drill ${name} holds a run id twice: ${ids.join(', ')}`);
    const windows = r.failouts.get(node.definition.cluster)?.windows ?? [];
    for (const run of node.runs) {
      seen.add(run.runId);
      const status = run.status === 'running' && run.endsAt !== undefined && run.endsAt <= r.now ? 'passed' : run.status;
      const before = model.runs.get(run.runId);
      if (before !== undefined && !(NEXT[before.status] ?? []).includes(status)) problems.push(`(c) run ${run.runId} went from ${before.status} to ${status}`);
      if (before?.status !== status) count(`run ${status}`);
      model.runs.set(run.runId, { drill: name, status });
      const moving = windows.some((w) => w.drill === name && w.requestId === run.runId && isActive(w, r.now));
      if ((status === 'running') !== moving) problems.push(`(c) run ${run.runId} is ${status} while its window ${moving ? 'moves' : 'does not move'} traffic`);
    }
    for (const [runId, known] of model.runs) {
      if (known.drill === name && !seen.has(runId) && node.runs.length < MAX_DRILL_RUNS) problems.push(`(c) run ${runId} (${known.status}) vanished from drill ${name}`);
    }
  }
  for (const [cluster, f] of r.failouts) {
    for (const w of f?.windows ?? []) {
      if (w.drill === undefined || !isActive(w, r.now)) continue;
      const run = snapshot.drills.get(w.drill)?.runs.find((x) => x.runId === w.requestId);
      if (run === undefined || model.runs.get(run.runId)?.status !== 'running') problems.push(`(c) ${cluster} moves traffic for drill ${w.drill} run ${w.requestId}, which is ${run === undefined ? 'not in its node' : model.runs.get(run.runId)?.status}`);
    }
  }
  return problems;
}

/** Every invariant after a step; throws naming each broken one with the state. */
export async function verify(model: Model, world: ModelWorld): Promise<Snapshot> {
  await world.settle();
  const snapshot = await world.snapshot();
  const r: Routing = { failouts: snapshot.failouts, hosts: world.hosts, now: model.clock.now };
  const problems = [...(await checkRouting(world, r)), ...checkLoads(r), ...checkDrills(model, snapshot, r)];
  const { factor, stranded } = loadsOf(r);
  if ([...factor.values()].some((f) => f > MAX_FACTOR + 1e-9)) count('state: a cluster above 2.0× (forced)');
  if (stranded.size > 0) count('state: a failout stranded (forced)');
  if ([...factor.values()].some((f) => f > 1.5 && f <= MAX_FACTOR + 1e-9)) count('state: a cluster in (1.5×, 2.0×]');
  if ([...r.failouts.values()].filter((f) => f?.windows.some((w) => isActive(w, r.now))).length >= 2) count('state: two or more clusters failed out');
  model.open = CLUSTERS.filter((c) => snapshot.failouts.get(c)?.windows.some((w) => isOpen(w, r.now)));
  model.receiving = CLUSTERS.filter((c) => model.open.some((o) => snapshot.failouts.get(o)?.peers.some((p) => p.peer === c)));
  if (problems.length > 0) fail(model, `${problems.join('\n')}\nstate at +${(model.clock.now - MODEL_START) / MINUTE}m:\n${described(snapshot, world.hosts, model.clock.now)}`);
  return snapshot;
}

/** Throws `message` with this run's steps as sent (the shrunk counterexample's, when fast-check reports it). */
export function fail(model: Model, message: string): never {
  const steps = model.trace.map((t, i) => `  ${i + 1}. ${t}`).join('\n');
  throw new Error(`${message}\nafter the steps (as sent):\n${steps}`);
}

/** What the runs exercised (`<step> <status> [reason]` → count), printed once: a model that never reaches a rule tests nothing. */
export const tally = new Map<string, number>();
function count(what: string): void {
  tally.set(what, (tally.get(what) ?? 0) + 1);
}

/** Traces and counts a request's outcome; throws when its status is not one of `statuses`. */
export function expectStatus(model: Model, outcome: Outcome, statuses: readonly string[], what: string): void {
  const record = outcome.record;
  model.trace.push(`${what}: ${outcome.status}${outcome.reason ? ` ${outcome.reason}` : ''}${record.forced ? ` forced [${record.forced.join(',')}]` : ''}${record.unchanged ? ' (unchanged)' : ''}`);
  if (outcome.attempts > 1) count(`${what.split(' ')[0]} retried after a version conflict`);
  count(`${what.split(' ')[0]} ${outcome.status}${outcome.reason ? ` ${outcome.reason}` : ''}${outcome.record.forced ? ` forced[${outcome.record.forced.join(',')}]` : ''}${outcome.record.unchanged ? ' unchanged' : ''}`);
  if (!statuses.includes(outcome.status)) fail(model, `${what}: ${outcome.status} ${outcome.reason ?? ''} ${record.message ?? ''}`);
}

