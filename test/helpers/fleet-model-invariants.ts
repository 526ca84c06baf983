import { redirectWeight, type FailoutBucketConfig, type FailoutProperties } from '../../lib/d2/data';
import { viewDrift } from '../../lib/requests';
import { type Outcome } from '../../lib/requests/request-writer';
import { loadsOf, type RawFailout } from './judged-together-oracle';
import { CLUSTERS, FLEET_START, membersOf, serviceOf, type FleetClock, type FleetSnapshot, type FleetWorld } from './fleet-model-world';

/**
 * The invariants of the fleet model test, each from what the docs promise (docs/operators.md):
 *  (1) records: every request processed has exactly one record, named by its id, whose status is the
 *      outcome's; an applied request changed its cluster(s) as asked, a rejected one wrote nothing but
 *      its record; no cluster changed that no applied request touched, but a drill run's cluster, which
 *      comes home when an operator's request ends the run ("Request records", ARCHITECTURE "Change
 *      request": the record is created in the multi of the change; "Failouts judged together");
 *  (2) stranding: no bucket of a cluster failed out now is left with no eligible peer (its traffic
 *      back in the broken cluster) unless a recorded force in its service says so ("Failouts judged
 *      together": the rule it keeps);
 *  (3) capacity: no cluster carries more than MAX_PEER_LOAD_FACTOR (2.0) times its load per host
 *      (host counts), unless a recorded force in its service says so ("Capacity guard");
 *  (2) and (3) use the judged-together model test's own routing rule (judged-together-oracle.ts,
 *      written from the docs, not from lib/requests' open-failouts.ts that it checks);
 *  (4) the view of open failouts agrees with the cluster nodes (`viewDrift` of the view node against
 *      the product's rebuild from `/d2/clusters`: what `failout zk check` runs);
 *  (5) an evacuation's restore leaves none of its windows open, and every cluster of the fabric that
 *      no other request touched since the evacuation serving ("Evacuating a fabric": an evacuation
 *      replaces a member's failout as a failout does, so a member's own failout before it is not
 *      brought back);
 *  (6) a redelivered request is a `duplicate` with its first record, and changes nothing.
 */

/** MAX_PEER_LOAD_FACTOR's default, as the docs give it. */
export const MAX_FACTOR = 2.0;
/** One minute in ms. */
export const MINUTE = 60_000;

/** An evacuation the model saw applied and not yet restored. */
export interface OpenEvacuation {
  readonly requestId: string;
  /** Clusters an applied request other than this evacuation's changed since it was applied. */
  readonly touched: Set<string>;
}

/** What the model remembers between steps. */
export interface FleetModel {
  readonly clock: FleetClock;
  nextId: number;
  /** Every request sent (body and outcome), for redeliveries. */
  readonly sent: { readonly body: Record<string, unknown>; readonly outcome: Outcome }[];
  /** Every request id processed. */
  readonly ids: Set<string>;
  /**
   * Applied requests whose record says force overrode something, with the services they may load:
   * (2) and (3) exempt those services while a window of the request is open. A whole service, because
   * telling which force caused which overload would take a routing model as clever as the one under test.
   */
  readonly forced: Map<string, ReadonlySet<string>>;
  readonly evacuations: Map<string, OpenEvacuation>;
  /** The state after the last step. */
  last: FleetSnapshot;
  readonly trace: string[];
}

/** A fresh model over the world's first snapshot. */
export async function newFleetModel(world: FleetWorld): Promise<FleetModel> {
  const clock = world.clock;
  return { clock, nextId: 1, sent: [], ids: new Set(), forced: new Map(), evacuations: new Map(), last: await world.snapshot(clock.now), trace: [] };
}

/** What the runs reached (`<action> <status> [reason]` → count), printed once: a model that never reaches a rule tests nothing. */
export const fleetTally = new Map<string, number>();
function count(what: string): void {
  fleetTally.set(what, (fleetTally.get(what) ?? 0) + 1);
}

/** Throws `message` with the run's steps as sent. */
export function fail(model: FleetModel, message: string): never {
  throw new Error(`${message}\nat +${(model.clock.now - FLEET_START) / MINUTE}m, after the steps (as sent):\n${model.trace.map((t, i) => `  ${i + 1}. ${t}`).join('\n')}`);
}

/** The windows of `props` that have not ended at `now` (active or scheduled), held ramp steps left out. */
export function openWindows(props: FailoutProperties | null | undefined, now: number): FailoutBucketConfig[] {
  return (props?.buckets ?? []).filter((b) => b.onlineAt === undefined || b.onlineAt > now);
}

/** The oracle's reading of a failout from the codec's model. */
function rawOf(props: FailoutProperties | null): RawFailout | null {
  if (props === null) return null;
  return {
    peers: props.redirects.map((r) => ({ peer: r.peer, weight: redirectWeight(r) })),
    windows: props.buckets.map((b) => ({
      from: b.bucketOfflineRange?.from ?? 0,
      to: b.bucketOfflineRange?.to ?? 99,
      offlineAt: b.offlineAt ?? 0,
      onlineAt: b.onlineAt,
      requestId: b.requestId,
      drill: b.drill,
      forced: b.forced,
    })),
  };
}

/** Compact text of every cluster's failout, for failure messages. */
export function described(s: FleetSnapshot, hosts: ReadonlyMap<string, number>, now: number): string {
  const at = (t: number | undefined): string => (t === undefined ? '∞' : `${Math.round((t - now) / MINUTE)}m`);
  return CLUSTERS.map((c) => {
    const f = s.clusters.get(c)!.failout;
    const windows = (f?.buckets ?? []).map((b) => `${b.bucketOfflineRange?.from ?? 0}-${b.bucketOfflineRange?.to ?? 99} [${at(b.offlineAt ?? 0)}, ${at(b.onlineAt)})${b.evacuation ? ` evac ${b.evacuation}` : ''}${b.forced ? ` forced[${b.forced.join(',')}]` : ''}`);
    const held = f?.rampHold ? ` held ${f.rampHold.buckets.length}` : '';
    return `  ${c} (${hosts.get(c)} hosts, v${s.clusters.get(c)!.version}): ${f === null ? 'none' : `→ ${f.redirects.map((r) => `${r.peer}:${redirectWeight(r)}`).join(' ')} ${windows.join('; ')}${held}`}`;
  }).join('\n');
}

/** The services a forced request may have loaded, while a window it wrote is open (held ramp steps included). */
function forcedServices(model: FleetModel, s: FleetSnapshot): Set<string> {
  const open = new Set(CLUSTERS.flatMap((c) => {
    const f = s.clusters.get(c)!.failout;
    return [...openWindows(f, model.clock.now), ...(f?.rampHold?.buckets ?? [])].map((w) => w.requestId);
  }));
  return new Set([...model.forced].filter(([id]) => open.has(id)).flatMap(([, services]) => [...services]));
}

/**
 * "Force" in docs/operators.md: what force overrode is kept on the record and "on every window it
 * wrote (`forced` in the bucket config)": for a request that writes windows of its own (a failout,
 * an evacuation), each of them carries the record's `forced`; for one that rewrites a failout's
 * windows (an extend, a ramp step), each window it changed (held ones too) carries what its force
 * overrode, when it overrode anything. Undefined when so (or not forced).
 */
function forcedStampOf(body: Record<string, unknown>, outcome: Outcome, before: FleetSnapshot, after: FleetSnapshot, now: number): string | undefined {
  const forced = outcome.record.forced;
  if (forced === undefined) return undefined;
  if (body.action !== 'failout' && body.action !== 'evacuate') {
    // An extend, ramp step or amend: the windows it changed carry what its force overrode (when it overrode anything).
    if (forced.length === 0 || typeof body.cluster !== 'string') return undefined;
    const was = before.clusters.get(body.cluster)?.failout;
    const untouched = new Set([...(was?.buckets ?? []), ...(was?.rampHold?.buckets ?? [])].map((w) => JSON.stringify(w)));
    const f = after.clusters.get(body.cluster)?.failout;
    const wrong = [...(f?.buckets ?? []), ...(f?.rampHold?.buckets ?? [])].find((w) => !untouched.has(JSON.stringify(w)) && forced.some((o) => !(w.forced ?? []).includes(o)));
    return wrong === undefined ? undefined : `a window of ${body.cluster} it rewrote says forced ${JSON.stringify(wrong.forced)}, the record ${JSON.stringify(forced)}`;
  }
  const id = String(body.requestId);
  const expected = JSON.stringify([...forced].sort());
  for (const c of CLUSTERS) {
    const f = after.clusters.get(c)!.failout;
    const own = [...openWindows(f, now), ...(f?.rampHold?.buckets ?? [])].filter((w) => w.requestId === id);
    const wrong = own.find((w) => JSON.stringify([...(w.forced ?? [])].sort()) !== expected || w.forced === undefined);
    if (wrong !== undefined) return `a window of ${c} it wrote says forced ${JSON.stringify(wrong.forced)}, the record ${expected}`;
  }
  return undefined;
}

/** (2), (3), (4) and the record count of (1), over the snapshot after a step. */
export function checkState(model: FleetModel, world: FleetWorld, s: FleetSnapshot): void {
  const now = model.clock.now;
  const problems: string[] = [];
  const names = new Set(s.recordNames);
  const missing = [...model.ids].filter((id) => !names.has(id));
  const extra = [...names].filter((n) => !model.ids.has(n));
  if (missing.length > 0 || extra.length > 0) problems.push(`(1) records: missing ${missing.join(', ') || 'none'}; not sent ${extra.join(', ') || 'none'}`);
  const drift = viewDrift(s.view?.entries ?? new Map(), s.truth, now);
  if (drift.length > 0) problems.push(`(4) the view drifted from the cluster nodes: ${drift.map((d) => `${d.cluster} ${d.kind}`).join(', ')}`);
  const failouts = new Map(CLUSTERS.map((c) => [c, rawOf(s.clusters.get(c)!.failout)]));
  const { factor, stranded } = loadsOf({ failouts, hosts: world.hosts, now });
  const forced = forcedServices(model, s);
  for (const [cluster, f] of factor) {
    if (f > MAX_FACTOR + 1e-9 && !forced.has(serviceOf(cluster))) problems.push(`(3) ${cluster} carries ${f.toFixed(2)}× its load per host, above ${MAX_FACTOR}, with no force recorded`);
  }
  for (const [cluster, buckets] of stranded) {
    if (!forced.has(serviceOf(cluster))) problems.push(`(2) ${cluster} is failed out for ${buckets.length} buckets (${buckets[0]}…) with no eligible peer, and no force recorded`);
  }
  if (problems.length > 0) fail(model, `${problems.join('\n')}\nstate:\n${described(s, world.hosts, now)}`);
}

/** One request of a step as sent: its body, what it names, and the clusters it may write. */
export interface Sent {
  readonly body: Record<string, unknown>;
  readonly text: string;
  readonly touches: readonly string[];
}

/** The clusters a body may write: its cluster, or the members of its fabric. */
export function touchesOf(body: Record<string, unknown>): string[] {
  if (typeof body.cluster === 'string') return CLUSTERS.includes(body.cluster) ? [body.cluster] : [];
  return typeof body.fabric === 'string' ? membersOf(body.fabric) : [];
}

function durationMs(text: unknown): number {
  const m = /^PT(\d+)M$/.exec(String(text));
  if (m === null) throw new Error(`the model sends durations as PT<n>M, not ${String(text)}`);
  return Number(m[1]) * MINUTE;
}

/**
 * What an applied request must have done to its cluster(s) (1): undefined when it did, else why not.
 * `drillGaveWay`: the drill open on this cluster may have given way to another operator's request of
 * the same step (that request's write, not this one's).
 */
function askedOf(body: Record<string, unknown>, outcome: Outcome, before: FleetSnapshot, after: FleetSnapshot, now: number, drillGaveWay: boolean): string | undefined {
  const cluster = String(body.cluster);
  const b = before.clusters.get(cluster);
  const a = after.clusters.get(cluster);
  const id = String(body.requestId);
  const open = openWindows(a?.failout, now);
  const held = a?.failout?.rampHold?.buckets ?? [];
  const moved = a !== undefined && b !== undefined && a.version !== b.version;
  switch (body.action) {
    case 'failout': {
      const peers = new Set((body.peers as { cluster: string }[]).map((p) => p.cluster));
      const redirects = new Set((a?.failout?.redirects ?? []).map((r) => r.peer));
      if (!moved) return 'the node was not written';
      if (peers.size !== redirects.size || [...peers].some((p) => !redirects.has(p))) return `redirects ${[...redirects].join(',')} are not the peers asked`;
      if (open.length === 0 || open.some((w) => w.requestId !== id)) return 'its windows are not all its own';
      return undefined;
    }
    case 'restore': {
      // A guard's restore ends a failout whose open window names its alarm ("Stop alarms"); an operator's, any open failout.
      const alarm = body.stoppedByAlarm as string | undefined;
      const stoppable = openWindows(b?.failout, now).filter((w) => alarm === undefined || (w.stopAlarms ?? []).includes(alarm));
      // The drill gave way first: the other request wrote the node, and the restore found nothing left to end.
      const yielded = drillGaveWay && stoppable.every((w) => w.drill !== undefined) && open.length === 0;
      if (outcome.record.unchanged) return moved && !yielded ? 'unchanged, but the node was written' : stoppable.length > 0 && !yielded ? `unchanged, but ${stoppable.length} open windows were there to end` : undefined;
      return !moved ? 'the node was not written' : open.length > 0 ? 'a window is still open' : undefined;
    }
    case 'extend': {
      const end = now + durationMs(body.duration);
      return [...open, ...held].some((w) => w.onlineAt !== end) ? `a window does not end at +${durationMs(body.duration) / MINUTE}m` : undefined;
    }
    case 'amend': {
      const add = (body.addStopAlarms ?? []) as string[];
      const remove = (body.removeStopAlarms ?? []) as string[];
      const bad = [...open, ...held].find((w) => add.some((n) => !(w.stopAlarms ?? []).includes(n)) || remove.some((n) => (w.stopAlarms ?? []).includes(n)));
      return bad === undefined ? undefined : `a window's stop alarms are ${JSON.stringify(bad.stopAlarms ?? [])}`;
    }
    case 'rampHold':
      return a?.failout?.rampHold === undefined || open.some((w) => (w.offlineAt ?? 0) > now) ? 'no hold, or a step still scheduled' : undefined;
    case 'rampResume':
      return a?.failout?.rampHold !== undefined ? 'still held' : undefined;
    case 'rampAdvance':
      return open.some((w) => w.offlineAt === now) ? undefined : 'no step starts now';
    case 'evacuate': {
      const fabric = String(body.fabric);
      const left = membersOf(fabric).filter((c) => !openWindows(after.clusters.get(c)!.failout, now).some((w) => w.evacuation === fabric && w.requestId === id));
      return left.length > 0 ? `${left.join(', ')} do not carry it` : undefined;
    }
    case 'restoreFabric': {
      const fabric = String(body.fabric);
      const alarm = body.stoppedByAlarm as string | undefined;
      const carrying = (s: FleetSnapshot): string[] => CLUSTERS.filter((c) => openWindows(s.clusters.get(c)!.failout, now).some((w) => w.evacuation === fabric && (alarm === undefined || (w.stopAlarms ?? []).includes(alarm))));
      if (outcome.record.unchanged) return carrying(before).length > 0 ? `unchanged, but ${carrying(before).join(', ')} carried the evacuation` : undefined;
      return carrying(after).length > 0 ? `${carrying(after).join(', ')} still carry the evacuation` : undefined;
    }
    case 'putDrill':
      return undefined;
    default:
      return `the model does not know action ${String(body.action)}`;
  }
}

/**
 * (1), (5) and the audit of one step's requests (all sent at once, touching disjoint clusters), then
 * the state's invariants; remembers the snapshot.
 */
export async function verifyStep(model: FleetModel, world: FleetWorld, sent: readonly Sent[], outcomes: readonly Outcome[], firing: ReadonlySet<string>): Promise<void> {
  const now = model.clock.now;
  const before = model.last;
  const after = await world.snapshot(now);
  const problems: string[] = [];
  const written = new Set<string>();
  for (let i = 0; i < sent.length; i++) {
    const { body, text, touches } = sent[i]!;
    const outcome = outcomes[i]!;
    const id = String(body.requestId);
    model.ids.add(id);
    model.trace.push(`${text}: ${outcome.status}${outcome.reason ? ` ${outcome.reason}` : ''}${outcome.record.forced ? ` forced[${outcome.record.forced.join(',')}]` : ''}${outcome.record.unchanged ? ' (unchanged)' : ''}`);
    model.sent.push({ body, outcome });
    count(`${String(body.action)}${body.stoppedByAlarm === undefined ? '' : ' (guard)'}${sent.length > 1 ? ' (at once)' : ''} ${outcome.status}${outcome.reason ? ` ${outcome.reason}` : ''}${(outcome.record.forced?.length ?? 0) > 0 ? ' forced' : ''}${outcome.record.unchanged ? ' unchanged' : ''}${outcome.attempts > 1 ? ' retried' : ''}`);
    const record = await world.record(id);
    if (record === undefined || record.requestId !== id) problems.push(`(1) ${text}: no record named ${id}`);
    else if (record.status !== outcome.status) problems.push(`(1) ${text}: outcome ${outcome.status}, record ${record.status}`);
    if (outcome.status === 'rejected') continue;
    if (outcome.status !== 'applied') {
      problems.push(`(1) ${text}: ${outcome.status} on its first delivery`);
      continue;
    }
    for (const c of touches) written.add(c);
    // A drill run in the way of an operator's request gives way: its cluster comes home in the same write ("Failouts judged together").
    if (body.requestedBy !== 'failout-drills') for (const c of CLUSTERS) if (openWindows(before.clusters.get(c)!.failout, now).some((w) => w.drill !== undefined)) written.add(c);
    const named = [...((body.stopAlarms ?? []) as string[]), ...((body.addStopAlarms ?? []) as string[])];
    const refused = named.filter((n) => firing.has(n));
    if (refused.length > 0) problems.push(`(1) ${text}: applied naming ${refused.join(', ')}, firing or unknown`);
    // Sent at once with another operator's request that needed this cluster, a drill open on it may have given way to that request after this one applied (or before): that request wrote the node.
    const drillOn = (s: FleetSnapshot): boolean => typeof body.cluster === 'string' && openWindows(s.clusters.get(body.cluster)?.failout, now).some((w) => w.drill !== undefined);
    const operatorAtOnce = sent.some((other, j) => j !== i && outcomes[j]!.status === 'applied' && other.body.requestedBy !== 'failout-drills');
    const drillGaveWay = operatorAtOnce && drillOn(before) && !drillOn(after);
    const version = typeof body.cluster === 'string' ? after.clusters.get(body.cluster)?.version : undefined;
    const recorded = outcome.record.clusterVersion;
    if (version !== undefined && recorded !== version && !(drillGaveWay && recorded !== null && recorded < version)) problems.push(`(1) ${text}: the record says clusterVersion ${recorded}, the node is at ${version}`);
    const wrong = askedOf(body, outcome, before, after, now, drillGaveWay);
    if (wrong !== undefined) problems.push(`(1) ${text}: applied, but ${wrong}`);
    // A force exempts the services it may load, its cluster's and its peers' (a peer may be another service's cluster), while its windows are open.
    const peers = ((body.peers ?? []) as { cluster: string }[]).map((p) => p.cluster);
    if ((outcome.record.forced?.length ?? 0) > 0) model.forced.set(id, new Set([...(touches.length > 0 ? touches : CLUSTERS), ...peers].map(serviceOf)));
    const stamped = forcedStampOf(body, outcome, before, after, now);
    if (stamped !== undefined) problems.push(`(1) ${text}: applied with force, but ${stamped}`);
    if (body.action === 'evacuate') model.evacuations.set(String(body.fabric), { requestId: id, touched: new Set() });
    else if (body.action === 'restoreFabric' && !outcome.record.unchanged) restoredEvacuation(model, after, String(body.fabric), problems);
  }
  for (const c of CLUSTERS) {
    if (!written.has(c) && after.clusters.get(c)!.version !== before.clusters.get(c)!.version) problems.push(`(1) ${c} was written, but no request applied touched it`);
  }
  if (written.size === 0 && sent.length > 0) {
    // Every request rejected: nothing but their records was written.
    if (after.view?.version !== before.view?.version) problems.push('(1) nothing applied, but the view was written');
    if (JSON.stringify([...after.evacuations]) !== JSON.stringify([...before.evacuations])) problems.push('(1) nothing applied, but an evacuation node was written');
  }
  for (const [fabric, evacuation] of model.evacuations) {
    for (let i = 0; i < sent.length; i++) {
      const body = sent[i]!.body;
      if (outcomes[i]!.status === 'applied' && !(body.action === 'evacuate' && body.fabric === fabric)) for (const c of sent[i]!.touches) evacuation.touched.add(c);
    }
  }
  model.last = after;
  if (problems.length > 0) fail(model, `${problems.join('\n')}\nstate:\n${described(after, world.hosts, now)}`);
  checkState(model, world, after);
}

/** (5): after an applied restore of `fabric`'s evacuation, its untouched members serve and no window of it is open. */
function restoredEvacuation(model: FleetModel, after: FleetSnapshot, fabric: string, problems: string[]): void {
  const evacuation = model.evacuations.get(fabric);
  model.evacuations.delete(fabric);
  if (evacuation === undefined) return;
  for (const c of membersOf(fabric)) {
    if (evacuation.touched.has(c)) continue;
    const left = openWindows(after.clusters.get(c)!.failout, model.clock.now);
    if (left.length > 0) problems.push(`(5) ${c} still has ${left.length} open windows after the restore of fabric ${fabric}`);
  }
}

/** (6): a redelivery is a duplicate of its first outcome and changes nothing. */
export async function verifyRedelivery(model: FleetModel, world: FleetWorld, first: Outcome, again: Outcome, text: string): Promise<void> {
  const before = model.last;
  const after = await world.snapshot(model.clock.now);
  model.trace.push(`${text}: ${again.status}`);
  count(`redelivery ${again.status}`);
  const problems: string[] = [];
  if (again.status !== 'duplicate') problems.push(`(6) ${text}: ${again.status}, not duplicate`);
  if (again.record.status !== first.record.status || again.record.appliedAt !== first.record.appliedAt) problems.push(`(6) ${text}: answered with record ${again.record.status}@${again.record.appliedAt}, first ${first.record.status}@${first.record.appliedAt}`);
  const changed = CLUSTERS.filter((c) => after.clusters.get(c)!.version !== before.clusters.get(c)!.version);
  if (changed.length > 0) problems.push(`(6) ${text}: wrote ${changed.join(', ')}`);
  if (after.view?.version !== before.view?.version) problems.push(`(6) ${text}: wrote the view`);
  if (JSON.stringify([...after.evacuations]) !== JSON.stringify([...before.evacuations])) problems.push(`(6) ${text}: wrote an evacuation node`);
  model.last = after;
  if (problems.length > 0) fail(model, problems.join('\n'));
  checkState(model, world, after);
}
