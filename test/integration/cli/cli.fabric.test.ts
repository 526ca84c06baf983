/**
 * `failout fabric list|show` in-process (run(argv, io)) against the shared ZooKeeper: two services in
 * three fabrics by the naming rule, one cluster no rule places, one cluster an explicit map places,
 * one map that does not decode (a hostile service name), one cluster failed out and one scheduled.
 */
import { encodeFabricMap } from '../../../lib/fabrics';
import type { ZkSession } from '../../../lib/zk';
import { runCli, type CliResult } from '../../helpers/cli';
import { clusterDoc, put, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';
import { startMetricsServer } from '../../helpers/metrics-server';

const HOUR = 3600_000;

let root: string;
let session: ZkSession;
let env: Record<string, string>;

function cli(...argv: string[]): Promise<CliResult> {
  return runCli(env, ...argv);
}

/** The C0 (but newline), DEL and C1 characters in `text`: what must never reach a terminal raw. */
function controls(text: string): string[] {
  return [...text].filter((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f')));
}

/** A cluster node whose failout moves all its traffic from `offlineAt` for two hours. */
function failedOutCluster(name: string, peers: readonly string[], offlineAt: number): string {
  return JSON.stringify({
    clusterName: name,
    failoutProperties: {
      failoutRedirectConfigs: peers.map((peer) => ({ peer, weight: 1 })),
      failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt, onlineAt: offlineAt + 2 * HOUR, requestedBy: 'oncall@example.com' }],
    },
  });
}

beforeEach(async () => {
  root = uniqueBase('fabric');
  const d2 = `${root}/d2`;
  session = await openSession();
  const now = Date.now();
  // Prepare: greetings and hello in lor1, lva1 and ltx1 (hosts: greetings-lor1 2, greetings-lva1 3, the rest 1).
  for (const service of ['greetings', 'hello']) {
    await putService(session, d2, serviceDoc(service, `${service}-lor1`));
    for (const fabric of ['lor1', 'lva1', 'ltx1']) {
      const cluster = `${service}-${fabric}`;
      await putCluster(session, d2, clusterDoc(cluster));
      const hosts = cluster === 'greetings-lor1' ? 2 : cluster === 'greetings-lva1' ? 3 : 1;
      for (let i = 1; i <= hosts; i++) await putUri(session, d2, cluster, `h${i}`, `http://${cluster}-${i}:8080`);
    }
  }
  await put(session, `${d2}/clusters/greetings-lor1`, failedOutCluster('greetings-lor1', ['greetings-lva1', 'greetings-ltx1'], now - 60_000));
  await put(session, `${d2}/clusters/hello-ltx1`, failedOutCluster('hello-ltx1', ['hello-lor1'], now + HOUR));
  // One cluster no service name prefixes, and one the lor1 map places.
  for (const cluster of ['odd-cluster', 'legacy-greeter-a']) {
    await putCluster(session, d2, clusterDoc(cluster));
    await putUri(session, d2, cluster, 'h1', `http://${cluster}-1:8080`);
  }
  // A D2 symlink (docs/observer.md "Symlinks"): it holds a path, it is no cluster of its own, so in no fabric and not unassigned.
  for (const dir of ['clusters', 'uris']) await put(session, `${d2}/${dir}/$greetingsMaster`, `${d2}/${dir}/greetings-lva1`);
  await put(session, `${root}/fabrics/lor1`, encodeFabricMap({ fabric: 'lor1', clusters: [{ cluster: 'legacy-greeter-a', service: 'greetings', tier: 'frontend' }] }).toString('utf8'));
  // A map that does not decode: it would move hello-ltx1, but its service name carries an escape sequence.
  await put(session, `${root}/fabrics/ltx1`, JSON.stringify({ version: 1, fabric: 'ltx1', clusters: [{ cluster: 'hello-ltx1', service: 'hello\u001b[31m' }] }));
  env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: d2, FAILOUT_FABRICS_PATH: `${root}/fabrics` };
});

afterEach(async () => {
  await session.removeRecursive(root).catch(() => undefined);
  await closeSessions();
});

describe('failout fabric list', () => {
  it('shows one row per fabric, then the unassigned clusters and the broken maps', async () => {
    // Act
    const out = await cli('fabric', 'list');

    // Assess
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toBe(
      [
        'FABRIC  CLUSTERS  SERVICES  HOSTS  FAILED OUT',
        'lor1    3         2         4      1',
        'ltx1    2         2         2      0',
        'lva1    2         2         4      0',
        '',
        'unassigned (no service name prefixes them as <service>-<fabric>, no fabric map names them):',
        '  odd-cluster  1 hosts  serving',
        '',
        'broken fabric maps (left out: the rule applies to their clusters):',
        '  ltx1: fabric map ltx1 has bad names: clusters[0].service "hello\\u001b[31m" has characters other than ASCII letters, digits and punctuation (SQS MessageGroupId) or has a slash',
        '',
      ].join('\n'),
    );
    expect(controls(out.stdout)).toEqual([]);
  });

  it('gives the same with --output json', async () => {
    // Act
    const out = await cli('fabric', 'list', '--output', 'json');

    // Assess
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      fabrics: [
        { name: 'lor1', clusters: ['greetings-lor1', 'hello-lor1', 'legacy-greeter-a'], services: ['greetings', 'hello'], hosts: 4, failedOut: 1 },
        { name: 'ltx1', clusters: ['greetings-ltx1', 'hello-ltx1'], services: ['greetings', 'hello'], hosts: 2, failedOut: 0 },
        { name: 'lva1', clusters: ['greetings-lva1', 'hello-lva1'], services: ['greetings', 'hello'], hosts: 4, failedOut: 0 },
      ],
      unassigned: [{ cluster: 'odd-cluster', hosts: 1, state: 'serving' }],
      brokenMaps: [{ fabric: 'ltx1', problem: expect.stringContaining('clusters[0].service') }],
      conflicts: [],
      missing: [],
    });
    expect(Date.parse(String(json.at))).not.toBeNaN();
  });
});

describe('failout fabric list with traffic (the issue: "traffic where known")', () => {
  it("adds each fabric's requests/s, the sum of its clusters' measured rates, with --metrics, and says why when they cannot be read", async () => {
    // Prepare: 120 req/s to greetings-lva1 and 40 to hello-lva1 (lva1: 160), none to lor1
    const metrics = await startMetricsServer('svc_requests_total', { 'greetings-lor1': 0, 'greetings-lva1': 120, 'hello-lva1': 40 });
    try {
      // Act
      const shown = await cli('fabric', 'list', '--metrics', `greetings=${metrics.url}`, '--traffic-metric', 'svc_requests_total');
      const json = await cli('fabric', 'list', '--metrics', `greetings=${metrics.url}`, '--traffic-metric', 'svc_requests_total', '--json');
      const unread = await cli('fabric', 'list', '--metrics', `greetings=${metrics.url}`);

      // Assess
      expect(shown).toMatchObject({ code: 0, stderr: '' });
      expect(shown.stdout.split('\n')[0]).toBe('FABRIC  CLUSTERS  SERVICES  HOSTS  REQ/S  FAILED OUT');
      const rateOf = (fabric: string): number => Number(new RegExp(`^${fabric} +\\d+ +\\d+ +\\d+ +(\\d+\\.\\d) +\\d+$`, 'm').exec(shown.stdout)?.[1]);
      expect(rateOf('lva1')).toBeGreaterThan(110);
      expect(rateOf('lva1')).toBeLessThan(230);
      expect(rateOf('lor1')).toBe(0);
      const parsed = JSON.parse(json.stdout) as { fabrics: { name: string; requestsPerSecond: number }[]; traffic: { byCluster: Record<string, number> } };
      expect(parsed.fabrics.find((f) => f.name === 'lva1')?.requestsPerSecond).toBeGreaterThan(110);
      expect(parsed.traffic.byCluster['hello-lva1']).toBeGreaterThan(20);
      // No traffic metric: no rates, no column, and stderr says why.
      expect(unread).toMatchObject({ code: 0, stderr: expect.stringContaining('--traffic-metric') });
      expect(unread.stdout).not.toMatch(/REQ\/S/);
    } finally {
      await metrics.close();
    }
  });
});

describe('failout fabric show', () => {
  it('lists each cluster: service, tier, hosts, state (a failed-out one as FAILED OUT), source and candidate targets', async () => {
    // Act
    const out = await cli('fabric', 'show', 'lor1');

    // Assess
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toBe(
      [
        'fabric lor1: 3 clusters, 2 services (greetings, hello), 4 hosts, 1 failed out',
        'CLUSTER           SERVICE    TIER      HOSTS  STATE       SOURCE  TARGETS',
        'greetings-lor1    greetings  -         2      FAILED OUT  rule    greetings-ltx1 (ltx1), greetings-lva1 (lva1)',
        'hello-lor1        hello      -         1      serving     rule    hello-ltx1 (ltx1), hello-lva1 (lva1)',
        'legacy-greeter-a  greetings  frontend  1      serving     map     greetings-ltx1 (ltx1), greetings-lva1 (lva1)',
        '',
      ].join('\n'),
    );
  });

  it('shows a scheduled failout as scheduled, and the rule where a broken map would have applied', async () => {
    // Act
    const out = await cli('fabric', 'show', 'ltx1', '--json');

    // Assess
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      fabric: {
        name: 'ltx1',
        hosts: 2,
        failedOut: 0,
        clusters: [
          { cluster: 'greetings-ltx1', service: 'greetings', source: 'rule', hosts: 1, state: 'serving', targets: [{ cluster: 'greetings-lor1', fabric: 'lor1' }, { cluster: 'legacy-greeter-a', fabric: 'lor1' }, { cluster: 'greetings-lva1', fabric: 'lva1' }] },
          { cluster: 'hello-ltx1', service: 'hello', source: 'rule', hosts: 1, state: 'scheduled', targets: [{ cluster: 'hello-lor1', fabric: 'lor1' }, { cluster: 'hello-lva1', fabric: 'lva1' }] },
        ],
      },
    });
  });

  it('says when the fabric\'s own map does not decode, in text and JSON, and for a fabric only a broken map names', async () => {
    // Prepare: a map of a fabric no rule gives, which does not decode
    await put(session, `${root}/fabrics/edge`, '{"version":1,"fabric":"edge","clusters":[{"cluster":"odd-cluster"}]}');

    // Act
    const text = await cli('fabric', 'show', 'ltx1');
    const json = await cli('fabric', 'show', 'ltx1', '--json');
    const edge = await cli('fabric', 'show', 'edge');

    // Assess
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}the map of fabric ltx1 does not decode \(left out: the rule applies to its clusters\): .*clusters\[0\]\.service/m);
    expect(controls(text.stdout)).toEqual([]);
    expect(JSON.parse(json.stdout)).toMatchObject({ fabric: { name: 'ltx1' }, brokenMap: { fabric: 'ltx1', problem: expect.stringContaining('clusters[0].service') } });
    expect(edge.code).toBe(1);
    expect(edge.stderr).toMatch(/^failout: no fabric named "edge": its map does not decode \(.+\), and no cluster is named <service>-edge/);
  });

  it('gives the failed-out cluster as failed-out in JSON', async () => {
    // Act
    const out = await cli('fabric', 'show', 'lor1', '--output', 'json');

    // Assess
    const json = JSON.parse(out.stdout) as { fabric: { clusters: { cluster: string; state: string }[] } };
    expect(json.fabric.clusters.map((c) => [c.cluster, c.state])).toEqual([
      ['greetings-lor1', 'failed-out'],
      ['hello-lor1', 'serving'],
      ['legacy-greeter-a', 'serving'],
    ]);
  });

  it('adds each cluster\'s requests/s from the services\' counters with --metrics, and says why when they cannot be read', async () => {
    const metrics = await startMetricsServer('svc_requests_total', { 'greetings-lor1': 0, 'greetings-lva1': 120, 'hello-lva1': 40 });
    try {
      const shown = await cli('fabric', 'show', 'lva1', '--metrics', `greetings=${metrics.url}`, '--traffic-metric', 'svc_requests_total');
      const json = await cli('fabric', 'show', 'lva1', '--metrics', `greetings=${metrics.url}`, '--traffic-metric', 'svc_requests_total', '--json');
      const unread = await cli('fabric', 'show', 'lva1', '--metrics', `greetings=${metrics.url}`);

      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/REQ\/S/);
      const row = shown.stdout.split('\n').find((l) => l.startsWith('greetings-lva1'))!;
      const rate = Number(/\s(\d+\.\d)\s/.exec(row)?.[1]);
      expect(rate).toBeGreaterThan(80);
      expect(rate).toBeLessThan(160);
      const parsed = JSON.parse(json.stdout) as { traffic: { byCluster: Record<string, number> } };
      expect(parsed.traffic.byCluster['hello-lva1']).toBeGreaterThan(20);
      // No traffic metric: the rates cannot be measured, the table has no column, stderr says why.
      expect(unread).toMatchObject({ code: 0, stderr: expect.stringContaining('--traffic-metric') });
      expect(unread.stdout).not.toMatch(/REQ\/S/);
    } finally {
      await metrics.close();
    }
  });

  it('exits 1 for an unknown fabric and names the known ones', async () => {
    // Act
    const text = await cli('fabric', 'show', 'lor9');
    const json = await cli('fabric', 'show', 'lor9', '--json');

    // Assess
    for (const out of [text, json]) {
      expect(out).toMatchObject({ code: 1, stdout: '' });
      expect(out.stderr).toBe('failout: no fabric named "lor9": the fabrics are lor1, ltx1, lva1 (failout fabric list shows them)\n');
    }
  });

  it('says when there are no fabrics at all', async () => {
    // Prepare
    env = { ...env, D2_BASE_PATH: `${root}/empty`, FAILOUT_FABRICS_PATH: `${root}/no-fabrics` };

    // Act
    const list = await cli('fabric', 'list');
    const show = await cli('fabric', 'show', 'lor1');

    // Assess
    expect(list).toMatchObject({ code: 0, stdout: expect.stringMatching(/^no fabrics: /) });
    expect(show).toMatchObject({ code: 1, stderr: expect.stringContaining('no fabric named "lor1": there are none yet') });
  });
});
