import { parseArgs } from 'node:util';

/** One integer option: its default and the smallest value allowed. */
export interface IntOption {
  readonly default: number;
  readonly min: number;
}

/**
 * Parses `--name <int>` options strictly: unknown flags and values below `min` fail with a message
 * naming the flag. Returns the values by option name.
 */
export function parseIntOptions<K extends string>(args: string[], spec: Record<K, IntOption>): Record<K, number> {
  const names = Object.keys(spec) as K[];
  const { values } = parseArgs({
    args,
    options: Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
    strict: true,
  });
  const result = {} as Record<K, number>;
  for (const name of names) {
    const text = (values as Record<string, string | undefined>)[name];
    const value = text === undefined ? spec[name].default : Number(text);
    if (!Number.isInteger(value) || value < spec[name].min) throw new Error(`--${name} must be an integer ≥ ${spec[name].min}, got ${String(text)}`);
    result[name] = value;
  }
  return result;
}
