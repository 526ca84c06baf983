/**
 * The form's errors in the page's words (issue 24, item 8). The operator path (lib/operator) words
 * its input errors for the CLI (`give at least one --peer <cluster>[:weight]…`); the page has fields,
 * not flags, so the console names the field's label instead and drops the flag from examples. The
 * field itself comes with the error (`OperatorError.field`), and the page marks its input.
 */

/** Each CLI flag the form's fields stand for, with the field's label on the page. */
const LABEL_OF_FLAG: ReadonlyMap<string, string> = new Map(Object.entries({
  cluster: 'Cluster',
  peer: 'Peers',
  peers: 'Peers',
  for: 'For',
  until: 'Until',
  at: 'Start at',
  share: 'Share %',
  buckets: 'Buckets',
  ramp: 'Ramp',
  'stop-alarm': 'Stop alarms',
  reason: 'Reason',
  by: 'By',
  force: 'force',
}));

/** A flag with its optional placeholder (`--peer <cluster>[:weight]`). */
const FLAG = /--([a-z][a-z-]*)((?: <[^>]+>)(?:\[[^\]]*\])?)?/g;
/** A flag at the start of an example (`example: --peer greetings-lva1:2`, `e.g. --for 2h`). */
const EXAMPLE_FLAG = /((?:examples?:|e\.g\.) )--[a-z][a-z-]* /g;

/**
 * `message` with every flag of a form field said as that field's label, its placeholder in
 * parentheses (`“Peers” (cluster[:weight])`), and the flags dropped from examples; flags the form has
 * no field for are left as they are.
 */
export function inPageWords(message: string): string {
  return message.replace(EXAMPLE_FLAG, '$1').replace(FLAG, (whole, flag: string, placeholder: string | undefined) => {
    const label = LABEL_OF_FLAG.get(flag);
    if (label === undefined) return whole;
    const what = placeholder === undefined ? '' : ` (${placeholder.trim().replace(/[<>]/g, '')})`;
    return `“${label}”${what}`;
  });
}

/** The form's input per operator field name (the CLI's flag spellings too). */
const INPUT_OF_FIELD: ReadonlyMap<string, string> = new Map([
  ['cluster', 'f-cluster'],
  ['peers', 'f-peers'],
  ['peer', 'f-peers'],
  ['for', 'f-for'],
  ['until', 'f-until'],
  ['at', 'f-at'],
  ['share', 'f-share'],
  ['buckets', 'f-buckets'],
  ['ramp', 'f-ramp'],
  ['stopAlarms', 'f-alarms'],
  ['stop-alarm', 'f-alarms'],
  ['reason', 'f-reason'],
  ['by', 'f-by'],
]);

/** The form's input id for an operator field name (`stopAlarms` → `f-alarms`), or undefined. */
export function inputOfField(field: string | undefined): string | undefined {
  return field === undefined ? undefined : INPUT_OF_FIELD.get(field);
}
