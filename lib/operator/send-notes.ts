import type { CapacityProjection, RequestRates } from '../requests';
import { formatCapacity, projectByRates } from './dry-run';
import { formatUnreadableFailout } from './format';
import type { SendableBody } from './request-bodies';

/** What a judgement the worker would apply holds that the CLI tells before sending. */
export interface ApplyJudgementNotes {
  /** A restore of a failout no reader can read: why it does not read. */
  readonly unreadableFailout?: string | undefined;
  /** A failout's peer load projection from host counts. */
  readonly capacity?: CapacityProjection | undefined;
}

/**
 * The lines the CLI prints on stderr before sending a request the worker would apply: a restore that
 * removes an unreadable failout says so; with measured request `rates`, a failout's projection from
 * them, with a warning when a peer would pass the limit by them (the worker judges by host counts, so
 * that alone does not stop the request: a rate measured in one second is no reason to refuse a
 * failout in an incident).
 */
export function notesBeforeSend(body: Pick<SendableBody, 'action' | 'cluster'>, judgement: ApplyJudgementNotes, rates: RequestRates | undefined): string[] {
  const lines: string[] = [];
  if (judgement.unreadableFailout !== undefined) lines.push(`${body.action} ${body.cluster} ${formatUnreadableFailout(judgement.unreadableFailout)}`);
  const byRates = judgement.capacity === undefined ? {} : projectByRates(judgement.capacity, rates);
  if (byRates.ratesUnused !== undefined) lines.push(`request rates not used (${byRates.ratesUnused}); the worker judges by host counts`);
  const projection = byRates.capacityByRates;
  if (projection !== undefined) {
    lines.push(formatCapacity(projection));
    const over = projection.peers.filter((p) => p.over).map((p) => p.cluster);
    if (over.length > 0) lines.push(`warning: by request rates ${over.join(', ')} would pass ×${projection.maxPeerLoadFactor}; the worker judges by host counts and will apply it (see --dry-run)`);
  }
  return lines;
}
