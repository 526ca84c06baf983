/**
 * `failout out --at/--until` and `failout extend --until` through the CLI's own entry (`run`): a time
 * the calendar does not have is a usage error (exit 2) naming the flag, and nothing is sent, instead
 * of a window a day from what was typed (Date.parse rolls 2026-04-31 over to 1 May).
 */
import { run } from '../../../lib/cli/program';
import type { CliIo } from '../../../lib/cli/io';

const NOW = Date.parse('2026-04-30T16:00:00Z');

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  // A queue nobody listens on: a request that got as far as sending would fail with exit 1, not 2.
  const env = { FAILOUT_QUEUE_URL: 'http://127.0.0.1:9/000000000000/failout-requests.fifo', SQS_ENDPOINT: 'http://127.0.0.1:9', FAILOUT_USER: 'oncall@example.com' };
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, now: () => NOW };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

describe('times the calendar does not have', () => {
  it.each([
    [['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--until', '2026-04-31T18:00:00Z'], '--until'],
    [['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--at', '2026-04-31T08:00:00Z', '--for', '1h'], '--at'],
    [['extend', 'greetings-lor1', '--until', '2026-04-31T18:00:00Z'], '--until'],
  ])('failout %j is a usage error naming %s, and nothing is sent', async (argv, flag) => {
    const result = await cli(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${flag} "2026-04-31T`);
    expect(result.stderr).toMatch(/not a time the calendar has/);
    expect(result.stdout).toBe('');
  });
});
