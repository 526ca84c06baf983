/**
 * Watcher delivery queue: asynchronous, serial per watcher, held until done().
 */
import { createWatcherEntry } from '../../../lib/xds/resource-state';
import { recordingWatcher, settle } from '../../helpers/xds-fakes';
import type { XdsWatcher } from '../../../lib/xds/watcher';

describe('watcher delivery queue', () => {
  it('never calls back inside enqueue', async () => {
    const w = recordingWatcher();
    const entry = createWatcherEntry(w);
    entry.enqueue((watcher, done) => watcher.onUpdate(1, done));
    expect(w.events).toEqual([]);
    await settle(5);
    expect(w.events).toEqual([{ type: 'update', value: 1 }]);
  });

  it('holds the next callback until done() of the previous one', async () => {
    const log: string[] = [];
    let release: () => void = () => undefined;
    const watcher: XdsWatcher = {
      onUpdate: (value, done) => {
        log.push(`update ${String(value)}`);
        if (value === 1) release = done;
        else done();
      },
      onResourceDoesNotExist: (done) => {
        log.push('dne');
        done();
      },
      onError: (_e, _i, done) => done(),
    };
    const entry = createWatcherEntry(watcher);
    entry.enqueue((w, done) => w.onUpdate(1, done));
    entry.enqueue((w, done) => w.onUpdate(2, done));
    entry.enqueue((w, done) => w.onResourceDoesNotExist(done));
    await settle(10);
    expect(log).toEqual(['update 1']);
    release();
    release();
    await settle(10);
    expect(log).toEqual(['update 1', 'update 2', 'dne']);
  });

  it('drops queued callbacks on cancel', async () => {
    const w = recordingWatcher();
    const entry = createWatcherEntry(w);
    entry.enqueue((watcher, done) => watcher.onUpdate(1, done));
    entry.cancel();
    entry.enqueue((watcher, done) => watcher.onUpdate(2, done));
    await settle(5);
    expect(w.events).toEqual([]);
  });

  it('keeps delivering after a watcher throws', async () => {
    const seen: number[] = [];
    const watcher: XdsWatcher = {
      onUpdate: (value) => {
        seen.push(value as number);
        throw new Error('boom');
      },
      onResourceDoesNotExist: (done) => done(),
      onError: (_e, _i, done) => done(),
    };
    const entry = createWatcherEntry(watcher);
    entry.enqueue((w, done) => w.onUpdate(1, done));
    entry.enqueue((w, done) => w.onUpdate(2, done));
    await settle(10);
    expect(seen).toEqual([1, 2]);
  });
});
