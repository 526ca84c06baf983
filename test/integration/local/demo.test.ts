import { runDemo } from '../../../lib/local/demo';

describe('npm start demo', () => {
  it('routes by weight, drops a marked-down backend, and keeps serving while ZooKeeper is down', async () => {
    // Prepare
    const lines: string[] = [];

    // Act
    await runDemo({ requests: 40, keep: false, out: (line) => lines.push(line) });

    // Assess: per phase, the share of each backend.
    const text = lines.join('\n');
    const phases = text.split(/\n(?=\d\. )/).slice(1);
    const shares = phases.map((phase) => [...phase.matchAll(/(backend-\d)\s+(\d+)\s/g)].map((m) => Number(m[2])));
    expect(shares).toEqual([
      [10, 20, 10],
      [20, 0, 20],
      [20, 0, 20],
      [10, 20, 10],
    ]);
    expect(text).not.toContain('failed');
    expect(lines.at(-1)).toBe('done.');
  });
});
