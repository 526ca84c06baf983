// bench/xds-throughput: N clusters (CDS) + N endpoint sets (EDS) from our management server to one
// xDS client — ours (lib/xds) and @grpc/grpc-js-xds 1.14.1's — each in its own fresh process, one
// process per measurement. Measures the time from the first watch until every resource has arrived,
// the does-not-exist callbacks fired on the way, and the process's peak RSS.
// grpc-js-xds at 10,000 takes about a minute (its subscriptions grow as N²), so it runs only with
// --peer-10k. `npm run bench -- xds-throughput [--repeats 3] [--small 1000] [--large 10000] [--peer-10k]`.
import { join } from 'node:path';
import { XdsManagementServer, buildCluster, buildClusterLoadAssignment } from '../../lib/xds/server';
import { parseIntOptions } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';
import { spawnWorker } from '../lib/workers';
import { resourceName } from './drivers';
import type { ClientUnderTest, FromWorker, ToWorker, WatchResult } from './protocol';

interface Parameters {
  repeats: number;
  sizes: number[];
  timeoutMs: number;
  peer10k: boolean;
}

const PEER_10K_FLAG = '--peer-10k';
const CLIENTS: readonly ClientUnderTest[] = ['ours', 'grpc-js-xds'];

function parameters(args: string[]): Parameters {
  const v = parseIntOptions(
    args.filter((a) => a !== PEER_10K_FLAG),
    {
      repeats: { default: 3, min: 1 },
      small: { default: 1000, min: 1 },
      large: { default: 10_000, min: 1 },
      'timeout-ms': { default: 180_000, min: 1000 },
    },
  );
  return { repeats: v.repeats, sizes: [v.small, v.large], timeoutMs: v['timeout-ms'], peer10k: args.includes(PEER_10K_FLAG) };
}

interface Sample extends WatchResult {
  readonly setupMs: number;
  readonly baselineRssBytes: number;
  readonly rssAfterSetupBytes: number;
}

/** Peak RSS above the worker's RSS before the client's modules were loaded (node + tsx + worker). */
const clientRssBytes = (s: Sample): number => s.maxRssKiB * 1024 - s.baselineRssBytes;

async function measure(client: ClientUnderTest, serverUri: string, resources: number, timeoutMs: number): Promise<Sample> {
  const worker = spawnWorker<ToWorker, FromWorker>(join(__dirname, 'client-worker.ts'), 0, resources, 'compiled');
  try {
    const ready = await worker.request({ type: 'init', client, serverUri, resources }, 'ready', 60_000);
    const done = await worker.request({ type: 'go', timeoutMs }, 'done', timeoutMs + 30_000);
    const { type: _type, ...result } = done;
    return { ...result, setupMs: ready.setupMs, baselineRssBytes: ready.baselineRssBytes, rssAfterSetupBytes: ready.rssAfterSetupBytes };
  } finally {
    await worker.close();
  }
}

const mib = (bytes: number): number => round(bytes / 1024 / 1024, 1);
const median = (xs: readonly number[]): number => percentile(xs, 50);

function row(client: ClientUnderTest, resources: number, samples: readonly Sample[]): Row {
  const times = samples.map((s) => s.elapsedMs);
  return {
    client,
    N: resources,
    runs: samples.length,
    'all received ms (median)': round(median(times), 0),
    'min ms': round(Math.min(...times), 0),
    'max ms': round(Math.max(...times), 0),
    complete: samples.every((s) => s.complete) ? 'yes' : `no (${samples.filter((s) => !s.complete).length})`,
    'does-not-exist (max)': Math.max(...samples.map((s) => s.doesNotExist)),
    errors: Math.max(...samples.map((s) => s.errors)),
    'peak RSS MiB (median)': mib(median(samples.map((s) => s.maxRssKiB * 1024))),
    'baseline RSS MiB': mib(median(samples.map((s) => s.baselineRssBytes))),
    'RSS after setup MiB': mib(median(samples.map((s) => s.rssAfterSetupBytes))),
    'client peak RSS MiB': mib(median(samples.map(clientRssBytes))),
    'setup ms': round(median(samples.map((s) => s.setupMs)), 0),
  };
}

function ratioRow(resources: number, ours: readonly Sample[], theirs: readonly Sample[] | undefined): Row {
  if (!theirs?.length) return { N: resources, 'time ours/theirs': `not run (${PEER_10K_FLAG})` };
  const time = median(ours.map((s) => s.elapsedMs)) / median(theirs.map((s) => s.elapsedMs));
  const rss = median(ours.map((s) => s.maxRssKiB)) / median(theirs.map((s) => s.maxRssKiB));
  const clientRss = median(ours.map(clientRssBytes)) / median(theirs.map(clientRssBytes));
  return {
    N: resources,
    'time ours/theirs': round(time, 3),
    'time target': resources <= 1000 ? '≤ 0.5' : '',
    'peak RSS ours/theirs': round(rss, 3),
    'client peak RSS ours/theirs': round(clientRss, 3),
    'RSS target': '≤ 0.5',
  };
}

export default async function xdsThroughput(args: string[]): Promise<void> {
  const p = parameters(args);
  const samples: Record<string, Sample[]> = {};
  for (const resources of p.sizes) {
    const server = await XdsManagementServer.start({ recordResourceNames: false });
    try {
      const names = Array.from({ length: resources }, (_, i) => resourceName(i));
      server.setSnapshot('*', {
        version: '1',
        clusters: names.map((n) => buildCluster(n)),
        endpoints: names.map((n, i) => buildClusterLoadAssignment(n, [{ address: '10.0.0.1', port: 1000 + (i % 50_000) }])),
      });
      for (const client of CLIENTS) {
        const isPeerLarge = client !== 'ours' && resources > 1000;
        if (isPeerLarge && !p.peer10k) continue;
        const runs = isPeerLarge ? 1 : p.repeats;
        const key = `${client}@${resources}`;
        samples[key] = [];
        for (let r = 0; r < runs; r++) {
          const s = await measure(client, server.uri, resources, p.timeoutMs);
          samples[key].push(s);
          process.stdout.write(`${key} run ${r + 1}/${runs}: ${round(s.elapsedMs, 0)} ms, complete ${String(s.complete)}, does-not-exist ${s.doesNotExist}, peak RSS ${mib(s.maxRssKiB * 1024)} MiB\n`);
        }
      }
    } finally {
      await server.close();
    }
  }
  const rows = Object.entries(samples).map(([key, s]) => {
    const [client, n] = key.split('@') as [ClientUnderTest, string];
    return row(client, Number(n), s);
  });
  const ratios = p.sizes.map((n) => ratioRow(n, samples[`ours@${n}`] ?? [], samples[`grpc-js-xds@${n}`]));
  printTable('xds-throughput: N CDS + N EDS from our management server, one fresh process per run', rows);
  printTable('ours vs @grpc/grpc-js-xds 1.14.1 (medians)', ratios);
  writeResults('xds-throughput', {
    parameters: { ...p },
    rows,
    ratios,
    samples: Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, s.map((x) => ({ ...x, elapsedMs: round(x.elapsedMs, 1), setupMs: round(x.setupMs, 1) }))])),
  });
}
