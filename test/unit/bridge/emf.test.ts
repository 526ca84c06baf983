import { bridgeEmfRecord, startEmfReporter, type EmfSource } from '../../../lib/bridge/emf';

type Status = ReturnType<EmfSource['status']>;

function status(overrides: Partial<Status> = {}, fallback: boolean[] = [false]): Status {
  return {
    replicaId: 'r1',
    role: 'standby',
    ready: true,
    authorities: fallback.map((f, i) => ({ authority: `a${i}`, activeServer: f ? 'secondary:1' : 'primary:1', fallbackActive: f, servers: [], resources: 0 })),
    ...overrides,
  };
}

describe('bridge EMF lines', () => {
  it('declares FallbackActive, Ready and Leader under the service dimension', () => {
    const record = bridgeEmfRecord(status({ role: 'leader' }, [false, true]), { namespace: 'failout', service: 'xds-bridge', timestamp: 1000 });

    expect(record).toMatchObject({
      _aws: { Timestamp: 1000, CloudWatchMetrics: [{ Namespace: 'failout', Dimensions: [['service']], Metrics: [{ Name: 'FallbackActive' }, { Name: 'Ready' }, { Name: 'Leader' }] }] },
      service: 'xds-bridge',
      replicaId: 'r1',
      FallbackActive: 1,
      Ready: 1,
      Leader: 1,
    });
  });

  it.each<[string, Status, { FallbackActive: number; Ready: number; Leader: number }]>([
    ['a ready standby on its primaries', status(), { FallbackActive: 0, Ready: 1, Leader: 0 }],
    ['a starting replica', status({ role: 'starting', ready: false }), { FallbackActive: 0, Ready: 0, Leader: 0 }],
    ['a replica with no authorities yet', status({}, []), { FallbackActive: 0, Ready: 1, Leader: 0 }],
    ['a leader on a fallback server', status({ role: 'leader' }, [true]), { FallbackActive: 1, Ready: 1, Leader: 1 }],
  ])('reports %s', (_name, input, values) => {
    expect(bridgeEmfRecord(input, { namespace: 'n', service: 's', timestamp: 0 })).toMatchObject(values);
  });

  it('writes one JSON line at start and one per interval until stopped', () => {
    jest.useFakeTimers();
    try {
      const lines: string[] = [];
      const reporter = startEmfReporter({ status: () => status() }, { namespace: 'failout', intervalMs: 1000, write: (l) => lines.push(l), clock: () => 42 });
      jest.advanceTimersByTime(2500);
      reporter.close();
      jest.advanceTimersByTime(5000);

      expect(lines).toHaveLength(3);
      expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
      expect(JSON.parse(lines[0]!)).toMatchObject({ _aws: { Timestamp: 42 }, service: 'xds-bridge' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('skips a line when the status cannot be read, and keeps reporting', () => {
    jest.useFakeTimers();
    try {
      const lines: string[] = [];
      let calls = 0;
      const source = {
        status: () => {
          calls += 1;
          if (calls === 1) throw new Error('not yet');
          return status();
        },
      };
      const reporter = startEmfReporter(source, { namespace: 'failout', intervalMs: 1000, write: (l) => lines.push(l) });
      jest.advanceTimersByTime(1000);
      reporter.close();

      expect(lines).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });
});
