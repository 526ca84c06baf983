/**
 * What Powertools writes while a handler runs: its logger and EMF metrics write JSON lines straight to
 * stdout (info, EMF) and stderr (warn). Captured from {@link captureOutput} until `restore()`.
 */
export interface CapturedOutput {
  /** Every JSON line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Stops capturing. */
  restore(): void;
}

/** Captures stdout and stderr (call in `beforeEach`, `restore()` in `afterEach`). */
export function captureOutput(): CapturedOutput {
  const output: string[] = [];
  const capture = (chunk: string | Uint8Array): boolean => {
    output.push(String(chunk));
    return true;
  };
  const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
  return {
    lines: () =>
      output
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    restore: () => spies.forEach((s) => s.mockRestore()),
  };
}
