import type { FailoutProperties } from '../../../lib/d2';
import { fabricPieces, FabricRowHtml } from '../../../lib/console/fabric-page';
import { FabricTables, type FabricTableInputs } from '../../../lib/console/fabric-view';
import { LiveState } from '../../../lib/console/live-state';
import type { ClusterEntry } from '../../../lib/console/zk-view';
import { describeFailout } from '../../../lib/operator/cluster-status';

// The fabric section made again only where a change touched it (issue 24, item 1: at 3,000 clusters
// the console's CPU went to remaking the whole table on every change): one cluster's change makes
// and renders its service's row again, no other, and the page gets a patch of that row only; a row
// made again with the same HTML sends nothing.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;
const SERVICES = ['greetings', 'hello', 'howdy'];
const FABRICS = ['lor1', 'lva1', 'ltx1'];

function failout(reason: string): FailoutProperties {
  return { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: NOW - HOUR, onlineAt: NOW + HOUR, requestedBy: 'oncall', reason, requestId: `r-${reason}` }] };
}

/** Every service in every fabric, serving, 2 hosts each; `described` counts the descriptions made. */
function world() {
  const entries = new Map<string, ClusterEntry>(SERVICES.flatMap((s) => FABRICS.map((f): [string, ClusterEntry] => [`${s}-${f}`, { name: `${s}-${f}`, failout: null, hosts: 2, problem: undefined }])));
  const described: string[] = [];
  const tables = new FabricTables();
  const rowHtml = new FabricRowHtml();
  const live = new LiveState();
  const inputs = (): FabricTableInputs => ({
    services: SERVICES,
    // New entry objects on every read, as the view makes them; the failout objects are kept.
    clusters: [...entries.values()].map((e) => ({ ...e })),
    maps: [],
    evacuations: [],
    rates: undefined,
    describe: (cluster, properties) => {
      described.push(cluster);
      return describeFailout(cluster, properties, NOW);
    },
    now: NOW,
  });
  const render = () => {
    const table = tables.build(inputs());
    const pieces = fabricPieces(table, NOW, true, rowHtml);
    return { table, pieces, patch: live.update({ now: NOW, alarms: { kind: 'off' }, fabrics: pieces }) };
  };
  return { entries, described, render };
}

describe('the fabric section, made incrementally', () => {
  it("makes and renders again only the changed cluster's service row, and patches only that row", () => {
    // Prepare
    const w = world();
    const before = w.render();
    w.described.length = 0;

    // Act: hello-ltx1 fails out
    w.entries.set('hello-ltx1', { name: 'hello-ltx1', failout: failout('INC-1'), hosts: 2, problem: undefined });
    const after = w.render();

    // Assess: one description; the other rows are the same objects with the same HTML objects
    expect(w.described).toEqual(['hello-ltx1']);
    expect(after.table.services.map((row, i) => row === before.table.services[i])).toEqual([true, false, true]);
    expect(after.pieces.rows.map((row, i) => row.html === before.pieces.rows[i]!.html)).toEqual([true, false, true]);
    expect(after.patch?.sections).toBeUndefined();
    expect(after.patch?.fabrics?.rows?.upsert?.map((u) => u.id)).toEqual(['hello']);
    expect(after.patch?.fabrics?.rows?.upsert?.[0]?.html).toContain('data-cluster="hello-ltx1" data-state="failed-out"');
    // The ltx1 fabric card counts one moved out
    expect(after.patch?.fabrics?.cards?.upsert?.map((u) => u.id)).toEqual(['ltx1']);
  });

  it('sends no patch when a row is made again with the same HTML', () => {
    // Prepare
    const w = world();
    const before = w.render();
    w.described.length = 0;

    // Act: greetings-lor1's node is read again, unchanged (a new failout object, equal to the old one)
    w.entries.set('greetings-lor1', { name: 'greetings-lor1', failout: { redirects: [], ignoredRedirectEntries: 0, buckets: [] }, hosts: 2, problem: undefined });
    const again = w.render();

    // Assess: its cell and row were made again, to the same HTML
    expect(w.described).toEqual(['greetings-lor1']);
    expect(again.table.services[0]).not.toBe(before.table.services[0]);
    expect(again.pieces.rows[0]!.html).toBe(before.pieces.rows[0]!.html);
    expect(again.patch).toBeUndefined();
  });

  it('sends nothing and describes nothing when nothing changed', () => {
    // Prepare
    const w = world();
    w.render();
    w.described.length = 0;

    // Act
    const again = w.render();

    // Assess
    expect(w.described).toEqual([]);
    expect(again.patch).toBeUndefined();
  });
});
