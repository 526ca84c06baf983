/**
 * The request side of a client that acts from form fields (the console), as one interface
 * ({@link OperatorRequests}, made by `createOperatorRequests`): the same body builders, the worker's
 * schema, the dry-run judge and the SQS send as the CLI's, so a request from the page is the request
 * `failout out|restore|extend` would send.
 */
import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import type { FailoutProperties } from '../d2';
import type { CapacityProjection, EvacuationPlan, ForceOverride, RequestRates } from '../requests';
import type { ZkSession } from '../zk';
import type { OperatorAlarmSource } from './alarm-source';
import type { ClusterStatus } from './cluster-status';
import type { EvacuationSummary } from './evacuation-status';
import type { EvacuateBody, RestoreFabricBody } from './fabric-bodies';
import type { AdjustBody } from './adjust';
import type { RequestBody } from './request-bodies';

/**
 * The actions the page offers: a failout, its extension and restore, and (issue 24) steering a
 * running one: hold, resume or advance its ramp, add or remove stop alarms.
 */
export type OperatorAction = 'failout' | 'restore' | 'extend' | 'rampHold' | 'rampResume' | 'rampAdvance' | 'amend';

/**
 * The form's fields, as text, named after the CLI's flags (`--peer`, `--for`, …) and read the same way.
 * `peers` is the `--peer` list comma-separated (`greetings-lva1:2, greetings-ltx1`).
 */
export interface ActionFields {
  readonly cluster: string;
  readonly peers?: string | undefined;
  readonly for?: string | undefined;
  readonly until?: string | undefined;
  readonly at?: string | undefined;
  readonly share?: string | undefined;
  readonly buckets?: string | undefined;
  readonly ramp?: string | undefined;
  /** `--stop-alarm` values, comma-separated. */
  readonly stopAlarms?: string | undefined;
  /** `failout amend --remove-stop-alarm` values, comma-separated. */
  readonly removeStopAlarms?: string | undefined;
  readonly reason?: string | undefined;
  readonly by?: string | undefined;
  readonly force?: boolean | undefined;
}

/** A request body the worker's schema accepted, ready to send as it is. */
export type PreparedBody = RequestBody | AdjustBody;

/**
 * The outcome of checking a request before it is sent:
 * - `ready`: the worker's schema accepts it and the judge (against ZooKeeper now) would apply it;
 *   `judgement` is the CLI's dry-run text (state after, capacity projection), or says why it could not
 *   be judged (ZooKeeper out of reach: the worker judges again, as the CLI does).
 * - `invalid`: the input is wrong; `message` says what, `field` names the field at fault when one is.
 * - `rejected`: the judge refuses it now (`reason` is the worker's rejection reason).
 */
export type CheckResult =
  | {
      readonly kind: 'ready';
      readonly body: PreparedBody;
      readonly judgement: string;
      readonly judged: boolean;
      /** When judged: the cluster as read for the judgement, and as the worker would leave it (the confirm step's changes). */
      readonly before?: ClusterStatus | undefined;
      readonly after?: ClusterStatus | undefined;
      /** When judged, for a request that moves traffic: the peers' load projected from host counts, as the worker judges (in `judgement` as text). */
      readonly capacity?: CapacityProjection | undefined;
      /** The same from the console's request rates, when they cover the cluster and its peers (in `judgement` as text). */
      readonly capacityByRates?: CapacityProjection | undefined;
      /** When judged with force: what force overrides (empty: nothing). */
      readonly forced?: readonly ForceOverride[] | undefined;
    }
  | { readonly kind: 'invalid'; readonly message: string; readonly field?: string | undefined }
  | { readonly kind: 'rejected'; readonly body: PreparedBody; readonly reason: string; readonly message: string };

/** The fabric actions the page offers (issue 23): evacuate a fabric, or end its evacuation now. */
export type FabricAction = 'evacuate' | 'restoreFabric';

/**
 * The evacuate form's fields, as text, named after `failout evacuate`'s flags and read the same way
 * (a `restoreFabric` reads only `reason` and `by`).
 */
export interface FabricFields {
  /** `--to`, comma-separated: `lva1:2, ltx1` (absent: every other fabric, by capacity). */
  readonly to?: string | undefined;
  readonly for?: string | undefined;
  readonly until?: string | undefined;
  readonly at?: string | undefined;
  /** `--stages`: tiers of the fabric map, comma-separated, in order. */
  readonly stages?: string | undefined;
  /** `--stage`, repeated: groups of clusters, the groups separated by `;` (`greetings-lor1; hello-lor1, legacy-a`). */
  readonly stageClusters?: string | undefined;
  /** `--gate-alarm` values, comma-separated (`frontend=fe-5xx, 2=hello-5xx`). */
  readonly gateAlarms?: string | undefined;
  readonly hold?: string | undefined;
  readonly ramp?: string | undefined;
  /** `--stop-alarm` values, comma-separated. */
  readonly stopAlarms?: string | undefined;
  /** `failout amend --remove-stop-alarm` values, comma-separated. */
  readonly removeStopAlarms?: string | undefined;
  /** `--exclude` values, comma-separated services. */
  readonly exclude?: string | undefined;
  readonly reason?: string | undefined;
  readonly by?: string | undefined;
  readonly force?: boolean | undefined;
}

/** A fabric request body the worker's schema accepted, ready to send as it is. */
export type FabricBody = EvacuateBody | RestoreFabricBody;

/**
 * The outcome of checking a fabric request before it is sent (as {@link CheckResult}):
 * - `ready`: the worker's schema accepts it and, judged against ZooKeeper now, the worker would apply
 *   it. For `evacuate`, `plan` is the plan it would write (cluster → peers, stages, the load on every
 *   receiving cluster) and `judgement` its text as `failout evacuate --dry-run` prints it; for
 *   `restoreFabric`, `evacuation` is the open evacuation it ends (none: it would change nothing).
 *   `notes` say what was not checked (alarms without a source, ZooKeeper out of reach).
 * - `invalid`: a field is wrong (`field` names it when one is).
 * - `rejected`: the worker would refuse it now, with its reason; `plan` when judging got that far.
 */
export type FabricCheckResult =
  | {
      readonly kind: 'ready';
      readonly body: FabricBody;
      readonly judged: boolean;
      readonly judgement: string;
      readonly plan?: EvacuationPlan | undefined;
      readonly forced?: readonly ForceOverride[] | undefined;
      readonly evacuation?: EvacuationSummary | undefined;
      readonly notes: readonly string[];
    }
  | { readonly kind: 'invalid'; readonly message: string; readonly field?: string | undefined }
  | { readonly kind: 'rejected'; readonly body: FabricBody; readonly reason: string; readonly message: string; readonly plan?: EvacuationPlan | undefined };

/** What judging a fabric request reads: ZooKeeper (undefined: out of reach, not judged) and the alarm source. */
export interface FabricJudgeOptions {
  readonly now: number;
  readonly session: ZkSession | undefined;
  /** Where the stop and gate alarms' states are read (undefined: not checked here; the worker checks them). */
  readonly alarms?: OperatorAlarmSource | undefined;
}

/** Whether the queue answered, and how deep it is. */
export type QueueProbe =
  | { readonly ok: true; readonly visible: number | undefined; readonly inFlight: number | undefined }
  | { readonly ok: false; readonly message: string };

/** The request side of a form-driven client such as the console (made by `createOperatorRequests`). */
export interface OperatorRequests {
  /**
   * Builds the body as the CLI would from `fields` (with `requestId`, or a fresh one), validates it
   * with the worker's schema and judges it against ZooKeeper through `session` (undefined: ZooKeeper is
   * out of reach; the request is then not judged, as the CLI's `judgeBeforeSend` does). With `rates`
   * (the console's scrapes), a failout's judgement also shows the projection from request rates, and
   * says the worker judges by host counts. With `alarms`, the alarms the request names (a failout's
   * stop alarms, an amend's added ones) are checked first with the worker's rule, as `failout out|amend`
   * do before sending: one unknown or in ALARM is `rejected` (`unknownAlarm`, `stopAlarmFiring`).
   * `builtAt` (default `now`) is the time the body's relative times (`+15m`, `+2h`) are read against:
   * a Confirm passes its Check's, so the body it sends is the one the Check built and showed.
   */
  check(
    action: OperatorAction,
    fields: ActionFields,
    options: { readonly requestId?: string | undefined; readonly now: number; readonly session: ZkSession | undefined; readonly rates?: RequestRates | undefined; readonly alarms?: OperatorAlarmSource | undefined; readonly builtAt?: number | undefined },
  ): Promise<CheckResult>;
  /**
   * A fabric request (issue 23) from the evacuate form: builds the body as `failout evacuate <fabric>`
   * (or `failout restore --fabric <fabric>`) would from `fields`, then judges it ({@link judgeFabric}).
   */
  checkFabric(action: FabricAction, fabric: string, fields: FabricFields, options: FabricJudgeOptions & { readonly requestId?: string | undefined }): Promise<FabricCheckResult>;
  /**
   * Judges a built fabric body as it is (a Confirm judges the body its Check stored, never one
   * re-built from the form): the worker's schema, the alarms it names, and the worker's plan judge
   * (`dryRunEvacuation`) against ZooKeeper now. Writes and sends nothing.
   */
  judgeFabric(body: FabricBody, options: FabricJudgeOptions): Promise<FabricCheckResult>;
  /**
   * Sends a checked body to the queue exactly as the CLI does (MessageGroupId = cluster, or the fabric
   * group for a fabric action; MessageDeduplicationId = requestId). @throws Error with a message saying
   * what to do when the queue does not take it.
   */
  send(body: PreparedBody | FabricBody): Promise<{ readonly messageId: string | undefined }>;
  /**
   * Sends a queue message the one encoder already made (`encodeChangeRequest`), as it is: a drill's
   * run now (issue 24, item 7), whose message the drill runner builds and the console showed before
   * Confirm, exactly as `failout drill run-now` sends it. @throws Error saying what to do when the
   * queue does not take it.
   */
  sendMessage(message: SendMessageCommandInput): Promise<{ readonly messageId: string | undefined }>;
  /** `GetQueueAttributes` on the queue: is it reachable, and how many messages wait. */
  probeQueue(): Promise<QueueProbe>;
  /** The queue the requests go to (shown on the page; a URL, no secret). */
  readonly queueUrl: string | undefined;
  /** Describes a cluster's failout as `failout status` does. */
  describe(cluster: string, properties: FailoutProperties | null, now: number): ClusterStatus;
  /** Closes the SQS client and anything else it opened. */
  close(): Promise<void>;
}
