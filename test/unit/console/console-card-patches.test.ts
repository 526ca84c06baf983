import { comparable, freshCountdowns, KeyedList, type KeyedItem, type UpsertItem } from '../../../lib/console/card-patches';

// The keyed-list diff behind the console's `patch` events (issue 24): only the pieces whose HTML
// changed, the new ones with the key they follow, the ones removed, and the order only when the pieces
// that stay change places; a countdown's text is no change.

const item = (id: string, text = id): KeyedItem => ({ id, html: `<article data-cluster="${id}">${text}</article>` });
/** A new piece as a patch carries it: after the key it follows. */
const added = (id: string, after: string | null): UpsertItem => ({ ...item(id), after });

/** A list that has sent `items` already. */
function sent(...items: KeyedItem[]): KeyedList {
  const list = new KeyedList();
  list.update(items);
  return list;
}

describe('the keyed-list diff', () => {
  it('sends every piece, in order, the first time', () => {
    // Act
    const patch = new KeyedList().update([item('a'), item('b')]);

    // Assess: each after the one before it, so no order is needed
    expect(patch).toEqual({ upsert: [added('a', null), added('b', 'a')] });
  });

  it('sends nothing when nothing changed', () => {
    // Prepare
    const list = sent(item('a'), item('b'), item('c'));

    // Act
    const patch = list.update([item('a'), item('b'), item('c')]);

    // Assess
    expect(patch).toBeUndefined();
  });

  it('sends only the piece whose HTML changed', () => {
    // Prepare
    const list = sent(item('a'), item('b'), item('c'));

    // Act
    const patch = list.update([item('a'), item('b', 'FAILED OUT'), item('c')]);

    // Assess
    expect(patch).toEqual({ upsert: [item('b', 'FAILED OUT')] });
  });

  it('sends a removed piece by its key alone, and no order when the others keep theirs', () => {
    // Prepare
    const list = sent(item('a'), item('b'), item('c'));

    // Act
    const patch = list.update([item('a'), item('c')]);

    // Assess
    expect(patch).toEqual({ remove: ['b'] });
  });

  it.each([
    ['last', ['a', 'b', 'c', 'n'], 'c'],
    ['in the middle', ['a', 'n', 'b', 'c'], 'a'],
    ['first (a new history row)', ['n', 'a', 'b', 'c'], null],
  ])('sends a new piece %s with the key it follows and no order', (_case, ids: string[], after: string | null) => {
    // Prepare
    const list = sent(item('a'), item('b'), item('c'));

    // Act
    const patch = list.update(ids.map((id) => item(id)));

    // Assess
    expect(patch).toEqual({ upsert: [added('n', after)] });
  });

  it.each([
    ['two swapped', ['b', 'a', 'c']],
    ['one moved last, a new one first', ['n', 'b', 'c', 'a']],
  ])('sends the order when pieces that stay changed places: %s', (_case, ids: string[]) => {
    // Prepare
    const list = sent(item('a'), item('b'), item('c'));

    // Act
    const patch = list.update(ids.map((id) => item(id)));

    // Assess
    expect(patch?.order).toEqual(ids);
    expect(patch?.upsert ?? []).toEqual(ids.includes('n') ? [added('n', null)] : []);
  });

  it("takes a countdown's new text as no change, and keeps the newest HTML for the whole state", () => {
    // Prepare
    const at = (text: string): KeyedItem => ({ id: 'a', html: `<p>ends in <time datetime="2026-12-01T13:00:00Z" data-until="1796130000000">${text}</time></p>` });
    const list = sent(at('1h 0m'));

    // Act
    const patch = list.update([at('59m 59s')]);

    // Assess
    expect(patch).toBeUndefined();
    expect(list.all()).toEqual([at('59m 59s')]);
  });

  it('compares a changed countdown end as a change', () => {
    // Prepare
    const list = sent({ id: 'a', html: '<time datetime="x" data-until="1000">1s</time>' });

    // Act
    const patch = list.update([{ id: 'a', html: '<time datetime="x" data-until="2000">1s</time>' }]);

    // Assess
    expect(patch?.upsert).toHaveLength(1);
  });
});

describe('countdown texts', () => {
  it('are left out of the comparison and put back as of a given time', () => {
    // Prepare
    const html = '<span>(<time datetime="2026-12-01T13:00:00.000Z" data-until="7200000">2h 0m</time> left)</span>';

    // Act
    const same = comparable(html);
    const fresh = freshCountdowns(html, 3_601_000);

    // Assess
    expect(same).toBe('<span>(<time datetime="2026-12-01T13:00:00.000Z" data-until="7200000"></time> left)</span>');
    expect(fresh).toBe('<span>(<time datetime="2026-12-01T13:00:00.000Z" data-until="7200000">59m 59s</time> left)</span>');
  });
});
