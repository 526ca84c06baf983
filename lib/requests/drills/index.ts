/**
 * lib/requests/drills: drills as the worker keeps them, for the components that read them (the drill
 * runner, the CLI, the console, `failout status`): the drill node codec, a run's status and the
 * alarms it is judged by, and the check of a `drill put` before it is sent.
 */
export { DEFAULT_DRILLS_PATH, drillPath, decodeDrillNode, runAlarms, runStatusAt, runningRun, currentRun } from '../drill-node';
export type { DrillDefinition, DrillNode, DrillRun, DrillRunStatus } from '../drill-node';
export { checkPutDrill } from '../drill-checks';
export { runTakesVerdict } from '../drill-rules';
