import { Registry } from 'prom-client';
import type { WarmUpOptions, WarmUpResult } from '../../../lib/d2';
import { D2ConnectionWarmUpHandler, type D2ConnectionWarmUpHandlerOptions } from '../../../lib/failout/d2-connection-warm-up-handler';
import { ManualScheduler, deferred, flush, type Deferred } from './fakes';

// D2ConnectionWarmUpHandler over a fake D2Client: concurrency bound, jitter, cancellation, shutdown,
// counters.

/** A D2Client.warmUp that records calls and settles when the test says so. */
class FakeClient {
  readonly calls: { cluster: string; options: WarmUpOptions | undefined; result: Deferred<WarmUpResult> }[] = [];

  warmUp(cluster: string, options?: WarmUpOptions): Promise<WarmUpResult> {
    const result = deferred<WarmUpResult>();
    this.calls.push({ cluster, options, result });
    return result.promise;
  }

  started(): string[] {
    return this.calls.map((c) => c.cluster);
  }

  finish(cluster: string, succeeded = 2, failed = 0): void {
    this.calls.find((c) => c.cluster === cluster)?.result.resolve({ cluster, hosts: succeeded + failed, succeeded, failed, durationMs: 1 });
  }
}

function fixture(overrides: Partial<D2ConnectionWarmUpHandlerOptions> = {}) {
  const client = new FakeClient();
  const scheduler = new ManualScheduler();
  const registry = new Registry();
  const handler = new D2ConnectionWarmUpHandler({ client, scheduler, registry, maxJitterMs: 0, ...overrides });
  const counter = async (name: string, peer: string): Promise<number> => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === `failout_${name}`);
    return (metric?.values as { value: number; labels: Record<string, string> }[] | undefined)?.find((v) => v.labels.peer === peer)?.value ?? 0;
  };
  return { client, scheduler, registry, handler, counter };
}

describe('D2ConnectionWarmUpHandler', () => {
  it('warms at most maxConcurrentPeers peers at once and starts the next when one finishes', async () => {
    // Prepare
    const { client, handler } = fixture({ maxConcurrentPeers: 2 });

    // Act
    const done = ['a', 'b', 'c', 'd'].map((peer) => handler.warmUpConnections(peer, undefined));
    await flush();
    const first = { started: client.started(), active: handler.activeWarmUps() };
    client.finish('a');
    await flush();
    const second = { started: client.started(), active: handler.activeWarmUps() };
    for (const peer of ['b', 'c', 'd']) {
      client.finish(peer);
      await flush();
    }
    await Promise.all(done);

    // Assess
    expect(first).toEqual({ started: ['a', 'b'], active: 2 });
    expect(second).toEqual({ started: ['a', 'b', 'c'], active: 2 });
    expect(handler.activeWarmUps()).toBe(0);
  });

  it.each([0.001, 0.5, 0.999])('waits a jitter of random × maxJitterMs (random %p) before starting', async (random) => {
    // Prepare
    const { client, scheduler, handler } = fixture({ maxJitterMs: 1000, random: () => random });

    // Act
    const done = handler.warmUpConnections('a', undefined);
    await flush();
    const beforeTimer = client.started();
    scheduler.runAll();
    await flush();
    client.finish('a');
    await done;

    // Assess
    expect(scheduler.scheduled).toHaveLength(1);
    expect(scheduler.scheduled[0]).toBeGreaterThanOrEqual(0);
    expect(scheduler.scheduled[0]).toBeLessThan(1000);
    expect(scheduler.scheduled[0]).toBe(Math.floor(random * 1000));
    expect(beforeTimer).toEqual([]);
    expect(client.started()).toEqual(['a']);
  });

  it('never starts a warm-up cancelled during its jitter or while queued', async () => {
    // Prepare
    const { client, scheduler, handler, counter } = fixture({ maxConcurrentPeers: 1, maxJitterMs: 100, random: () => 0.5 });
    const jittering = handler.warmUpConnections('a', undefined);
    await flush();
    scheduler.runAll();
    await flush();
    const queued = handler.warmUpConnections('b', undefined);
    const alsoJittering = handler.warmUpConnections('c', undefined);
    await flush();
    scheduler.runAll();
    await flush();

    // Act
    handler.cancelPendingRequests('b');
    handler.cancelPendingRequests('c');
    await Promise.all([queued, alsoJittering]);
    client.finish('a');
    await jittering;

    // Assess
    expect(client.started()).toEqual(['a']);
    expect(await counter('warmups_cancelled_total', 'b')).toBe(1);
    expect(await counter('warmups_succeeded_total', 'a')).toBe(1);
  });

  it('returns at once from a running warm-up that is cancelled, ignores its result and keeps its slot until it settles', async () => {
    // Prepare
    const { client, handler, counter } = fixture({ maxConcurrentPeers: 1 });
    const running = handler.warmUpConnections('a', undefined);
    await flush();

    // Act
    handler.cancelPendingRequests('a');
    await running;
    const next = handler.warmUpConnections('b', undefined);
    await flush();
    const whileRunning = client.started();
    client.finish('a', 5);
    await flush();
    client.finish('b');
    await next;

    // Assess
    expect(whileRunning).toEqual(['a']);
    expect(client.started()).toEqual(['a', 'b']);
    expect(await counter('warmups_cancelled_total', 'a')).toBe(1);
    expect(await counter('warmup_connections_opened_total', 'a')).toBe(0);
  });

  it('cancels everything on shutdown and ignores later warm-ups', async () => {
    // Prepare
    const { client, scheduler, handler, counter } = fixture({ maxJitterMs: 100, random: () => 0.5 });
    const pending = handler.warmUpConnections('a', undefined);

    // Act
    handler.close();
    await pending;
    await handler.warmUpConnections('b', undefined);
    handler.close();

    // Assess
    expect(scheduler.pending()).toEqual([]);
    expect(client.started()).toEqual([]);
    expect(await counter('warmups_cancelled_total', 'a')).toBe(1);
    expect(await counter('warmups_started_total', 'b')).toBe(0);
  });

  it('counts started, succeeded, failed and opened connections, and never rejects', async () => {
    // Prepare
    const { client, handler, counter } = fixture({ path: '/health', timeoutMs: 750, connectionsPerHost: 2, hostConcurrency: 4 });

    // Act
    const ok = handler.warmUpConnections('a', undefined);
    const partial = handler.warmUpConnections('b', undefined);
    await flush();
    client.finish('a', 3, 0);
    client.finish('b', 1, 1);
    await Promise.all([ok, partial]);
    const throwing = handler.warmUpConnections('c', undefined);
    await flush();
    client.calls[2]?.result.reject(new Error('boom'));
    await throwing;

    // Assess
    expect(client.calls[0]?.options).toEqual({ path: '/health', timeoutMs: 750, concurrency: 4, connectionsPerHost: 2 });
    expect(await counter('warmups_started_total', 'a')).toBe(1);
    expect(await counter('warmups_succeeded_total', 'a')).toBe(1);
    expect(await counter('warmup_connections_opened_total', 'a')).toBe(3);
    expect(await counter('warmups_failed_total', 'b')).toBe(1);
    expect(await counter('warmup_connections_opened_total', 'b')).toBe(1);
    expect(await counter('warmups_failed_total', 'c')).toBe(1);
  });

  it('shares counters between handlers on one registry', () => {
    // Prepare
    const registry = new Registry();
    const client = new FakeClient();

    // Act
    const make = (): D2ConnectionWarmUpHandler => new D2ConnectionWarmUpHandler({ client, registry });

    // Assess
    expect(() => [make(), make()]).not.toThrow();
    expect(registry.getMetricsAsArray().filter((m) => m.name.startsWith('failout_warm'))).toHaveLength(5);
  });
});
