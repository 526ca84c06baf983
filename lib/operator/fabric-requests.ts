/**
 * The fabric half of the form-driven request side (issue 23, the console's fabric view), made of the
 * CLI's own parts so a request from the page is the one `failout evacuate` / `failout restore --fabric`
 * would send: the form's text read as the command's flags (`buildEvacuateBody`,
 * `buildRestoreFabricBody`), the worker's schema (`validateEvacuation`), the worker's rule on the
 * alarms a request names (`checkNamedAlarms`) and the worker's own plan judge (`dryRunEvacuation`).
 */
import { drainTestEndedByRestore, isEvacuationOpen, openEvacuationWindow, readFailoutView, readStoredEvacuations, restoreOfUnknownFabric, viewPathFor, type Rejection } from '../requests';
import { isZkError, type ZkReader } from '../zk';
import { checkNamedAlarms } from './alarm-source';
import { dryRunEvacuation } from './evacuation-dry-run';
import { formatEvacuationPlan } from './evacuation-format';
import { describeEvacuation, formatEvacuationLine, type EvacuationSummary } from './evacuation-status';
import { isOperatorError, type OperatorEnv } from './errors';
import { buildEvacuateBody, buildRestoreFabricBody, type EvacuateOptions } from './fabric-bodies';
import { validateEvacuation } from './local-check';
import type { FabricAction, FabricBody, FabricCheckResult, FabricFields, FabricJudgeOptions } from './requests-port';
import type { OperatorSettings } from './settings';

/** A comma-separated field as a repeated flag's values (blanks dropped); undefined when none. */
function listOf(text: string | undefined, separator = ','): string[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(separator).map((v) => v.trim()).filter((v) => v !== '');
  return values.length === 0 ? undefined : values;
}

/** The evacuate form's fields as `failout evacuate`'s options (commander hands the same strings over). */
export function evacuateOptions(fields: FabricFields): EvacuateOptions {
  const options: EvacuateOptions = {};
  const to = listOf(fields.to);
  if (to) options.to = to;
  const stage = listOf(fields.stageClusters, ';');
  if (stage) options.stage = stage;
  const gateAlarm = listOf(fields.gateAlarms);
  if (gateAlarm) options.gateAlarm = gateAlarm;
  const stopAlarm = listOf(fields.stopAlarms);
  if (stopAlarm) options.stopAlarm = stopAlarm;
  const exclude = listOf(fields.exclude);
  if (exclude) options.exclude = exclude;
  for (const key of ['for', 'until', 'at', 'stages', 'hold', 'ramp', 'reason', 'by'] as const) {
    const value = fields[key];
    if (value !== undefined) options[key] = value;
  }
  if (fields.force === true) options.force = true;
  return options;
}

/** The body the CLI would build for this fabric action. @throws OperatorError `input` naming the field. */
export function buildFabricBody(action: FabricAction, fabric: string, fields: FabricFields, context: { requestId: string; now: number; requestedBy: string }): FabricBody {
  if (action === 'evacuate') return buildEvacuateBody(fabric, evacuateOptions(fields), context);
  const reasonBy = { ...(fields.reason === undefined ? {} : { reason: fields.reason }), ...(fields.by === undefined ? {} : { by: fields.by }) };
  return buildRestoreFabricBody(fabric, reasonBy, context);
}

/**
 * Judges a fabric body as it is, at `options.now`: the worker's schema, the alarms it names (when a
 * source is given), then the plan against ZooKeeper. ZooKeeper out of reach (or an alarm source that
 * cannot be read) does not refuse the request: it is `ready`, not judged, and says so, as the CLI
 * sends it then (the worker judges again when it arrives).
 * @throws ZkError other than a transient one (ZooKeeper refused a read).
 */
export async function judgeFabricBody(settings: OperatorSettings, env: OperatorEnv, body: FabricBody, options: FabricJudgeOptions): Promise<FabricCheckResult> {
  const { now, session } = options;
  let request;
  try {
    request = body.action === 'evacuate' ? validateEvacuation(body, now, env) : validateEvacuation(body, now, env);
  } catch (err) {
    if (isOperatorError(err, 'input')) return { kind: 'invalid', message: err.message, field: err.field };
    throw err;
  }
  const notes: string[] = [];
  if (request.action === 'evacuate') {
    const alarms = await checkNamedAlarms(options.alarms, request);
    if (alarms.kind === 'rejected') return { kind: 'rejected', body, reason: alarms.rejection.reason, message: alarms.rejection.message };
    if (alarms.kind === 'unchecked') notes.push(`${alarms.message}; the worker checks them when the request arrives`);
  }
  const unjudged = (why: string): FabricCheckResult => ({ kind: 'ready', body, judged: false, judgement: `${why}; the worker judges the request when it arrives.`, notes });
  if (session === undefined) return unjudged('ZooKeeper is out of reach: not judged now');
  try {
    if (request.action === 'evacuate') {
      const result = await dryRunEvacuation(session, settings, request, now);
      if (!result.ok) {
        const plan = result.plan === undefined ? '' : `\n${formatEvacuationPlan(result.plan, { now })}`;
        return { kind: 'rejected', body, reason: result.rejection.reason, message: `${result.rejection.message}${plan}`, plan: result.plan };
      }
      return { kind: 'ready', body, judged: true, judgement: formatEvacuationPlan(result.plan, { now, forced: result.forced }), plan: result.plan, forced: result.forced, notes };
    }
    const { judgement, evacuation, refused } = await restoreJudgement(session, settings, body.fabric, now);
    if (refused !== undefined) return { kind: 'rejected', body, reason: refused.reason, message: refused.message };
    return { kind: 'ready', body, judged: true, judgement, ...(evacuation === undefined ? {} : { evacuation }), notes };
  } catch (err) {
    if (isZkError(err) && err.transient) return unjudged(`ZooKeeper did not answer (${err.message}): not judged now`);
    throw err;
  }
}

/**
 * What an operator's `restoreFabric` of `fabric` ends, in the worker's order (lib/requests
 * evacuation-writes.ts `restore`): an evacuation node of the fabric that does not decode (every cluster
 * carrying its evacuation comes home, the node is removed); else the fabric's open evacuation; else a
 * drain test open on another fabric (an operator's restore of any fabric ends it:
 * `drainTestEndedByRestore`, the worker's own rule); else the clusters still carrying windows of an
 * evacuation of the fabric; else, for a name that is no fabric and was never evacuated, the worker's
 * refusal (`refused`); else nothing.
 */
async function restoreJudgement(session: ZkReader, settings: OperatorSettings, fabric: string, now: number): Promise<{ readonly judgement: string; readonly evacuation?: EvacuationSummary; readonly refused?: Pick<Rejection, 'reason' | 'message'> }> {
  const stored = await readStoredEvacuations(session, settings.evacuationsBase);
  const own = stored.find((e) => e.fabric === fabric);
  if (own !== undefined && own.node === undefined) {
    const carrying = await carryingClusters(session, settings, fabric, now);
    const home = carrying.length === 0 ? 'no cluster carries its evacuation now; the worker removes the node' : `the worker brings home the ${plural(carrying.length, 'cluster')} carrying its evacuation (${carrying.join(', ')}) and removes the node`;
    return { judgement: `the evacuation node of fabric ${fabric} cannot be read (${own.problem ?? 'malformed'}): ${home}, so that later evacuations are not refused.` };
  }
  if (own?.node !== undefined && isEvacuationOpen(own.node, now)) {
    const open = describeEvacuation(own.node, now);
    return { judgement: `ends the ${formatEvacuationLine(open, now)}\nnow: the stages return in reverse order, the last stage first, at the evacuation's restore gap.`, evacuation: open };
  }
  const drain = drainTestEndedByRestore(stored, fabric, now);
  if (drain !== undefined) {
    const open = describeEvacuation(drain.node, now);
    return {
      judgement: `fabric ${fabric} has no open evacuation now; an operator's restore of any fabric ends a running drain test, so this ends drill ${JSON.stringify(drain.node.plan.drill)}'s ${formatEvacuationLine(open, now)}\nnow: its ${plural(drain.node.plan.clusters.length, 'cluster')} of ${drain.fabric} come home, the last stage first, and its run is replaced.`,
      evacuation: open,
    };
  }
  if (own === undefined && (await carryingClusters(session, settings, fabric, now)).length === 0) {
    // No such fabric and never evacuated: the worker refuses it as a typo (`unknownFabric`).
    const refused = await restoreOfUnknownFabric(session, settings.d2Base, fabric, settings.fabricsBase);
    if (refused !== undefined) return { judgement: refused.message, refused };
  }
  return { judgement: await outlivingJudgement(session, settings, fabric, now) };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The clusters the view says carry a window of an evacuation of `fabric` that has not ended, sorted. */
async function carryingClusters(session: ZkReader, settings: OperatorSettings, fabric: string, now: number): Promise<string[]> {
  const { view } = await readFailoutView(session, viewPathFor(settings.requestsBase), settings.d2Base, now);
  return [...view].filter(([, props]) => openEvacuationWindow(props, fabric, now) !== undefined).map(([cluster]) => cluster).sort();
}

/**
 * What a `restoreFabric` of a fabric with no open evacuation does, as the worker does it: the clusters
 * still carrying windows of an evacuation of it that have not ended (a member extended past the
 * evacuation's end) come home now; none: nothing changes.
 */
async function outlivingJudgement(session: ZkReader, settings: OperatorSettings, fabric: string, now: number): Promise<string> {
  const carrying = await carryingClusters(session, settings, fabric, now);
  if (carrying.length === 0) return `fabric ${fabric} has no open evacuation now: the worker would change nothing.`;
  return `fabric ${fabric} has no open evacuation now, but ${carrying.length} cluster${carrying.length === 1 ? '' : 's'} still carry windows of an evacuation of it (${carrying.join(', ')}): the worker brings them home now.`;
}
