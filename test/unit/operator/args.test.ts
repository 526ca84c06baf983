import { exitCodeOf } from '../../../lib/cli';
import { formatIsoDuration, parseBuckets, parseDuration, parsePeers, parseShare, parseTime } from '../../../lib/operator/inputs';
import { OperatorError } from '../../../lib/operator';

const NOW = Date.parse('2026-11-30T16:00:00Z');

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(OperatorError);
    expect(exitCodeOf(err as OperatorError)).toBe(2);
    return (err as OperatorError).message;
  }
  throw new Error('expected a usage error');
}

describe('parsePeers', () => {
  it('reads repeated and comma-separated peers with default weight 1', () => {
    expect(parsePeers(['greetings-lva1:2', 'greetings-ltx1,greetings-lsg1:3'])).toEqual([
      { cluster: 'greetings-lva1', weight: 2 },
      { cluster: 'greetings-ltx1', weight: 1 },
      { cluster: 'greetings-lsg1', weight: 3 },
    ]);
  });

  it.each([['a:0'], ['a:-1'], ['a:1.5'], ['a:x'], [':2']])('refuses %s naming the flag and an example', (value) => {
    expect(usageMessage(() => parsePeers([value]))).toMatch(/--peer .*example: --peer greetings-lva1:2/);
  });

  it('refuses a peer given twice', () => {
    expect(usageMessage(() => parsePeers(['a:1', 'a:2']))).toMatch(/given twice/);
  });
});

describe('parseDuration', () => {
  it.each([
    ['90m', 5_400_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['45s', 45_000],
    ['1d', 86_400_000],
    ['PT2H', 7_200_000],
    ['PT1H30M', 5_400_000],
    ['P1DT6H', 108_000_000],
  ])('%s is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([['2 hours'], ['h'], ['P'], ['PT'], ['0m'], ['-1h'], ['']])('refuses %j', (text) => {
    expect(usageMessage(() => parseDuration(text))).toMatch(/--for/);
  });

  it.each([
    [7_200_000, 'PT2H'],
    [5_400_000, 'PT1H30M'],
    [45_000, 'PT45S'],
    [259_200_000, 'PT72H'],
  ])('formats %i ms as %s', (ms, iso) => {
    expect(formatIsoDuration(ms)).toBe(iso);
  });
});

describe('parseTime', () => {
  it.each([
    ['now', NOW],
    ['+30m', NOW + 1_800_000],
    ['2026-11-30T18:00:00Z', Date.parse('2026-11-30T18:00:00Z')],
    ['2026-11-30T19:00:00+01:00', Date.parse('2026-11-30T18:00:00Z')],
  ])('%s', (text, ms) => {
    expect(parseTime(text, NOW, '--until')).toBe(ms);
  });

  it('refuses a time without a zone instead of guessing the local one', () => {
    expect(usageMessage(() => parseTime('2026-11-30T18:00:00', NOW, '--until'))).toMatch(/--until .*with a zone/);
  });

  // Date.parse rolls a day the month does not have (and hour 24) over to the next day; the worker's
  // schema (zod's iso.datetime) refuses such an instant, and so does the console's history filter.
  it.each([['2026-04-31T18:00:00Z'], ['2026-02-29T08:00:00Z'], ['2026-02-30T08:00:00+01:00'], ['2026-11-30T24:00:00Z'], ['2026-11-31T10:00Z']])(
    'refuses %s, a time the calendar does not have, instead of moving it to the next day',
    (text) => {
      expect(usageMessage(() => parseTime(text, NOW, '--until'))).toMatch(/--until .*not a time the calendar has/);
    },
  );

  it('accepts the last day of each month, and 29 February of a leap year', () => {
    expect(parseTime('2028-02-29T08:00:00Z', NOW, '--at')).toBe(Date.UTC(2028, 1, 29, 8));
    expect(parseTime('2026-04-30T23:59:59Z', NOW, '--at')).toBe(Date.UTC(2026, 3, 30, 23, 59, 59));
    expect(parseTime('2026-12-31T23:00:00-01:00', NOW, '--at')).toBe(Date.UTC(2027, 0, 1, 0));
  });
});

describe('parseShare and parseBuckets', () => {
  it.each([
    ['50', { from: 0, to: 49 }],
    ['100%', { from: 0, to: 99 }],
    ['1', { from: 0, to: 0 }],
  ])('--share %s moves buckets %j', (text, range) => {
    expect(parseShare(text)).toEqual(range);
  });

  it.each([['0'], ['101'], ['12.5'], ['half']])('--share refuses %s', (text) => {
    expect(usageMessage(() => parseShare(text))).toMatch(/--share/);
  });

  it.each([
    ['0-49', { from: 0, to: 49 }],
    ['10 - 19', { from: 10, to: 19 }],
    ['7', { from: 7, to: 7 }],
  ])('--buckets %s is %j', (text, range) => {
    expect(parseBuckets(text)).toEqual(range);
  });

  it.each([['50-10'], ['0-100'], ['a-b'], ['-1-5']])('--buckets refuses %s', (text) => {
    expect(usageMessage(() => parseBuckets(text))).toMatch(/--buckets/);
  });
});
