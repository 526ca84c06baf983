// Child process of bench/xds-throughput: builds ONE xDS client (ours or @grpc/grpc-js-xds's) against
// the parent's management server, watches N clusters and N endpoint sets, and reports when all have
// arrived, how many does-not-exist fired, and the process's peak RSS. One process per measurement:
// grpc-js-xds's client has no close(), and peak RSS is only meaningful for a fresh process.
import { clock, failWorker, guardWorker } from '../lib/workers';
import { grpcJsXdsDriver, oursDriver, type ClientDriver } from './drivers';
import type { FromWorker, ToWorker } from './protocol';

let driver: ClientDriver | undefined;
let resources = 0;

function send(message: FromWorker): void {
  if (!process.send) throw new Error('client-worker must be started with an IPC channel (fork)');
  process.send(message);
}

async function shutdown(code: number): Promise<never> {
  // Nothing to close gracefully: grpc-js-xds has no close(), and the parent is done with us.
  process.exit(code);
}

function fail(err: unknown): void {
  failWorker(err, send, shutdown);
}

function init(message: Extract<ToWorker, { type: 'init' }>): void {
  const baselineRssBytes = process.memoryUsage().rss;
  const started = clock();
  resources = message.resources;
  driver = message.client === 'ours' ? oursDriver(message.serverUri) : grpcJsXdsDriver(message.serverUri);
  send({ type: 'ready', setupMs: clock() - started, baselineRssBytes, rssAfterSetupBytes: process.memoryUsage().rss });
}

function go(timeoutMs: number): void {
  if (!driver) throw new Error('go before init');
  const clusters = new Uint8Array(resources);
  const endpoints = new Uint8Array(resources);
  let clustersReceived = 0;
  let endpointsReceived = 0;
  let doesNotExist = 0;
  let errors = 0;
  let finished = false;
  const started = clock();
  let lastArrival = started;
  const finish = (complete: boolean): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    const usage = process.resourceUsage();
    send({
      type: 'done',
      complete,
      clustersReceived,
      endpointsReceived,
      elapsedMs: (complete ? lastArrival : clock()) - started,
      doesNotExist,
      errors,
      maxRssKiB: usage.maxRSS,
      heapUsedBytes: process.memoryUsage().heapUsed,
    });
  };
  const arrived = (seen: Uint8Array, i: number): boolean => {
    if (seen[i]) return false;
    seen[i] = 1;
    lastArrival = clock();
    return true;
  };
  const check = (): void => {
    if (clustersReceived === resources && endpointsReceived === resources) finish(true);
  };
  const timer = setTimeout(() => finish(false), timeoutMs);
  driver.watchAll(resources, {
    cluster: (i) => {
      if (arrived(clusters, i)) clustersReceived++;
      check();
    },
    endpoints: (i) => {
      if (arrived(endpoints, i)) endpointsReceived++;
      check();
    },
    doesNotExist: () => doesNotExist++,
    error: () => errors++,
  });
}

process.on('message', (raw: unknown) => {
  const message = raw as ToWorker;
  try {
    switch (message.type) {
      case 'init':
        init(message);
        break;
      case 'go':
        go(message.timeoutMs);
        break;
      case 'ping':
        send({ type: 'pong', id: message.id, at: clock() });
        break;
      case 'shutdown':
        void shutdown(0);
        break;
    }
  } catch (err) {
    fail(err);
  }
});

guardWorker(fail, shutdown);
