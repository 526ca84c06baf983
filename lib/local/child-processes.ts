import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
let hooked = false;

/**
 * Kills `child` with SIGKILL if this process exits first, even on an uncaught error, so nothing a test
 * or `npm start` spawned (ZooKeeper JVMs, the SQS server) outlives it.
 */
export function killOnExit(child: ChildProcess): void {
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
}
