import { canonicalAction, CHECK_TTL_MS, CheckedBodies, CheckedRequests, MAX_CHECKED } from '../../../lib/console/checked-requests';

// The server's half of "Confirm sends what was checked" (issue 21, item 7): a Confirm matches its
// Check exactly, once, within the check's lifetime, and only while the cluster is as it was.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const SAME = (): string => 'state-1';

describe('checked requests', () => {
  it('takes a Confirm with the checked fields once; a second one is refused', () => {
    // Prepare
    const checked = new CheckedRequests();
    checked.remember('r-1', 'extend', { cluster: 'c', for: '45m' }, 'state-1', NOW);

    // Act
    const first = checked.take('r-1', 'extend', { cluster: 'c', for: '45m', force: false, reason: undefined }, SAME, NOW + 1000);
    const second = checked.take('r-1', 'extend', { cluster: 'c', for: '45m' }, SAME, NOW + 2000);

    // Assess
    expect(first.ok).toBe(true);
    expect(second).toEqual(expect.objectContaining({ ok: false, reason: 'notChecked' }));
  });

  it.each([
    ['other fields', 'extend', { cluster: 'c', for: '3h' }, SAME, NOW, 'fieldsChanged'],
    ['another action', 'restore', { cluster: 'c', for: '45m' }, SAME, NOW, 'fieldsChanged'],
    ['force ticked since', 'extend', { cluster: 'c', for: '45m', force: true }, SAME, NOW, 'fieldsChanged'],
    ['the cluster changed', 'extend', { cluster: 'c', for: '45m' }, (): string => 'state-2', NOW, 'clusterChanged'],
    ['a check too old', 'extend', { cluster: 'c', for: '45m' }, SAME, NOW + CHECK_TTL_MS + 1, 'notChecked'],
  ] as const)('refuses a Confirm with %s', (_case, action, fields, clusterState, at, reason) => {
    // Prepare
    const checked = new CheckedRequests();
    checked.remember('r-1', 'extend', { cluster: 'c', for: '45m' }, 'state-1', NOW);

    // Act
    const taken = checked.take('r-1', action, fields, clusterState, at);

    // Assess
    expect(taken).toEqual(expect.objectContaining({ ok: false, reason }));
  });

  it('refuses a Confirm of an amend that removes another stop alarm than the one checked', () => {
    // Prepare
    const checked = new CheckedRequests();
    checked.remember('r-1', 'amend', { cluster: 'c', removeStopAlarms: 'old-alarm' }, 'state-1', NOW);

    // Act
    const taken = checked.take('r-1', 'amend', { cluster: 'c', removeStopAlarms: 'c-errors' }, SAME, NOW);

    // Assess
    expect(taken).toEqual(expect.objectContaining({ ok: false, reason: 'fieldsChanged' }));
  });

  it('gives a check back when its send did not reach the queue, and forgets the oldest past the bound', () => {
    // Prepare
    const checked = new CheckedRequests();
    for (let i = 0; i <= MAX_CHECKED; i++) checked.remember(`r-${i}`, 'restore', { cluster: 'c' }, 'state-1', NOW);

    // Act
    const taken = checked.take('r-5', 'restore', { cluster: 'c' }, SAME, NOW);
    if (taken.ok) checked.giveBack('r-5', taken.checked);
    const again = checked.take('r-5', 'restore', { cluster: 'c' }, SAME, NOW);
    const oldest = checked.take('r-0', 'restore', { cluster: 'c' }, SAME, NOW);

    // Assess
    expect([taken.ok, again.ok, oldest.ok]).toEqual([true, true, false]);
  });

  it('compares fields in one canonical form: key order, absent, undefined and unticked force alike', () => {
    expect(canonicalAction('failout', { reason: 'x', cluster: 'c', force: false, peers: undefined })).toBe(canonicalAction('failout', { cluster: 'c', reason: 'x' }));
  });
});

describe('checked bodies (the fabric actions)', () => {
  const body = (requestId: string) => ({ requestId, action: 'evacuate', fabric: 'lor1' });

  it('gives back the very body checked, once, by its request id', () => {
    // Prepare
    const checked = new CheckedBodies<ReturnType<typeof body>>();
    const stored = body('r-1');
    checked.remember(stored, 'state-1', NOW);

    // Act
    const first = checked.take('r-1', SAME, NOW + 1000);
    const second = checked.take('r-1', SAME, NOW + 2000);

    // Assess
    expect(first.ok && first.checked.body).toBe(stored);
    expect(second).toEqual(expect.objectContaining({ ok: false, reason: 'notChecked' }));
  });

  it.each([
    ['the state its judgement read changed', (): string => 'state-2', NOW, 'fabricChanged'],
    ['a check too old', SAME, NOW + CHECK_TTL_MS + 1, 'notChecked'],
  ] as const)('refuses a Confirm when %s', (_case, stateOf, at, reason) => {
    // Prepare
    const checked = new CheckedBodies<ReturnType<typeof body>>();
    checked.remember(body('r-1'), 'state-1', NOW);

    // Act
    const taken = checked.take('r-1', stateOf, at);

    // Assess
    expect(taken).toEqual(expect.objectContaining({ ok: false, reason }));
  });

  it('keeps a body given back after a failed send, and forgets the oldest past the bound', () => {
    // Prepare
    const checked = new CheckedBodies<ReturnType<typeof body>>();
    for (let i = 0; i <= MAX_CHECKED; i++) checked.remember(body(`r-${i}`), 'state-1', NOW);

    // Act
    const taken = checked.take('r-5', SAME, NOW);
    if (taken.ok) checked.giveBack(taken.checked);
    const again = checked.take('r-5', SAME, NOW);
    const oldest = checked.take('r-0', SAME, NOW);

    // Assess
    expect([taken.ok, again.ok, oldest.ok]).toEqual([true, true, false]);
  });
});
