/**
 * Keys whose values move with the clock alone: a window given as a duration starts when the worker
 * applies it, so the times of a judgement made later (the console's Confirm, the worker's own) are
 * later than the ones shown by however long it took.
 */
const CLOCK_KEYS: ReadonlySet<string> = new Set(['offlineAt', 'onlineAt', 'fullyOutAt']);

/**
 * A judgement as shown (plain data: a fabric's plan, a peer load projection, what force overrides…) as
 * one string, compared and never parsed, without the times that move with the clock alone (`offlineAt`,
 * `onlineAt`, `fullyOutAt` at any depth). The one rule by which the console's Confirm and the CLI's
 * `evacuate --wait` tell a judgement made again from the one shown.
 */
export function judgementFingerprint(shown: unknown): string {
  return JSON.stringify(shown, (key, value: unknown) => (CLOCK_KEYS.has(key) ? undefined : value));
}
