/**
 * Fabric evacuation on the operator path (issue 23), one name on lib/operator's face
 * (`import { evacuation } from '../operator'`): build the `evacuate` and `restoreFabric` bodies from
 * text inputs, check them with the worker's schema, judge the plan as the worker would, print it, and
 * read what `failout status` shows of fabrics and evacuations; check a fabric map change with the
 * worker's schema (`validateFabricChange`). The CLI and the console share it (the
 * console's form reaches the same parts through `OperatorRequests.checkFabric`/`judgeFabric`).
 */
export { buildEvacuateBody, buildRestoreFabricBody, type EvacuateBody, type EvacuateOptions, type EvacuateStageArg, type RestoreFabricBody } from './fabric-bodies';
// The worker's guard rails as the CLI's environment sets them (a drain test's runs must return within MAX_FAILOUT_WINDOW).
export { formatFabricRejection, limitsFromEnv, validateEvacuation, validateFabricChange } from './local-check';
export { dryRunEvacuation, type EvacuationDryRun, type EvacuationJudgeSettings } from './evacuation-dry-run';
export { formatEvacuationPlan } from './evacuation-format';
export { appliedPlanIfChanged } from './evacuation-applied';
export { describeEvacuation, formatEvacuationLine, formatUnreadableEvacuationLine, readEvacuationStatus, type EvacuationPhase, type EvacuationStatus, type EvacuationSummary, type UnreadableEvacuation } from './evacuation-status';
// The console's side of it (a form's text fields, judged as a built body): through the one request port;
// `failout restore --fabric` judges its body with the same function.
export { judgeFabricBody } from './fabric-requests';
export type { FabricAction, FabricBody, FabricCheckResult, FabricFields, FabricJudgeOptions } from './requests-port';
