import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { clockTime, isoText, withClockTimes } from '../../../lib/console/clock-time';
import { renderTrail } from '../../../lib/console/outcome-trail';
import { renderShortcuts, renderZoneSwitch, SHORTCUTS } from '../../../lib/console/habits-view';

// Times on the console (issue 24, item 8): the server renders every instant as a `<time data-clock>`
// in ISO (clock-time.ts); the page's script (public/time.js) shows it in the zone the header's switch
// chose: the time of day today, the day and the minute otherwise, never milliseconds.

const AT = Date.parse('2026-12-02T23:03:48.250Z');
const KOLKATA = 'Asia/Kolkata'; // UTC+05:30: 23:03:48 UTC is 04:33:48 on the next day there

/** The pure part of public/time.js, as the browser runs it (loaded as CommonJS: no DOM). */
interface TimeScript {
  formatClock(ms: number, timeZone: string | undefined, now: number): string;
  formatFull(ms: number, timeZone: string | undefined, label: string): string;
  zoneLabel(zone: 'utc' | 'local', offsetMinutes: number): string;
  tickLabels(splitsSeconds: readonly number[], timeZone: string | undefined): string[];
}
function loadTimeScript(): TimeScript {
  const module = { exports: {} as Partial<TimeScript> };
  runInNewContext(readFileSync(join(__dirname, '../../../lib/console/public/time.js'), 'utf8'), { module, Intl });
  return module.exports as TimeScript;
}

describe('an instant as the server renders it', () => {
  it('is a <time> with the ISO instant as datetime, its epoch ms for the script, and the UTC time without milliseconds as text', () => {
    // Act
    const text = clockTime(Date.parse('2026-12-02T23:03:48Z')).text;

    // Assess
    expect(text).toBe(`<time datetime="2026-12-02T23:03:48.000Z" data-clock="${Date.parse('2026-12-02T23:03:48Z')}">2026-12-02T23:03:48Z</time>`);
  });

  it.each([
    ['an ISO text', '2026-12-02T23:03:48.000Z', '2026-12-02T23:03:48Z'],
    ['epoch ms', Date.parse('2026-12-02T23:03:48Z'), '2026-12-02T23:03:48Z'],
    ['a time with milliseconds', AT, '2026-12-02T23:03:48.250Z'],
  ])('says %s in UTC, whole seconds dropping ".000"', (_what, at, expected) => {
    // Act + Assess
    expect(isoText(at)).toBe(expected);
  });

  it('shows a text that is no time as escaped text, with no datetime for the script to misread', () => {
    // Act + Assess
    expect(clockTime('<b>soon</b>').text).toBe('&lt;b&gt;soon&lt;/b&gt;');
  });

  it("puts each instant of a composed line in a <time>, the rest escaped", () => {
    // Act
    const text = withClockTimes('stopped by <x> (in ALARM at 2026-12-01T14:05:00.250Z); ended 2026-12-01T15:00:00Z by request r-1').text;

    // Assess
    expect(text).toBe(
      `stopped by &lt;x&gt; (in ALARM at <time datetime="2026-12-01T14:05:00.250Z" data-clock="${Date.parse('2026-12-01T14:05:00.250Z')}">2026-12-01T14:05:00.250Z</time>); ` +
        `ended <time datetime="2026-12-01T15:00:00.000Z" data-clock="${Date.parse('2026-12-01T15:00:00Z')}">2026-12-01T15:00:00Z</time> by request r-1`,
    );
  });

  it("puts the outcome trail's time in a <time>, keeping its words", () => {
    // Act
    const text = renderTrail({ id: 'r-1', kind: 'alarm', at: Date.parse('2026-12-02T23:03:48Z'), text: 'stopped by alarm <x> at 23:03:48 UTC, restored by failout-guard' }, 'greetings-lor1').text;

    // Assess
    expect(text).toContain(`stopped by alarm &lt;x&gt; at <time datetime="2026-12-02T23:03:48.000Z" data-clock="${Date.parse('2026-12-02T23:03:48Z')}">23:03:48 UTC</time>, restored by failout-guard`);
  });
});

describe("an instant as the page's script shows it (public/time.js)", () => {
  const time = loadTimeScript();

  it.each([
    ['today in UTC: the time of day', 'UTC', Date.parse('2026-12-02T23:59:00Z'), '23:03:48'],
    ['another day in UTC: the day and the minute', 'UTC', Date.parse('2026-12-03T00:01:00Z'), '2 Dec 23:03'],
    ['another year: with the year', 'UTC', Date.parse('2027-01-01T10:00:00Z'), '2 Dec 2026 23:03'],
    ["today in Kolkata, the next day in UTC", KOLKATA, Date.parse('2026-12-03T00:01:00Z'), '04:33:48'],
    ["yesterday in Kolkata", KOLKATA, Date.parse('2026-12-03T20:00:00Z'), '3 Dec 04:33'],
  ])('%s', (_what, zone, now, expected) => {
    // Act + Assess
    expect(time.formatClock(AT, zone, now)).toBe(expected);
  });

  it('pads the hours and never says 24 for midnight', () => {
    // Act + Assess
    expect(time.formatClock(Date.parse('2026-12-02T00:05:09Z'), 'UTC', Date.parse('2026-12-02T12:00:00Z'))).toBe('00:05:09');
  });

  it('gives the whole instant, to the second, with the zone shown, for a title', () => {
    // Act + Assess
    expect(time.formatFull(AT, KOLKATA, 'local, UTC+05:30')).toBe('3 Dec 2026 04:33:48 local, UTC+05:30');
  });

  it.each([
    ['utc', 0, 'UTC'],
    ['utc', 330, 'UTC'],
    ['local', 330, 'local, UTC+05:30'],
    ['local', -240, 'local, UTC-04:00'],
    ['local', 0, 'local, UTC+00:00'],
  ] as const)('labels the zone %s at %d minutes east as "%s"', (zone, offset, expected) => {
    // Act + Assess
    expect(time.zoneLabel(zone, offset)).toBe(expected);
  });

  it("labels the chart's ticks by the minute, or by the second when they are closer", () => {
    // Prepare
    const minute = Date.parse('2026-12-02T23:03:00Z') / 1000;

    // Act + Assess
    expect(time.tickLabels([minute, minute + 60], 'UTC')).toEqual(['23:03', '23:04']);
    expect(time.tickLabels([minute, minute + 30], KOLKATA)).toEqual(['04:33:00', '04:33:30']);
  });
});

describe("the page's habits as the server lists them", () => {
  it('renders the switch with UTC pressed and the zone shown', () => {
    // Act
    const text = renderZoneSwitch().text;

    // Assess
    expect(text).toContain('<button type="button" data-tz="utc" aria-pressed="true">UTC</button>');
    expect(text).toContain('<button type="button" data-tz="local" aria-pressed="false">Local</button>');
    expect(text).toContain('<span data-tz-label>UTC</span>');
  });

  it('lists every shortcut with its key, Escape as Esc', () => {
    // Act
    const text = renderShortcuts().text;

    // Assess
    for (const s of SHORTCUTS) expect(text).toContain(`<kbd>${s.key === 'Escape' ? 'Esc' : s.key}</kbd></dt><dd>${s.does}</dd>`);
    expect(SHORTCUTS.map((s) => s.key)).toEqual(['/', 't', 'f', 'd', 'a', 'h', '?', 'Escape']);
  });
});
