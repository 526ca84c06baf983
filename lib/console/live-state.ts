/**
 * What every browser of one console shows, as HTML the server last sent, and the `patch` that takes
 * it to the next state (issue 24, item 1). The server (server.ts) makes one update per change and
 * sends its patch to every stream; a browser that starts, reconnects or catches up gets {@link
 * LiveState.full}, which is always exactly the state every patch so far led to, so a patch is never
 * lost nor applied on top of a state it was not made from.
 *
 * Pieces (made by page.ts, escaped by construction):
 * - the small sections (`status`, `planes`, `drills`, `clusters-note`): whole, when changed;
 * - the fabric section (fabric-page.ts `FabricPieces`): its table's rows (by service) and its fabric
 *   cards (by fabric) when only they changed, the whole section when its frame changed;
 * - the service groups (keyed by service, `''` for the clusters no service claims): the shell of the
 *   group (its heading), when changed; their order when it changed;
 * - the cards of each group (keyed by cluster name): only those whose HTML changed;
 * Names are keys as {@link liveKey} encodes them (the elements' `data-key`).
 * - the history rows (keyed by request id; `''` is the row that says there is none).
 *
 * A card is rendered again only when its card object (card-cache.ts), its home tag or the states of
 * the alarms it shows changed; a row only for a record not rendered before (records never change).
 *
 * Every patch's keys go to a {@link PatchLog}, so a page that stopped reading catches up with one
 * patch of the pieces touched since its version ({@link LiveState.patchSince}).
 *
 * Concurrency: event loop only.
 */
import { randomUUID } from 'node:crypto';
import type { RequestRecord } from '../requests';
import type { AlarmStatesView } from './alarms';
import { comparable, KeyedList, liveKey, type KeyedItem, type KeyedPatch } from './card-patches';
import { clustersSection, groupKey, NO_RECORDS_ROW, renderCard, renderGroupShell, renderRecordRow, withCards, type SectionId, type SmallSectionId } from './page';
import { shownWindowIndexes, type ClusterCard, type ServiceGroup } from './snapshot';
import { joinFabricPieces, type FabricPieces } from './fabric-page';
import { listTouch, PatchLog, type ListTouch, type PatchTouches } from './patch-log';

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
  /**
   * The fabric section's pieces (fabric-page.ts `FabricPieces`), when its frame is unchanged: rows
   * (`tr[data-key]` in `#fabric-table > tbody`, by service) and cards (`article[data-key]` in
   * `div.fabric-cards`, by fabric). A changed frame comes as `sections.fabrics`, whole, instead.
   */
  fabrics?: { rows?: KeyedPatch; cards?: KeyedPatch };
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
  /** The fabric section in pieces (not in `sections`: it is patched piece by piece). */
  readonly fabrics?: FabricPieces;
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
  /** The fabric section's frame (head, middle, tail) and its comparable form; undefined: never given. */
  private fabricFrame: { readonly pieces: Pick<FabricPieces, 'head' | 'middle' | 'tail'>; readonly html: string; readonly same: string } | undefined;
  private readonly fabricRows = new KeyedList();
  private readonly fabricCards = new KeyedList();
  /** What the last patches touched, for a page that catches up (patch-log.ts). */
  private readonly log = new PatchLog();

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
    if (parts.fabrics !== undefined) this.updateFabrics(parts.fabrics, patch);
    if (Object.keys(patch).length === 0) return undefined;
    this.counter++;
    this.log.record(this.counter, touches(patch));
    return patch;
  }

  /**
   * What takes a page that has `version` to this state, as one patch: each piece touched since, as it
   * is now (patch-log.ts), so a page that stopped reading gets only the latest of several patches to
   * one card. Undefined when that cannot be told (another server's version, too old, too much
   * touched, a service group removed): the page needs {@link full}.
   */
  patchSince(version: string): LivePatch | undefined {
    const prefix = `${this.instance}-`;
    if (!version.startsWith(prefix)) return undefined;
    const from = Number(version.slice(prefix.length));
    if (!Number.isInteger(from) || from > this.counter) return undefined;
    if (from === this.counter) return {};
    const merged = this.log.since(from);
    // A removed group took its cards with it on the page: only the whole state says what is left.
    if (merged === undefined || (merged.lists.get(GROUPS)?.removed.size ?? 0) > 0) return undefined;
    const patch: LivePatch = {};
    for (const value of merged.values) {
      if (value === RECORDS) patch.records = this.recordCount;
      else (patch.sections ??= {})[value as SmallSectionId] = value === 'fabrics' ? this.fabricsHtml() : (this.sections.get(value as SmallSectionId)?.html ?? '');
    }
    for (const [name, touched] of merged.lists) {
      // The fabric section sent whole covers its pieces.
      if (name.startsWith(FABRIC_LIST) && merged.values.has('fabrics')) continue;
      const list = this.listNamed(name);
      if (list === undefined) continue;
      const listPatch = list.catchUp(touched.keys, touched.reordered || [...touched.removed].some((id) => list.has(id)));
      if (listPatch !== undefined) placeListPatch(patch, name, listPatch);
    }
    return patch;
  }

  /** The keyed list a {@link touches} name stands for (undefined: a group that is gone). */
  private listNamed(name: string): KeyedList | undefined {
    if (name === GROUPS) return this.groups;
    if (name === ROWS) return this.rows;
    if (name === FABRIC_ROWS) return this.fabricRows;
    if (name === FABRIC_CARDS) return this.fabricCards;
    return this.cards.get(name.slice(CARDS.length));
  }

  /** Takes the fabric section's pieces: the frame whole when it changed, else the rows and cards that changed. */
  private updateFabrics(pieces: FabricPieces, patch: LivePatch): void {
    const rows = this.fabricRows.update(pieces.rows);
    const cards = this.fabricCards.update(pieces.cards);
    const html = `${pieces.head}\u0000${pieces.middle}\u0000${pieces.tail}`;
    const known = this.fabricFrame;
    if (known?.html !== html) {
      const same = comparable(html);
      this.fabricFrame = { pieces: { head: pieces.head, middle: pieces.middle, tail: pieces.tail }, html, same };
      if (known?.same !== same) {
        (patch.sections ??= {}).fabrics = this.fabricsHtml();
        return;
      }
    }
    if (rows === undefined && cards === undefined) return;
    patch.fabrics = {};
    if (rows !== undefined) patch.fabrics.rows = rows;
    if (cards !== undefined) patch.fabrics.cards = cards;
  }

  /** The fabric section as it is now ('' before it was ever given). */
  private fabricsHtml(): string {
    const frame = this.fabricFrame;
    if (frame === undefined) return this.sections.get('fabrics')?.html ?? '';
    return joinFabricPieces({ ...frame.pieces, rows: this.fabricRows.all(), cards: this.fabricCards.all() });
  }

  /** The whole state as the `sections` event carries it (every section's `innerHTML`). */
  full(): Record<SectionId, string> {
    const section = (id: SmallSectionId): string => this.sections.get(id)?.html ?? '';
    const groups = this.groups.all().map((g) => withCards(g.html, (this.cards.get(g.id)?.all() ?? []).map((c) => c.html).join('')));
    return {
      status: section('status'),
      clusters: clustersSection(section('clusters-note'), groups),
      fabrics: this.fabricsHtml(),
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

/** Names of the keyed lists in the patch log (a group's cards: {@link CARDS} + its key). */
const GROUPS = 'groups';
const ROWS = 'rows';
const CARDS = 'cards:';
const FABRIC_LIST = 'fabric-';
const FABRIC_ROWS = `${FABRIC_LIST}rows`;
const FABRIC_CARDS = `${FABRIC_LIST}cards`;
/** The record count, as a value in the patch log. */
const RECORDS = '#records';

/** What a patch touched, for the patch log. */
function touches(patch: LivePatch): PatchTouches {
  const values: string[] = Object.keys(patch.sections ?? {});
  if (patch.records !== undefined) values.push(RECORDS);
  const lists = new Map<string, ListTouch>();
  if (patch.groups !== undefined) lists.set(GROUPS, listTouch(patch.groups));
  for (const [group, cards] of Object.entries(patch.cards ?? {})) lists.set(`${CARDS}${group}`, listTouch(cards));
  if (patch.rows !== undefined) lists.set(ROWS, listTouch(patch.rows));
  if (patch.fabrics?.rows !== undefined) lists.set(FABRIC_ROWS, listTouch(patch.fabrics.rows));
  if (patch.fabrics?.cards !== undefined) lists.set(FABRIC_CARDS, listTouch(patch.fabrics.cards));
  return { values, lists };
}

/** Puts a list's catch-up patch where its name says in `patch`. */
function placeListPatch(patch: LivePatch, name: string, listPatch: KeyedPatch): void {
  if (name === GROUPS) patch.groups = listPatch;
  else if (name === ROWS) patch.rows = listPatch;
  else if (name === FABRIC_ROWS) (patch.fabrics ??= {}).rows = listPatch;
  else if (name === FABRIC_CARDS) (patch.fabrics ??= {}).cards = listPatch;
  else (patch.cards ??= {})[name.slice(CARDS.length)] = listPatch;
}
