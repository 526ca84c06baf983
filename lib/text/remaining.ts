/** `1h 30m`, `45s`, `2d 3h`: a remaining time, coarse (the two largest units); `0s` when none is left. */
export function formatRemaining(ms: number): string {
  if (ms <= 0) return '0s';
  const units: [string, number][] = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]];
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0 || (unit === 's' && parts.length === 0)) parts.push(`${n}${unit}`);
    rest -= n * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
