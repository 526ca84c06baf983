/**
 * What every browser of one console shows, as HTML the server last sent, and the `patch` that takes
 * it to the next state (issue 24, item 1). The server (server.ts) makes one update per change and
 * sends its patch to every stream; a browser that starts, reconnects or catches up gets {@link
 * LiveState.full}, which is always exactly the state every patch so far led to, so a patch is never
 * lost nor applied on top of a state it was not made from.
 *
 * Pieces (made by page.ts, escaped by construction):
 * - the small sections (`status`, `planes`, `fabrics`, `drills`, `clusters-note`): whole, when changed;
 * - the service groups (keyed by service, `''` for the clusters no service claims): the shell of the
 *   group (its heading), when changed; their order when it changed;
 * - the cards of each group (keyed by cluster name): only those whose HTML changed;
 * Names are keys as {@link liveKey} encodes them (the elements' `data-key`).
 * - the history rows (keyed by request id; `''` is the row that says there is none).
 *
 * A card is rendered again only when its card object (card-cache.ts), its home tag or the states of
 * the alarms it shows changed; a row only for a record not rendered before (records never change).
 *
 * Concurrency: event loop only.
 */
import { randomUUID } from 'node:crypto';
import type { RequestRecord } from '../requests';
import type { AlarmStatesView } from './alarms';
import { comparable, KeyedList, liveKey, type KeyedItem, type KeyedPatch } from './card-patches';
import { clustersSection, groupKey, NO_RECORDS_ROW, renderCard, renderGroupShell, renderRecordRow, withCards, type SectionId, type SmallSectionId } from './page';
import { shownWindowIndexes, type ClusterCard, type ServiceGroup } from './snapshot';

/** The body of a `patch` event: each field only when something in it changed. */
export interface LivePatch {
  /** Small sections replaced whole (their `innerHTML`), by element id. */
  sections?: Partial<Record<SmallSectionId, string>>;
  /** The service groups in `#clusters` (`section.group[data-key]`): each item the group's shell with no card. */
  groups?: KeyedPatch;
  /** Per group key: its cards (`article.card[data-key]` in its `div.cards`). */
  cards?: Record<string, KeyedPatch>;
  /** The history rows in `#history-rows` (`tr[data-request]`; key `''`: the row saying there is none). */
  rows?: KeyedPatch;
  /** How many records the console holds (the rows are only the newest page), when that changed. */
  records?: number;
}

/** What one update covers: only the parts given are compared (a traffic scrape brings only `fabrics`). */
export interface LiveParts {
  readonly now: number;
  readonly alarms: AlarmStatesView;
  readonly sections?: Partial<Record<SmallSectionId, string>>;
  readonly groups?: readonly ServiceGroup[];
  readonly records?: readonly RequestRecord[];
  /** Every record held (`records` is the newest page of them): the history's count. */
  readonly recordCount?: number;
}

/** A card's HTML and what it was rendered from. */
interface RenderedCard {
  readonly card: ClusterCard;
  readonly home: boolean;
  readonly alarms: string;
  readonly html: string;
}

/** The live state of one console server. */
export class LiveState {
  /** Versions name this server's states: a page served by an earlier process never matches one. */
  private readonly instance = randomUUID().slice(0, 8);
  private counter = 0;
  private readonly sections = new Map<SmallSectionId, { html: string; same: string }>();
  private readonly groups = new KeyedList();
  private readonly cards = new Map<string, KeyedList>();
  private readonly rows = new KeyedList();
  /** Per group and cluster (`group\0cluster`): the card's HTML and its inputs. */
  private readonly rendered = new Map<string, RenderedCard>();
  private readonly rowHtml = new WeakMap<RequestRecord, string>();
  /** The record count last sent (undefined: never). */
  private recordCount: number | undefined;

  /** The version of the state {@link full} returns; a new one after every update that changed something. */
  get version(): string {
    return `${this.instance}-${this.counter}`;
  }

  /** Takes the parts given as what every browser shows now; returns what changed, or undefined. */
  update(parts: LiveParts): LivePatch | undefined {
    const patch: LivePatch = {};
    const sections = this.updateSections(parts.sections ?? {});
    if (sections !== undefined) patch.sections = sections;
    if (parts.groups !== undefined) this.updateGroups(parts.groups, parts.now, parts.alarms, patch);
    if (parts.records !== undefined) {
      const rows = this.rows.update(this.rowItems(parts.records));
      if (rows !== undefined) patch.rows = rows;
    }
    if (parts.recordCount !== undefined && parts.recordCount !== this.recordCount) {
      patch.records = this.recordCount = parts.recordCount;
    }
    if (Object.keys(patch).length === 0) return undefined;
    this.counter++;
    return patch;
  }

  /** The whole state as the `sections` event carries it (every section's `innerHTML`). */
  full(): Record<SectionId, string> {
    const section = (id: SmallSectionId): string => this.sections.get(id)?.html ?? '';
    const groups = this.groups.all().map((g) => withCards(g.html, (this.cards.get(g.id)?.all() ?? []).map((c) => c.html).join('')));
    return {
      status: section('status'),
      clusters: clustersSection(section('clusters-note'), groups),
      fabrics: section('fabrics'),
      drills: section('drills'),
      planes: section('planes'),
      'history-rows': this.rows.all().map((r) => r.html).join(''),
    };
  }

  private updateSections(next: Partial<Record<SmallSectionId, string>>): LivePatch['sections'] {
    const changed: Partial<Record<SmallSectionId, string>> = {};
    for (const [id, html] of Object.entries(next) as [SmallSectionId, string][]) {
      const known = this.sections.get(id);
      if (known?.html === html) continue;
      const same = comparable(html);
      if (known?.same !== same) changed[id] = html;
      this.sections.set(id, { html, same });
    }
    return Object.keys(changed).length > 0 ? changed : undefined;
  }

  private updateGroups(groups: readonly ServiceGroup[], now: number, alarms: AlarmStatesView, patch: LivePatch): void {
    const groupPatch = this.groups.update(groups.map((g) => ({ id: groupKey(g), html: renderGroupShell(g).text })));
    if (groupPatch !== undefined) patch.groups = groupPatch;
    const present = new Set(groups.map(groupKey));
    for (const key of this.cards.keys()) if (!present.has(key)) this.cards.delete(key);
    const seen = new Set<string>();
    const cards: Record<string, KeyedPatch> = {};
    for (const g of groups) {
      const key = groupKey(g);
      let list = this.cards.get(key);
      if (list === undefined) this.cards.set(key, (list = new KeyedList()));
      const items = g.clusters.map((c) => this.cardItem(key, c, c.name === g.homeCluster, now, alarms, seen));
      const changed = list.update(items);
      if (changed !== undefined) cards[key] = changed;
    }
    for (const id of this.rendered.keys()) if (!seen.has(id)) this.rendered.delete(id);
    if (Object.keys(cards).length > 0) patch.cards = cards;
  }

  /** A card's HTML: the one rendered before when its inputs are the same objects and values. */
  private cardItem(group: string, card: ClusterCard, home: boolean, now: number, alarms: AlarmStatesView, seen: Set<string>): KeyedItem {
    const key = liveKey(card.name);
    const id = `${group}\u0000${key}`;
    seen.add(id);
    const states = alarmStates(card, alarms);
    const known = this.rendered.get(id);
    if (known !== undefined && known.card === card && known.home === home && known.alarms === states) return { id: key, html: known.html };
    const html = renderCard(card, home, now, alarms).text;
    this.rendered.set(id, { card, home, alarms: states, html });
    return { id: key, html };
  }

  private rowItems(records: readonly RequestRecord[]): KeyedItem[] {
    if (records.length === 0) return [{ id: '', html: NO_RECORDS_ROW.text }];
    return records.map((record) => {
      let html = this.rowHtml.get(record);
      if (html === undefined) this.rowHtml.set(record, (html = renderRecordRow(record).text));
      return { id: record.requestId, html };
    });
  }
}

/** The states of the alarms a card shows, as one string (`''`: it shows none, or none is known). */
function alarmStates(card: ClusterCard, alarms: AlarmStatesView): string {
  if (alarms.kind !== 'read') return '';
  const names = shownWindowIndexes(card.status).flatMap((i) => card.safety[i]?.stopAlarms ?? []);
  return names.length === 0 ? '' : names.map((name) => alarms.states.get(name) ?? '').join('\u0000');
}
