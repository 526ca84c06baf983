import { closeOnSignal, type StopLogger } from '../../../lib/lifecycle';

// How a Fargate task's main ends: close on the first SIGTERM/SIGINT, exit 0 once closed, exit 1 when
// closing fails or outlasts the deadline. The signal is emitted on `process`; exit is spied on.

function recordingLogger(): StopLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (_obj: object, msg: string) => void lines.push(`info ${msg}`),
    error: (objOrMsg: object | string, msg?: string) => void lines.push(`error ${typeof objOrMsg === 'string' ? objOrMsg : msg}`),
  } as StopLogger & { lines: string[] };
}

/** Lets the promise chain after close() run (a few microtask turns; timers are fake). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

describe('closeOnSignal', () => {
  let exit: jest.SpyInstance;
  beforeEach(() => {
    jest.useFakeTimers();
    exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  });
  afterEach(() => {
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
    exit.mockRestore();
    jest.useRealTimers();
  });

  it('closes on SIGTERM and exits 0 once closed', async () => {
    // Prepare
    const logger = recordingLogger();
    const close = jest.fn(() => Promise.resolve());
    closeOnSignal({ close }, { logger, deadlineMs: 5000 });

    // Act
    process.emit('SIGTERM', 'SIGTERM');
    await settle();

    // Assess
    expect(close).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(0);
    expect(logger.lines).toEqual(['info stopping']);
  });

  it.each<[string, () => Promise<void>]>([
    ['rejects', () => Promise.reject(new Error('boom'))],
    ['throws', () => {
      throw new Error('boom');
    }],
  ])('exits 1 and logs the failure when close() %s', async (_how, close) => {
    const logger = recordingLogger();
    closeOnSignal({ close }, { logger, deadlineMs: 5000 });

    process.emit('SIGINT', 'SIGINT');
    await settle();

    expect(exit).toHaveBeenCalledWith(1);
    expect(logger.lines).toEqual(['info stopping', 'error stop failed']);
  });

  it('exits 1 when closing outlasts the deadline', () => {
    const logger = recordingLogger();
    closeOnSignal({ close: () => new Promise<void>(() => undefined) }, { logger, deadlineMs: 5000 });

    process.emit('SIGTERM', 'SIGTERM');
    jest.advanceTimersByTime(4999);
    expect(exit).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);

    expect(exit).toHaveBeenCalledWith(1);
    expect(logger.lines).toEqual(['info stopping', 'error stop deadline passed; exiting']);
  });
});
