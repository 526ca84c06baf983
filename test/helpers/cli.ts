import type { CliIo } from '../../lib/cli/io';
import { run } from '../../lib/cli/program';

/** What one in-process CLI run printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `failout` CLI in-process (`run(argv, io)`) with `env` as its whole environment, capturing its output. */
export async function runCli(env: Record<string, string>, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, now: () => Date.now() };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}
