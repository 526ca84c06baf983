import fc from 'fast-check';
import { CLUSTERS, drillOf, EVACUATION_ALARM, FABRICS, fabricOf, peersOf, serviceOf, type FleetWorld } from './fleet-model-world';
import { MINUTE, openWindows, touchesOf, verifyRedelivery, verifyStep, type FleetModel, type Sent } from './fleet-model-invariants';

/**
 * The steps of the fleet model test: each sends one request (or several at once, through different
 * workers) as the CLI, the console or the stop-conditions guard would, then checks every invariant
 * (fleet-model-invariants.ts). Requests aim at the state: at any cluster, at one whose failout has not
 * ended, or at one another failout sends traffic to, so extends, ramps and restores mostly find
 * something to act on and new failouts often meet another one's peer. Some are invalid on purpose
 * (a peer that is the cluster or does not exist, an alarm nobody knows, a fabric with no cluster).
 */

/** Which cluster a request aims at: `pick` among all, those with an open failout, those one sends traffic to, or those with a ramp step to come (or held). */
export interface Aim {
  readonly among: 'any' | 'open' | 'receiving' | 'ramping';
  readonly pick: number;
}

function aimAt(model: FleetModel, aim: Aim): string {
  const now = model.clock.now;
  const open = CLUSTERS.filter((c) => openWindows(model.last.clusters.get(c)!.failout, now).length > 0);
  const receiving = CLUSTERS.filter((c) => open.some((o) => model.last.clusters.get(o)!.failout!.redirects.some((r) => r.peer === c)));
  const ramping = open.filter((c) => {
    const f = model.last.clusters.get(c)!.failout!;
    return f.rampHold !== undefined || openWindows(f, now).some((w) => (w.offlineAt ?? 0) > now);
  });
  const list = { open, receiving, ramping, any: CLUSTERS }[aim.among];
  const from = list.length === 0 ? CLUSTERS : list;
  return from[aim.pick % from.length]!;
}

function base(model: FleetModel, action: string, prefix: string): Record<string, unknown> {
  return { version: 1, requestId: `${prefix}-${model.nextId++}`, action, requestedBy: 'oncall@example.com', reason: 'fleet model' };
}

/** What an operator's failout asks for. */
export interface OutSpec {
  readonly aim: Aim;
  /** Indexes into the same service's clusters in the other fabrics. */
  readonly picks: readonly number[];
  readonly weights: readonly [number, number];
  /** Now and then a peer that is wrong: the cluster itself, one that does not exist, another service's. */
  readonly odd: 'self' | 'ghost' | 'otherService' | undefined;
  readonly buckets: { readonly from: number; readonly to: number } | undefined;
  readonly ramp: { readonly first: number; readonly hold: number } | undefined;
  readonly startMin: number;
  readonly durationMin: number;
  /** A stop alarm: the cluster's own, or one the alarm source does not know. */
  readonly stopAlarm: 'own' | 'unknown' | undefined;
  readonly force: boolean;
}

function failoutOf(model: FleetModel, s: OutSpec): Sent {
  const cluster = aimAt(model, s.aim);
  const others = peersOf(cluster);
  const peers = s.picks.map((i) => ({ cluster: others[i]!, weight: s.weights[i]! }));
  const oddPeer = s.odd === 'self' ? cluster : s.odd === 'ghost' ? 'svcZ-lor1' : s.odd === 'otherService' ? CLUSTERS.find((c) => serviceOf(c) !== serviceOf(cluster) && fabricOf(c) !== fabricOf(cluster))! : undefined;
  if (oddPeer !== undefined) peers.push({ cluster: oddPeer, weight: 1 });
  const body = {
    ...base(model, 'failout', 'out'),
    cluster,
    peers,
    duration: `PT${s.durationMin}M`,
    ...(s.startMin > 0 ? { offlineAt: model.clock.now + s.startMin * MINUTE } : {}),
    ...(s.buckets ? { buckets: s.buckets } : {}),
    ...(s.ramp ? { ramp: [{ percent: s.ramp.first, duration: `PT${s.ramp.hold}M` }, { percent: 100 }] } : {}),
    ...(s.stopAlarm ? { stopAlarms: [s.stopAlarm === 'own' ? `${cluster}-errors` : 'nosuch-alarm'] } : {}),
    ...(s.force ? { force: true } : {}),
  };
  const share = s.buckets ? ` buckets ${s.buckets.from}-${s.buckets.to}` : '';
  const ramp = s.ramp ? ` ramp ${s.ramp.first}%:${s.ramp.hold}m` : '';
  const text = `out ${cluster} → ${peers.map((p) => `${p.cluster}:${p.weight}`).join(',')}${share}${ramp}${s.startMin > 0 ? ` at +${s.startMin}m` : ''} for ${s.durationMin}m${s.stopAlarm ? ` stop ${s.stopAlarm}` : ''}${s.force ? ' FORCE' : ''}`;
  return { body, text, touches: touchesOf(body) };
}

/** A request on one cluster that is not a failout. */
export interface AdjustSpec {
  readonly aim: Aim;
  readonly action: 'restore' | 'extend' | 'rampHold' | 'rampResume' | 'rampAdvance' | 'amend';
  readonly durationMin: number;
  readonly amend: { readonly add: 'own' | 'unknown' | undefined; readonly remove: boolean };
  readonly force: boolean;
}

function adjustOf(model: FleetModel, s: AdjustSpec): Sent {
  const cluster = aimAt(model, s.aim);
  const own = `${cluster}-errors`;
  const add = s.amend.add === undefined ? [] : [s.amend.add === 'own' ? own : 'nosuch-alarm'];
  const remove = s.amend.remove || add.length === 0 ? [own] : [];
  const extra = s.action === 'extend' ? { duration: `PT${s.durationMin}M` } : s.action === 'amend' ? { ...(add.length > 0 ? { addStopAlarms: add } : {}), ...(remove.length > 0 ? { removeStopAlarms: remove } : {}) } : {};
  const body = { ...base(model, s.action, s.action), cluster, ...extra, ...(s.force && s.action !== 'restore' ? { force: true } : {}) };
  const what = s.action === 'extend' ? ` for ${s.durationMin}m` : s.action === 'amend' ? ` +[${add.join(',')}] -[${remove.join(',')}]` : '';
  return { body, text: `${s.action} ${cluster}${what}${body.force ? ' FORCE' : ''}`, touches: touchesOf(body) };
}

/** An evacuation of a fabric. */
export interface EvacuateSpec {
  readonly fabric: string;
  /** Target fabrics by index among the other two, with weights; undefined: every other, by capacity. */
  readonly targets: readonly { readonly pick: number; readonly weight: number }[] | undefined;
  readonly startMin: number;
  readonly durationMin: number;
  readonly ramp: boolean;
  readonly stopAlarm: boolean;
  readonly force: boolean;
}

function evacuationOf(model: FleetModel, s: EvacuateSpec): Sent {
  const others = FABRICS.filter((f) => f !== s.fabric);
  const targets = s.targets === undefined ? undefined : [...new Map(s.targets.map((t) => [others[t.pick % others.length]!, t.weight]))].map(([fabric, weight]) => ({ fabric, weight }));
  const body = {
    ...base(model, 'evacuate', 'evacuate'),
    fabric: s.fabric,
    ...(targets === undefined ? {} : { targets }),
    duration: `PT${s.durationMin}M`,
    ...(s.startMin > 0 ? { offlineAt: model.clock.now + s.startMin * MINUTE } : {}),
    ...(s.ramp ? { ramp: [{ percent: 50, duration: 'PT10M' }, { percent: 100 }] } : {}),
    ...(s.stopAlarm ? { stopAlarms: [EVACUATION_ALARM] } : {}),
    ...(s.force ? { force: true } : {}),
  };
  const to = targets === undefined ? 'by capacity' : targets.map((t) => `${t.fabric}:${t.weight}`).join(',');
  return { body, text: `evacuate ${s.fabric} → ${to}${s.startMin > 0 ? ` at +${s.startMin}m` : ''} for ${s.durationMin}m${s.ramp ? ' ramp 50%:10m' : ''}${s.stopAlarm ? ' stop' : ''}${s.force ? ' FORCE' : ''}`, touches: touchesOf(body) };
}

/** The fabric of an evacuation the model saw applied (`pick` among them), else `fallback`. */
function evacuatedFabric(model: FleetModel, pick: number, fallback: string): string {
  const open = [...model.evacuations.keys()];
  return open.length === 0 ? fallback : open[pick % open.length]!;
}

function restoreFabricOf(model: FleetModel, fabric: string, alarm?: string): Sent {
  const body = { ...base(model, 'restoreFabric', alarm ? 'guard' : 'restore-fabric'), fabric, ...(alarm ? { requestedBy: 'failout-guard', stoppedByAlarm: alarm } : {}) };
  return { body, text: `restore fabric ${fabric}${alarm ? ` (alarm ${alarm})` : ''}`, touches: touchesOf(body) };
}

/** A drill of a cluster comes due: its definition put, then its run's failout as the drill runner sends it. */
export interface DrillSpec {
  readonly aim: Aim;
  readonly picks: readonly number[];
  readonly durationMin: number;
  readonly half: boolean;
}

function drillOfSpec(model: FleetModel, s: DrillSpec): Sent[] {
  const cluster = aimAt(model, s.aim);
  const drill = drillOf(cluster);
  const others = peersOf(cluster);
  const shared = { version: 1, cluster, drill, peers: s.picks.map((i) => ({ cluster: others[i]!, weight: 1 })), duration: `PT${s.durationMin}M`, ...(s.half ? { buckets: { from: 0, to: 49 } } : {}) };
  const alarms = { outcomeAlarm: `${drill}-outcome`, blockingAlarms: [`${drill}-deploys`] };
  const put = { ...shared, requestId: `put-${model.nextId++}`, action: 'putDrill', every: 'rate(10 minutes)', ...alarms, requestedBy: 'oncall@example.com' };
  const run = { ...shared, requestId: `drill-${drill}-${model.clock.now}`, action: 'failout', requestedBy: 'failout-drills', reason: `drill ${drill}`, stopAlarms: [alarms.outcomeAlarm, ...alarms.blockingAlarms] };
  const text = `${cluster} → ${shared.peers.map((p) => p.cluster).join(',')} for ${s.durationMin}m${s.half ? ' buckets 0-49' : ''}`;
  return [
    { body: put, text: `putDrill ${text}`, touches: [] },
    { body: run, text: `drill run ${text}`, touches: touchesOf(run) },
  ];
}

/** The alarm names that are firing or unknown now: an applied request may not name them. */
function refusedAlarms(world: FleetWorld, sent: readonly Sent[]): Set<string> {
  const names = sent.flatMap((s) => [...((s.body.stopAlarms ?? []) as string[]), ...((s.body.addStopAlarms ?? []) as string[])]);
  return new Set(names.filter((n) => world.alarms.states.get(n) !== 'OK'));
}

type Step = fc.AsyncCommand<FleetModel, FleetWorld>;

/**
 * Each step that sends comes a second after the one before: a window written and ended in the same
 * millisecond cannot be stored (its end must follow its start), so the worker ends such a window a
 * millisecond later, and a model whose clock stood still would see it open.
 */
const SECOND = 1000;

/** Sends what a step built, one at a time or all at once, and verifies. */
class SendStep implements Step {
  constructor(
    readonly build: (model: FleetModel) => Sent[],
    readonly label: string,
    readonly together = false,
  ) {}
  check = (): boolean => true;
  async run(model: FleetModel, world: FleetWorld): Promise<void> {
    model.clock.now += SECOND;
    const built = this.build(model);
    // Requests sent at once touch disjoint clusters (one FIFO group each), as the queue delivers them.
    const seen = new Set<string>();
    const sent = built.filter((s) => {
      if (s.touches.some((c) => seen.has(c))) return false;
      for (const c of s.touches) seen.add(c);
      return true;
    });
    const refused = refusedAlarms(world, sent);
    const outcomes = this.together ? await world.sendAll(sent.map((s) => s.body)) : [await world.send(sent[0]!.body)];
    await verifyStep(model, world, this.together ? sent : sent.slice(0, 1), outcomes, refused);
  }
  toString = (): string => this.label;
}

/** A drill comes due: the definition, then the run, one after the other. */
class DrillStep implements Step {
  constructor(readonly spec: DrillSpec) {}
  // The runner's run id is the drill and the time it was due; the step moves the clock first, so each is new.
  check = (): boolean => true;
  async run(model: FleetModel, world: FleetWorld): Promise<void> {
    model.clock.now += SECOND;
    for (const s of drillOfSpec(model, this.spec)) await verifyStep(model, world, [s], [await world.send(s.body)], refusedAlarms(world, [s]));
  }
  toString = (): string => `drill ${JSON.stringify(this.spec)}`;
}

/** A request sent again (SQS redelivers, or the CLI resends with the same id). */
class RedeliverStep implements Step {
  constructor(readonly pick: number) {}
  check = (model: Readonly<FleetModel>): boolean => model.sent.length > 0;
  async run(model: FleetModel, world: FleetWorld): Promise<void> {
    const first = model.sent[this.pick % model.sent.length]!;
    const again = await world.send(first.body);
    await verifyRedelivery(model, world, first.outcome, again, `again ${String(first.body.requestId)}`);
  }
  toString = (): string => `redeliver #${this.pick}`;
}

/** An alarm changes state; on ALARM the guard sends a restore for each cluster (or fabric) whose open failout names it. */
class AlarmStep implements Step {
  constructor(
    readonly alarm: { readonly pick: number } | 'evacuation',
    readonly state: 'ALARM' | 'OK',
  ) {}
  check = (): boolean => true;
  private name(): string {
    return this.alarm === 'evacuation' ? EVACUATION_ALARM : `${CLUSTERS[this.alarm.pick % CLUSTERS.length]!}-errors`;
  }
  async run(model: FleetModel, world: FleetWorld): Promise<void> {
    const name = this.name();
    model.clock.now += SECOND;
    world.alarms.states.set(name, this.state);
    model.trace.push(`alarm ${name} ${this.state}`);
    if (this.state !== 'ALARM') return;
    const now = model.clock.now;
    const naming = CLUSTERS.filter((c) => openWindows(model.last.clusters.get(c)!.failout, now).some((w) => (w.stopAlarms ?? []).includes(name)));
    const fabrics = [...new Set(naming.flatMap((c) => openWindows(model.last.clusters.get(c)!.failout, now).filter((w) => w.evacuation !== undefined && (w.stopAlarms ?? []).includes(name)).map((w) => w.evacuation!)))];
    const sent: Sent[] = fabrics.map((f) => restoreFabricOf(model, f, name));
    for (const cluster of naming) {
      const body = { ...base(model, 'restore', 'guard'), cluster, requestedBy: 'failout-guard', stoppedByAlarm: name, alarmAt: now };
      if (!sent.some((s) => s.touches.includes(cluster))) sent.push({ body, text: `guard restore ${cluster} (alarm ${name})`, touches: touchesOf(body) });
    }
    for (const s of sent) await verifyStep(model, world, [s], [await world.send(s.body)], new Set());
  }
  toString = (): string => `alarm ${this.name()} ${this.state}`;
}

/** Time passes: windows and ramp steps start and end with no write. */
class ClockStep implements Step {
  constructor(readonly minutes: number) {}
  check = (): boolean => true;
  async run(model: FleetModel, world: FleetWorld): Promise<void> {
    model.clock.now += this.minutes * MINUTE;
    model.trace.push(`+${this.minutes}m`);
    await verifyStep(model, world, [], [], new Set());
  }
  toString = (): string => `+${this.minutes}m`;
}

const pick = fc.nat({ max: 17 });
const aim = (weights: Readonly<Partial<Record<Aim['among'], number>>>): fc.Arbitrary<Aim> =>
  fc.oneof(...(Object.keys(weights) as Aim['among'][]).map((among) => ({ weight: weights[among]!, arbitrary: pick.map((p) => ({ among, pick: p })) })));
/** `arb` one time in six, else undefined. */
const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const force = fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

const outSpec: fc.Arbitrary<OutSpec> = fc.record({
  aim: aim({ any: 2, receiving: 2, open: 1 }),
  picks: fc.subarray([0, 1], { minLength: 1 }),
  weights: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })),
  odd: rarely(fc.constantFrom('self' as const, 'ghost' as const, 'otherService' as const)),
  buckets: fc.option(fc.integer({ min: 0, max: 99 }).chain((from) => fc.integer({ min: from, max: 99 }).map((to) => ({ from, to }))), { nil: undefined, freq: 3 }),
  ramp: fc.option(fc.record({ first: fc.integer({ min: 10, max: 60 }), hold: fc.constantFrom(5, 10, 20) }), { nil: undefined, freq: 3 }),
  startMin: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 5, max: 60 }) }),
  durationMin: fc.integer({ min: 30, max: 180 }),
  stopAlarm: fc.option(fc.oneof({ weight: 5, arbitrary: fc.constant('own' as const) }, { weight: 1, arbitrary: fc.constant('unknown' as const) }), { nil: undefined }),
  force,
});
const adjustSpec: fc.Arbitrary<AdjustSpec> = fc.record({
  aim: aim({ open: 4, ramping: 3, any: 1 }),
  action: fc.constantFrom('restore' as const, 'extend' as const, 'rampHold' as const, 'rampResume' as const, 'rampAdvance' as const, 'amend' as const),
  durationMin: fc.integer({ min: 10, max: 180 }),
  amend: fc.record({ add: fc.option(fc.oneof({ weight: 4, arbitrary: fc.constant('own' as const) }, { weight: 1, arbitrary: fc.constant('unknown' as const) }), { nil: undefined }), remove: fc.boolean() }),
  force,
});
const evacuateSpec: fc.Arbitrary<EvacuateSpec> = fc.record({
  fabric: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...FABRICS) }, { weight: 1, arbitrary: fc.constant('xyz9') }),
  targets: fc.option(fc.array(fc.record({ pick: fc.nat({ max: 1 }), weight: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  startMin: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 5, max: 30 }) }),
  durationMin: fc.integer({ min: 30, max: 180 }),
  ramp: fc.boolean(),
  stopAlarm: fc.boolean(),
  force,
});
const fabric = fc.constantFrom(...FABRICS);
/** A request of a burst: a failout, an adjustment or an evacuation. */
const burstItem = fc.oneof(
  { weight: 4, arbitrary: outSpec.map((s) => (m: FleetModel) => failoutOf(m, s)) },
  { weight: 2, arbitrary: adjustSpec.map((s) => (m: FleetModel) => adjustOf(m, s)) },
  { weight: 1, arbitrary: evacuateSpec.map((s) => (m: FleetModel) => evacuationOf(m, s)) },
);

/** Every step, weighted: mostly failouts and adjustments, with evacuations, alarms, bursts of requests at once, redeliveries and time. */
export const FLEET_STEP: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: outSpec.map((s) => new SendStep((m) => [failoutOf(m, s)], `out ${JSON.stringify(s)}`)) },
  { weight: 4, arbitrary: adjustSpec.map((s) => new SendStep((m) => [adjustOf(m, s)], `${s.action} ${JSON.stringify(s)}`)) },
  { weight: 2, arbitrary: evacuateSpec.map((s) => new SendStep((m) => [evacuationOf(m, s)], `evacuate ${JSON.stringify(s)}`)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fabric, fc.nat({ max: 2 }), fc.boolean())
      .map(([f, p, evacuated]) => new SendStep((m) => [restoreFabricOf(m, evacuated ? evacuatedFabric(m, p, f) : f)], `restore fabric ${evacuated ? `evacuated#${p}` : f}`)),
  },
  { weight: 2, arbitrary: fc.array(burstItem, { minLength: 2, maxLength: 4 }).map((items) => new SendStep((m) => items.map((build) => build(m)), `together ×${items.length}`, true)) },
  { weight: 1, arbitrary: fc.tuple(fc.oneof(pick.map((p) => ({ pick: p })), fc.constant('evacuation' as const)), fc.constantFrom('ALARM' as const, 'OK' as const)).map(([a, s]) => new AlarmStep(a, s)) },
  { weight: 1, arbitrary: fc.nat({ max: 50 }).map((p) => new RedeliverStep(p)) },
  { weight: 2, arbitrary: fc.record({ aim: aim({ any: 2, receiving: 1, open: 1 }), picks: fc.subarray([0, 1], { minLength: 1 }), durationMin: fc.integer({ min: 10, max: 60 }), half: fc.boolean() }).map((s) => new DrillStep(s)) },
  { weight: 3, arbitrary: fc.constantFrom(1, 5, 10, 30, 60, 120).map((m) => new ClockStep(m)) },
);

/** Hosts per cluster, 1–3 each. */
export const FLEET_HOSTS: fc.Arbitrary<Map<string, number>> = fc.tuple(...CLUSTERS.map(() => fc.integer({ min: 1, max: 3 }))).map((counts) => new Map(CLUSTERS.map((c, i) => [c, counts[i]!])));
