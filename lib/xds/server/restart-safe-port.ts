/**
 * Ports a management server can stop and restart on.
 *
 * Why: a listener on a port the OS handed out (`port: 0`) sits in the ephemeral range. While such a
 * server is stopped, any outgoing connection on the machine (typically the xDS client connecting to
 * the fallback server) may be given that very port as its local port, and the restart then fails
 * with EADDRINUSE. Keeping the port reserved while stopped is not possible from Node: `net` cannot
 * bind a TCP socket without listening, and a placeholder listener would accept connections instead of
 * refusing them, which changes what clients see (a reset after connect rather than ECONNREFUSED).
 * So a restartable server listens BELOW the ephemeral range, where the kernel never picks local ports.
 *
 * Public names (stable):
 * - `ephemeralPortRange()` — the OS range outgoing connections take local ports from.
 * - `restartSafePortRange()` — `{ low, high }` below that range (20000–32767 on a default Linux).
 * - `randomRestartSafePort(random?)` — one port of that range, chosen at random.
 */
import { readFileSync } from 'node:fs';

/** An inclusive port range. */
export interface PortRange {
  readonly low: number;
  readonly high: number;
}

/** Linux's default `net.ipv4.ip_local_port_range`. */
const LINUX_DEFAULT: PortRange = { low: 32768, high: 60999 };
/** IANA's dynamic range (macOS, Windows). */
const IANA_DYNAMIC: PortRange = { low: 49152, high: 65535 };
/** Lowest port we pick: above the registered ports most local services use. */
const FLOOR = 20_000;
/** Fewest ports a range must hold to be worth picking from at random. */
const MIN_SPAN = 1000;

/** The range the OS takes local ports of outgoing connections from (Linux: read from /proc). */
export function ephemeralPortRange(): PortRange {
  if (process.platform !== 'linux') return IANA_DYNAMIC;
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && (low as number) <= (high as number)) return { low: low as number, high: high as number };
  } catch {
    // No procfs (container without /proc/sys): assume the kernel default.
  }
  return LINUX_DEFAULT;
}

/**
 * Ports outside the ephemeral range: below it (from 20000, or lower when the range starts low), else
 * above it. Undefined when the ephemeral range covers (nearly) everything.
 */
export function restartSafePortRange(ephemeral: PortRange = ephemeralPortRange()): PortRange | undefined {
  const below: PortRange = { low: Math.max(1024, Math.min(FLOOR, ephemeral.low - 12_000)), high: ephemeral.low - 1 };
  if (below.high - below.low + 1 >= MIN_SPAN) return below;
  const above: PortRange = { low: ephemeral.high + 1, high: 65535 };
  return above.high - above.low + 1 >= MIN_SPAN ? above : undefined;
}

/** A random port of {@link restartSafePortRange}, or 0 (let the OS pick) when there is none. */
export function randomRestartSafePort(random: () => number = Math.random): number {
  const range = restartSafePortRange();
  if (!range) return 0;
  return range.low + Math.floor(random() * (range.high - range.low + 1));
}
