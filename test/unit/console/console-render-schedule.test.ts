import { RenderSchedule } from '../../../lib/console/render-schedule';

// When the console renders (issue 24, item 2): one render for a burst of changes, the fabric table
// alone for new rates, and one timer for the next boundary instead of a tick every second.

const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('the render schedule', () => {
  let renders: string[];
  let schedule: RenderSchedule;

  beforeEach(() => {
    jest.useFakeTimers({ now: NOW });
    renders = [];
    schedule = new RenderSchedule({ renderAll: () => renders.push('all'), renderFabrics: () => renders.push('fabrics') });
  });

  afterEach(() => {
    schedule.close();
    jest.useRealTimers();
  });

  it('renders once, 50 ms after a burst of changes; everything when any change asked for it', () => {
    // Act
    schedule.request(false);
    schedule.request();
    schedule.request(false);
    jest.advanceTimersByTime(50);
    schedule.request(false);
    jest.advanceTimersByTime(50);

    // Assess
    expect(renders).toEqual(['all', 'fabrics']);
  });

  it('renders nothing on the clock without a boundary, however long it waits', () => {
    // Act
    schedule.boundaryAt(Infinity, NOW);
    jest.advanceTimersByTime(60 * 60_000);

    // Assess
    expect(renders).toEqual([]);
  });

  it('renders once just after the next boundary, not before, and keeps one timer when the boundary moves', () => {
    // Prepare: a boundary in 10 s, moved to 5 s, asked for again (unchanged)
    schedule.boundaryAt(NOW + 10_000, NOW);
    schedule.boundaryAt(NOW + 5_000, NOW);
    schedule.boundaryAt(NOW + 5_000, NOW);

    // Act
    jest.advanceTimersByTime(5_000);
    const before = [...renders];
    jest.advanceTimersByTime(51);
    const at = [...renders];
    jest.advanceTimersByTime(60_000);

    // Assess
    expect(before).toEqual([]);
    expect(at).toEqual(['all']);
    expect(renders).toEqual(['all']);
    expect(schedule.nextBoundary).toBe(Infinity);
  });

  it('renders nothing after close', () => {
    // Prepare
    schedule.request();
    schedule.boundaryAt(NOW + 1_000, NOW);

    // Act
    schedule.close();
    schedule.request();
    jest.advanceTimersByTime(10_000);

    // Assess
    expect(renders).toEqual([]);
  });
});
