import fc from 'fast-check';
import { describeFailout, isOpen } from './judged-together-oracle';
import { expectStatus, fail, MINUTE, verify, type Model, type Step } from './judged-together-invariants';
import { type Outcome } from '../../lib/requests/request-writer';
import { CLUSTERS, peersOf, type ModelWorld, type Snapshot } from './judged-together-world';

/**
 * The steps of the "judged together" model test (issue 21, item 9), each one request (or two) as its
 * sender would send it, through the real handler, followed by every invariant (`verify`). Requests
 * aim at a cluster by {@link Aim}: any cluster, one with a window that has not ended, or one such a
 * window names as a peer, so restores, alarms and extends mostly find something to act on and new
 * failouts often land on another failout's peer (where stranding and capacity are judged).
 */

/** Which cluster a step acts on: `pick` among every cluster, the clusters with an open window, or the peers those name (every cluster when the list is empty). */
export interface Aim {
  readonly among: 'any' | 'open' | 'receiving';
  readonly pick: number;
}

function aimAt(model: Model, aim: Aim): string {
  const list = aim.among === 'open' ? model.open : aim.among === 'receiving' ? model.receiving : CLUSTERS;
  const from = list.length === 0 ? CLUSTERS : list;
  return from[aim.pick % from.length]!;
}

/** The aim as generated (the cluster it resolves to depends on the state: failure messages list the steps as sent). */
function aimText(aim: Aim): string {
  return aim.among === 'any' ? CLUSTERS[aim.pick % CLUSTERS.length]! : `${aim.among}#${aim.pick}`;
}

function peerList(cluster: string, picks: readonly number[], weights: readonly number[]): { cluster: string; weight: number }[] {
  const peers = peersOf(cluster);
  return picks.map((i) => ({ cluster: peers[i]!, weight: weights[i]! }));
}

function drillOf(cluster: string): string {
  return `drill-${cluster}`;
}

/** What an operator's failout asks for. */
export interface OutSpec {
  readonly aim: Aim;
  /** Indexes into the other clusters of the service. */
  readonly picks: readonly number[];
  readonly weights: readonly [number, number];
  readonly buckets: { readonly from: number; readonly to: number } | undefined;
  readonly ramp: { readonly first: number; readonly hold: number } | undefined;
  /** Minutes from now to the window's start; 0: now. */
  readonly startMin: number;
  readonly durationMin: number;
  readonly stopAlarm: boolean;
  readonly force: boolean;
}

/** An operator's failout as the CLI sends it, aimed at the model's state. */
function failoutOf(model: Model, s: OutSpec): { cluster: string; body: Record<string, unknown>; text: string } {
  const cluster = aimAt(model, s.aim);
  const peers = peerList(cluster, s.picks, s.weights);
  const body = {
    version: 1,
    requestId: `out-${model.nextId++}`,
    action: 'failout',
    cluster,
    peers,
    duration: `PT${s.durationMin}M`,
    requestedBy: 'oncall@example.com',
    reason: 'model',
    ...(s.startMin > 0 ? { offlineAt: model.clock.now + s.startMin * MINUTE } : {}),
    ...(s.buckets ? { buckets: s.buckets } : {}),
    ...(s.ramp ? { ramp: [{ percent: s.ramp.first, duration: `PT${s.ramp.hold}M` }, { percent: 100 }] } : {}),
    ...(s.stopAlarm ? { stopAlarms: [`${cluster}-errors`] } : {}),
    ...(s.force ? { force: true } : {}),
  };
  return { cluster, body, text: `failout ${cluster} → ${peers.map((p) => `${p.cluster}:${p.weight}`).join(',')}${details(s)}` };
}

function details(s: OutSpec): string {
  const share = s.buckets ? ` buckets ${s.buckets.from}-${s.buckets.to}` : '';
  const ramp = s.ramp ? ` ramp ${s.ramp.first}%:${s.ramp.hold}m,100%` : '';
  const at = s.startMin > 0 ? ` at +${s.startMin}m` : '';
  return `${share}${ramp}${at} for ${s.durationMin}m${s.stopAlarm ? ' stop-alarm' : ''}${s.force ? ' FORCE' : ''}`;
}

function outText(s: OutSpec): string {
  return `out ${aimText(s.aim)} → ${s.picks.map((i) => `#${i}:${s.weights[i]}`).join(',')}${details(s)}`;
}

/** Audit (issue 21, item 4): an applied failout's windows are its own, and carry exactly what the record says `force` overrode. */
function audit(model: Model, snapshot: Snapshot, sent: ReturnType<typeof failoutOf>, force: boolean, outcome: Outcome): void {
  if (outcome.status !== 'applied') return;
  const id = String(sent.body.requestId);
  const recorded = outcome.record.forced === undefined ? undefined : JSON.stringify(outcome.record.forced);
  if (force !== (recorded !== undefined)) fail(model, `failout ${id}: force ${force}, but the record says forced ${recorded}`);
  const windows = snapshot.failouts.get(sent.cluster)?.windows ?? [];
  if (windows.some((w) => w.requestId !== id || (w.forced === undefined ? undefined : JSON.stringify(w.forced)) !== recorded)) {
    fail(model, `failout ${id} applied (forced ${recorded}), but ${sent.cluster} has ${describeFailout(snapshot.failouts.get(sent.cluster) ?? null, model.clock.now)}`);
  }
}

/** An operator's failout (forced or not). */
class OutStep implements Step {
  constructor(readonly spec: OutSpec) {}
  check = (): boolean => true;
  async run(model: Model, world: ModelWorld): Promise<void> {
    const sent = failoutOf(model, this.spec);
    const outcome = await world.send(sent.body);
    expectStatus(model, outcome, ['applied', 'rejected'], sent.text);
    audit(model, await verify(model, world), sent, this.spec.force, outcome);
  }
  toString = (): string => outText(this.spec);
}

/**
 * Two operators' failouts of different clusters at once, through two workers (two Lambda environments
 * on two sessions): each is judged against the other's result or refused, never both against the old
 * view (the view's compare-and-set, issue 21 item 1).
 */
class TogetherStep implements Step {
  constructor(readonly specs: readonly [OutSpec, OutSpec]) {}
  check = (model: Readonly<Model>): boolean => aimAt(model as Model, this.specs[0].aim) !== aimAt(model as Model, this.specs[1].aim);
  async run(model: Model, world: ModelWorld): Promise<void> {
    const sent = [failoutOf(model, this.specs[0]), failoutOf(model, this.specs[1])] as const;
    const outcomes = await world.sendTogether(sent[0].body, sent[1].body);
    outcomes.forEach((o, i) => expectStatus(model, o, ['applied', 'rejected'], `together ${sent[i]!.text}`));
    const snapshot = await verify(model, world);
    outcomes.forEach((o, i) => audit(model, snapshot, sent[i]!, this.specs[i]!.force, o));
  }
  toString = (): string => `together [${outText(this.specs[0])}] [${outText(this.specs[1])}]`;
}

/** An operator's restore: never refused, and the cluster has no open window after it. */
class RestoreStep implements Step {
  constructor(readonly aim: Aim) {}
  check = (): boolean => true;
  async run(model: Model, world: ModelWorld): Promise<void> {
    const cluster = aimAt(model, this.aim);
    const outcome = await world.send({ version: 1, requestId: `restore-${model.nextId++}`, action: 'restore', cluster, requestedBy: 'oncall@example.com' });
    expectStatus(model, outcome, ['applied'], `restore ${cluster}`);
    const snapshot = await verify(model, world);
    if ((snapshot.failouts.get(cluster)?.windows ?? []).some((w) => isOpen(w, model.clock.now))) fail(model, `restore ${cluster} applied, but a window is still open`);
  }
  toString = (): string => `restore ${aimText(this.aim)}`;
}

/** An operator's extend of the cluster's failout (`notFailedOut` when there is none). */
class ExtendStep implements Step {
  constructor(readonly spec: { readonly aim: Aim; readonly durationMin: number }) {}
  check = (): boolean => true;
  async run(model: Model, world: ModelWorld): Promise<void> {
    const cluster = aimAt(model, this.spec.aim);
    const outcome = await world.send({ version: 1, requestId: `extend-${model.nextId++}`, action: 'extend', cluster, duration: `PT${this.spec.durationMin}M`, requestedBy: 'oncall@example.com' });
    expectStatus(model, outcome, ['applied', 'rejected'], `extend ${cluster} for ${this.spec.durationMin}m`);
    await verify(model, world);
  }
  toString = (): string => `extend ${aimText(this.spec.aim)} for ${this.spec.durationMin}m`;
}

/** A drill comes due: its definition put (applied), then its run's failout as the runner sends it; the run is `running` if applied, `skipped` if not. */
class DrillStep implements Step {
  constructor(readonly spec: { readonly aim: Aim; readonly picks: readonly number[]; readonly durationMin: number; readonly half: boolean }) {}
  // The runner's run id is the drill and the time it was due: one run per drill and instant.
  check = (model: Readonly<Model>): boolean => !model.runs.has(`drill-${drillOf(aimAt(model as Model, this.spec.aim))}-${model.clock.now}`);
  async run(model: Model, world: ModelWorld): Promise<void> {
    const { aim, picks, durationMin, half } = this.spec;
    const cluster = aimAt(model, aim);
    const drill = drillOf(cluster);
    const shared = { version: 1, cluster, drill, peers: peerList(cluster, picks, [1, 1]), duration: `PT${durationMin}M`, ...(half ? { buckets: { from: 0, to: 49 } } : {}) };
    const alarms = { outcomeAlarm: `${drill}-outcome`, blockingAlarms: [`${drill}-deploys`] };
    const put = await world.send({ ...shared, requestId: `put-${model.nextId++}`, action: 'putDrill', every: 'rate(10 minutes)', ...alarms, requestedBy: 'oncall@example.com' });
    expectStatus(model, put, ['applied'], `putDrill ${drill} → ${shared.peers.map((p) => p.cluster).join(',')}`);
    const runId = `drill-${drill}-${model.clock.now}`;
    const run = await world.send({ ...shared, requestId: runId, action: 'failout', requestedBy: 'failout-drills', reason: `drill ${drill}`, stopAlarms: [alarms.outcomeAlarm, ...alarms.blockingAlarms] });
    expectStatus(model, run, ['applied', 'rejected'], `drill ${runId} for ${durationMin}m${half ? ' buckets 0-49' : ''}`);
    await verify(model, world);
    const expected = run.status === 'applied' ? 'running' : 'skipped';
    if (model.runs.get(runId)?.status !== expected) fail(model, `(c) drill run ${runId} was ${run.status}, but its run is ${model.runs.get(runId)?.status ?? 'missing'}`);
  }
  toString = (): string => `drill ${aimText(this.spec.aim)} → ${this.spec.picks.map((i) => `#${i}`).join(',')} for ${this.spec.durationMin}m${this.spec.half ? ' buckets 0-49' : ''}`;
}

/** An alarm fires: the guard's (a drill's: the runner's) restore naming it, seen `lagMin` minutes ago. Never refused. */
class AlarmStep implements Step {
  constructor(readonly spec: { readonly aim: Aim; readonly kind: 'errors' | 'outcome' | 'deploys'; readonly lagMin: number }) {}
  check = (): boolean => true;
  async run(model: Model, world: ModelWorld): Promise<void> {
    const { aim, kind, lagMin } = this.spec;
    const cluster = aimAt(model, aim);
    const drill = kind === 'errors' ? undefined : drillOf(cluster);
    const alarm = drill === undefined ? `${cluster}-errors` : `${drill}-${kind}`;
    const outcome = await world.send({
      version: 1,
      requestId: `guard-${model.nextId++}`,
      action: 'restore',
      cluster,
      requestedBy: 'failout-guard',
      reason: `stopped by alarm ${alarm}`,
      stoppedByAlarm: alarm,
      alarmAt: model.clock.now - lagMin * MINUTE,
      ...(drill === undefined ? {} : { drill }),
    });
    expectStatus(model, outcome, ['applied'], `alarm ${alarm}${lagMin > 0 ? ` seen ${lagMin}m ago` : ''}`);
    await verify(model, world);
  }
  toString = (): string => `alarm ${this.spec.kind} of ${aimText(this.spec.aim)}${this.spec.lagMin > 0 ? ` seen ${this.spec.lagMin}m ago` : ''}`;
}

/** Time passes: windows start and end with no write. */
class ClockStep implements Step {
  constructor(readonly minutes: number) {}
  check = (): boolean => true;
  async run(model: Model, world: ModelWorld): Promise<void> {
    model.clock.now += this.minutes * MINUTE;
    model.trace.push(`+${this.minutes}m`);
    await verify(model, world);
  }
  toString = (): string => `+${this.minutes}m`;
}

const pick = fc.integer({ min: 0, max: CLUSTERS.length - 1 });
const aim = (weights: Readonly<Partial<Record<Aim['among'], number>>>): fc.Arbitrary<Aim> =>
  fc.oneof(...(Object.keys(weights) as Aim['among'][]).map((among) => ({ weight: weights[among]!, arbitrary: pick.map((p) => ({ among, pick: p })) })));
const picks = fc.subarray([0, 1], { minLength: 1 });
const weights = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }));
const buckets = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 90 }).map((p) => ({ from: 0, to: p - 1 })) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })).map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) })) },
);
const outSpec = (force: fc.Arbitrary<boolean>): fc.Arbitrary<OutSpec> =>
  fc.record({
    aim: aim({ any: 2, receiving: 2, open: 1 }),
    picks,
    weights,
    buckets,
    ramp: fc.option(fc.record({ first: fc.integer({ min: 10, max: 60 }), hold: fc.constantFrom(5, 10, 20) }), { nil: undefined, freq: 3 }),
    startMin: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 5, max: 120 }) }),
    durationMin: fc.integer({ min: 30, max: 240 }),
    stopAlarm: fc.boolean(),
    force,
  });

/** Every step, weighted: mostly operators' failouts and drills, with restores, alarms, extends, forced failouts and time between. */
export const STEP: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: outSpec(fc.constant(false)).map((s) => new OutStep(s)) },
  { weight: 1, arbitrary: outSpec(fc.constant(true)).map((s) => new OutStep(s)) },
  { weight: 1, arbitrary: fc.tuple(outSpec(fc.constant(false)), outSpec(fc.constant(false))).map((specs) => new TogetherStep(specs)) },
  { weight: 2, arbitrary: aim({ open: 3, any: 1 }).map((a) => new RestoreStep(a)) },
  { weight: 1, arbitrary: fc.record({ aim: aim({ open: 3, any: 1 }), durationMin: fc.integer({ min: 10, max: 180 }) }).map((s) => new ExtendStep(s)) },
  { weight: 3, arbitrary: fc.record({ aim: aim({ any: 2, receiving: 1, open: 1 }), picks, durationMin: fc.integer({ min: 10, max: 60 }), half: fc.boolean() }).map((s) => new DrillStep(s)) },
  {
    weight: 2,
    arbitrary: fc
      .record({ aim: aim({ open: 3, any: 1 }), kind: fc.constantFrom('errors' as const, 'outcome' as const, 'deploys' as const), lagMin: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })) })
      .map((s) => new AlarmStep(s)),
  },
  { weight: 3, arbitrary: fc.constantFrom(1, 5, 10, 20, 30, 60, 120).map((m) => new ClockStep(m)) },
);

/** Hosts per cluster, 1–4 each. */
export const HOST_COUNTS: fc.Arbitrary<Map<string, number>> = fc.tuple(...CLUSTERS.map(() => fc.integer({ min: 1, max: 4 }))).map((counts) => new Map(CLUSTERS.map((c, i) => [c, counts[i]!])));
