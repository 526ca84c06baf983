// Inside a client worker of a propagation benchmark: the round being measured, and when each client's
// routing decision flipped to what the round wrote (failed out, or home). Reported once every client
// has flipped. bench/propagation's client worker keeps its rounds here; bench/failout-propagation's
// worker still has its own copy of the same few lines.
import { clock } from './workers';

/** One round at a time: {@link arm}, then {@link check} on every update a client hears. */
export class FlipRounds {
  /** The round being measured, or undefined between rounds (changes only in arm, check and clear). */
  private current: { round: number; failedOut: boolean; times: number[]; remaining: number } | undefined;

  /** `done` gets the round and, per client, the clock time its decision flipped. */
  constructor(private readonly done: (round: number, times: number[]) => void) {}

  /** Starts measuring `round` over `clients` clients: each flips when its decision equals `failedOut`. */
  arm(round: number, failedOut: boolean, clients: number): void {
    this.current = { round, failedOut, times: new Array<number>(clients).fill(0), remaining: clients };
  }

  /**
   * Client `index` heard an update: records the time if `isFailedOut()` (what the redirect strategy
   * reads on every request) now answers the round's way. The time is taken before the read, so it is
   * when the update reached the client's listener.
   */
  check(index: number, isFailedOut: () => boolean): void {
    const at = clock();
    const round = this.current;
    if (!round || round.times[index] !== 0) return;
    if (isFailedOut() !== round.failedOut) return;
    round.times[index] = at;
    if (--round.remaining === 0) {
      this.current = undefined;
      this.done(round.round, round.times);
    }
  }

  /** Stops measuring (shutdown). */
  clear(): void {
    this.current = undefined;
  }
}
