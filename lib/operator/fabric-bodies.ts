import { tierProblem } from '../fabrics';
import { inputError } from './errors';
import { formatIsoDuration, parseDuration, parseRamp, parseWindow, type RampStepArg } from './inputs';

/** A `putFabric` body as the CLI sends it (issue 23): the whole map of one fabric. */
export interface PutFabricBody {
  version: 1;
  requestId: string;
  action: 'putFabric';
  fabric: string;
  clusters: { cluster: string; service: string; tier?: string }[];
  requestedBy: string;
  reason?: string;
}

/** A `deleteFabric` body. */
export interface DeleteFabricBody {
  version: 1;
  requestId: string;
  action: 'deleteFabric';
  fabric: string;
  requestedBy: string;
  reason?: string;
}

/**
 * The body of `failout fabric put <fabric> --cluster <cluster>=<service>[:<tier>]…`. Only the shape of
 * the flags is checked here; the names, duplicates and limits are the worker's rules, checked before
 * sending by the one encoder (`sendChangeRequest`), so the CLI and the worker give the same reasons.
 * @throws OperatorError `usage` naming the flag.
 */
export function buildPutFabricBody(fabric: string, options: { cluster?: string[]; reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): PutFabricBody {
  const specs = options.cluster ?? [];
  if (specs.length === 0) throw inputError('name at least one cluster of the map: --cluster <cluster>=<service>[:<tier>] (example: --cluster legacy-frontend-a=frontend:web)', 'cluster');
  const clusters = specs.map((spec) => {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1) throw inputError(`--cluster ${JSON.stringify(spec)}: expected <cluster>=<service>[:<tier>]`, 'cluster');
    const cluster = spec.slice(0, eq);
    const rest = spec.slice(eq + 1);
    const colon = rest.lastIndexOf(':');
    if (colon < 0) return { cluster, service: rest };
    if (colon === 0 || colon === rest.length - 1) throw inputError(`--cluster ${JSON.stringify(spec)}: expected <cluster>=<service>[:<tier>]`, 'cluster');
    return { cluster, service: rest.slice(0, colon), tier: rest.slice(colon + 1) };
  });
  const body: PutFabricBody = { version: 1, requestId: context.requestId, action: 'putFabric', fabric, clusters, requestedBy: options.by ?? context.requestedBy };
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}

/** The body of `failout fabric delete <fabric>`. */
export function buildDeleteFabricBody(fabric: string, options: { reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): DeleteFabricBody {
  const body: DeleteFabricBody = { version: 1, requestId: context.requestId, action: 'deleteFabric', fabric, requestedBy: options.by ?? context.requestedBy };
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}

/** The options of `failout evacuate <fabric>`, as commander hands them over (strings, unparsed). */
export interface EvacuateOptions {
  /** `--to lva1:2,ltx1:1`: target fabrics with weights 1–100; repeatable. Absent: every other fabric, by capacity. */
  to?: string[];
  for?: string;
  until?: string;
  at?: string;
  /** `--stages frontend,midtier,storage`: one stage per tier, in this order. */
  stages?: string;
  /** `--stage c1,c2`, repeated: one stage per flag, an explicit list of clusters. */
  stage?: string[];
  /** `--gate-alarm <tier-or-stage-number>=<alarm>`, repeated. */
  gateAlarm?: string[];
  hold?: string;
  restoreGap?: string;
  ramp?: string;
  stopAlarm?: string[];
  exclude?: string[];
  reason?: string;
  by?: string;
  force?: boolean;
}

/** One stage of an `evacuate` body: a tier of the fabric, or an explicit list of its clusters. */
export type EvacuateStageArg = { tier: string; gateAlarms?: string[] } | { clusters: string[]; gateAlarms?: string[] };

/** An `evacuate` body as the CLI sends it (the shared contract of issue 23: wire). */
export interface EvacuateBody {
  version: 1;
  requestId: string;
  action: 'evacuate';
  fabric: string;
  targets?: { fabric: string; weight: number }[];
  offlineAt?: string;
  onlineAt?: string;
  duration?: string;
  stages?: EvacuateStageArg[];
  hold?: string;
  restoreGap?: string;
  ramp?: RampStepArg[];
  stopAlarms?: string[];
  exclude?: string[];
  requestedBy: string;
  reason?: string;
  force: boolean;
}

/** A `restoreFabric` body: ends the fabric's open evacuation, stages back in reverse order. */
export interface RestoreFabricBody {
  version: 1;
  requestId: string;
  action: 'restoreFabric';
  fabric: string;
  requestedBy: string;
  reason?: string;
}

/** The most a target fabric's weight may be (the worker's `badTargets` rule, evacuate-schema.ts). */
const MAX_TARGET_WEIGHT = 100;

/** Values of a list flag: repeatable, each value split on commas; blanks dropped. */
function listOf(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * `--to lva1:2,ltx1` (repeatable): target fabrics with integer weights 1–100, default 1. A target equal
 * to the evacuated fabric, or given twice, is refused here; unknown fabrics are the worker's to name.
 */
export function parseTargets(values: readonly string[], fabric: string): { fabric: string; weight: number }[] {
  const targets: { fabric: string; weight: number }[] = [];
  for (const item of values.flatMap((v) => v.split(',')).map((v) => v.trim())) {
    if (item === '') continue;
    const colon = item.lastIndexOf(':');
    const name = colon < 0 ? item : item.slice(0, colon);
    const weightText = colon < 0 ? '1' : item.slice(colon + 1);
    const weight = Number(weightText);
    if (name === '') throw inputError(`--to ${JSON.stringify(item)}: the fabric name is missing (example: --to lva1:2,ltx1:1)`, 'targets');
    if (!/^\d+$/.test(weightText) || weight < 1 || weight > MAX_TARGET_WEIGHT) {
      throw inputError(`--to ${JSON.stringify(item)}: the weight must be a whole number from 1 to ${MAX_TARGET_WEIGHT} (example: --to lva1:2,ltx1:1)`, 'targets');
    }
    if (name === fabric) throw inputError(`--to ${name}: that is the fabric being evacuated; name the fabrics that take its traffic`, 'targets');
    if (targets.some((t) => t.fabric === name)) throw inputError(`--to ${name} is given twice; give each target fabric once with its weight`, 'targets');
    targets.push({ fabric: name, weight });
  }
  if (targets.length === 0) throw inputError('--to names no fabric; give the target fabrics (example: --to lva1:2,ltx1:1), or leave --to out to use every other fabric by capacity', 'targets');
  return targets;
}

/**
 * The stages from `--stages <tier,tier>` or repeated `--stage <cluster,cluster>` (not both), with the
 * gate alarms of `--gate-alarm <tier-or-stage-number>=<alarm>` on them (stage numbers count from 1,
 * in the order given). Tier names are checked by lib/fabrics' rule; clusters and alarms by the worker.
 */
export function parseStages(options: Pick<EvacuateOptions, 'stages' | 'stage' | 'gateAlarm'>): EvacuateStageArg[] | undefined {
  if (options.stages !== undefined && options.stage !== undefined) throw inputError('give either --stages <tier,…> or --stage <cluster,…> (repeated), not both', 'stages');
  let stages: EvacuateStageArg[] | undefined;
  if (options.stages !== undefined) {
    const tiers = options.stages.split(',').map((t) => t.trim());
    for (const tier of tiers) {
      const problem = tierProblem(tier);
      if (problem !== undefined) throw inputError(`--stages ${JSON.stringify(options.stages)}: the tier ${JSON.stringify(tier)} ${problem} (example: --stages frontend,midtier,storage)`, 'stages');
    }
    const twice = tiers.find((t, i) => tiers.indexOf(t) !== i);
    if (twice !== undefined) throw inputError(`--stages names the tier ${twice} twice; each tier is one stage`, 'stages');
    stages = tiers.map((tier) => ({ tier }));
  } else if (options.stage !== undefined) {
    stages = options.stage.map((text, i) => {
      const clusters = text.split(',').map((c) => c.trim());
      if (clusters.some((c) => c === '')) throw inputError(`--stage ${JSON.stringify(text)} (stage ${i + 1}): expected a comma-separated list of clusters (example: --stage greetings-lor1,hello-lor1)`, 'stages');
      return { clusters };
    });
  }
  const gates = options.gateAlarm ?? [];
  if (gates.length === 0) return stages;
  if (stages === undefined) throw inputError('--gate-alarm gates a stage: give the stages too (--stages <tier,…> or --stage <cluster,…>)', 'gateAlarms');
  for (const spec of gates) {
    const eq = spec.indexOf('=');
    const key = eq < 0 ? '' : spec.slice(0, eq).trim();
    const alarm = eq < 0 ? '' : spec.slice(eq + 1).trim();
    if (key === '' || alarm === '') throw inputError(`--gate-alarm ${JSON.stringify(spec)}: expected <tier-or-stage-number>=<alarm> (example: --gate-alarm frontend=fe-5xx or --gate-alarm 1=fe-5xx)`, 'gateAlarms');
    const index = /^\d+$/.test(key) ? Number(key) - 1 : stages.findIndex((s) => 'tier' in s && s.tier === key);
    const stage = stages[index];
    if (stage === undefined) {
      const known = stages.map((s, i) => ('tier' in s ? `${i + 1} or ${s.tier}` : String(i + 1))).join(', ');
      throw inputError(`--gate-alarm ${JSON.stringify(spec)}: no stage ${JSON.stringify(key)}; the stages are ${known}`, 'gateAlarms');
    }
    stage.gateAlarms = [...(stage.gateAlarms ?? []), alarm];
  }
  return stages;
}

/**
 * The body of `failout evacuate <fabric> …` (issue 23). The window is read as `failout out` reads it:
 * `--for` without `--at` is sent as an ISO-8601 `duration` (the window starts when the worker applies
 * it), with `--at` both ends are sent, `--until` is sent as `onlineAt`. Only the shape of the flags is
 * checked here (targets, weights, stages, gates, durations); names, known fabrics and tiers, the plan
 * and its capacity are the worker's rules, checked before sending (`validateEvacuation`, then
 * `dryRunEvacuation`) so the CLI and the worker give the same reasons.
 * @throws OperatorError `input` naming the field.
 */
export function buildEvacuateBody(fabric: string, options: EvacuateOptions, context: { requestId: string; now: number; requestedBy: string }): EvacuateBody {
  const window = parseWindow(options, context.now);
  const body: EvacuateBody = { version: 1, requestId: context.requestId, action: 'evacuate', fabric, requestedBy: options.by ?? context.requestedBy, force: options.force === true, ...window };
  if (options.to !== undefined) body.targets = parseTargets(options.to, fabric);
  const stages = parseStages(options);
  if (stages !== undefined) body.stages = stages;
  if (options.hold !== undefined) body.hold = formatIsoDuration(parseSpacing(options.hold, '--hold'));
  if (options.restoreGap !== undefined) body.restoreGap = formatIsoDuration(parseSpacing(options.restoreGap, '--restore-gap'));
  if (options.ramp !== undefined) body.ramp = parseRamp(options.ramp);
  // Sent as given: the worker's own rules (validateEvacuation) name a bad alarm before anything is sent.
  if (options.stopAlarm !== undefined && options.stopAlarm.length > 0) body.stopAlarms = [...options.stopAlarm];
  const exclude = listOf(options.exclude);
  if (exclude.length > 0) body.exclude = exclude;
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}

/** A spacing between stages (`--hold`, `--restore-gap`): a duration, where zero (`0s`, `0`) is allowed. */
function parseSpacing(text: string, flag: string): number {
  if (/^\s*(0+[dhms]?|PT0+S)\s*$/i.test(text)) return 0;
  return parseDuration(text, flag);
}

/** The body of `failout restore --fabric <fabric>`: ends the fabric's evacuation now, in reverse stage order. */
export function buildRestoreFabricBody(fabric: string, options: { reason?: string; by?: string }, context: { requestId: string; requestedBy: string }): RestoreFabricBody {
  const body: RestoreFabricBody = { version: 1, requestId: context.requestId, action: 'restoreFabric', fabric, requestedBy: options.by ?? context.requestedBy };
  if (options.reason !== undefined) body.reason = options.reason;
  return body;
}
