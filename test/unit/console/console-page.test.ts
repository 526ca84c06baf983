import pino from 'pino';
import type { FailoutProperties } from '../../../lib/d2';
import { renderClusters, renderHistoryRows, renderPlanes, renderStatus } from '../../../lib/console/page';
import type { ConsoleSnapshot } from '../../../lib/console/snapshot';
import { windowSafety } from '../../../lib/console/snapshot';
import type { BridgeSource } from '../../../lib/console/sources';
import { EMPTY_FABRIC_TABLE } from '../../../lib/console/fabric-view';
import { describeFailout } from '../../../lib/operator/cluster-status';
import { consoleServerOptions } from '../../../lib/console';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;

function snapshot(overrides: Partial<ConsoleSnapshot> = {}): ConsoleSnapshot {
  return {
    now: NOW,
    zk: { connect: '127.0.0.1:2181', state: 'connected', error: undefined, since: NOW },
    queue: { url: 'http://q', probe: { ok: true, visible: 0, inFlight: 0 }, at: NOW },
    groups: [],
    records: [],
    bridges: [],
    traffic: [],
    fabrics: EMPTY_FABRIC_TABLE,
    alarms: { kind: 'off' },
    ...overrides,
  };
}

function withCluster(props: FailoutProperties): ConsoleSnapshot {
  const status = describeFailout('greetings-lor1', props, NOW);
  return snapshot({ groups: [{ service: 'greetings', homeCluster: 'greetings-lor1', clusters: [{ name: 'greetings-lor1', hosts: 3, status, safety: windowSafety(props), problem: undefined }] }] });
}

function bridge(replicaId: string, role: string, fallbackActive: boolean): BridgeSource {
  return {
    url: `http://127.0.0.1:1/${replicaId}`,
    status: {
      replicaId,
      role,
      authorities: [{ authority: '', activeServer: fallbackActive ? 'fallback:18000' : 'primary:18000', fallbackActive, servers: [{ serverUri: 'primary:18000', state: fallbackActive ? 'transientFailure' : 'ready', lastError: fallbackActive ? 'connection refused' : null }, { serverUri: 'fallback:18000', state: fallbackActive ? 'ready' : 'unused', lastError: null }] }],
    },
    resources: [{ type: 'Cluster', name: 'greetings', version: '7', status: 'ACKED' }],
    error: undefined,
    readAt: NOW,
  };
}

describe('the page', () => {
  it('shows a ramp step, its next step, the stop alarms and the drill of a cluster', () => {
    // Prepare: 10 % now, 50 % in 5 minutes, 100 % in 15
    const window = (from: number, to: number, at: number) => ({ bucketOfflineRange: { from, to }, offlineAt: at, onlineAt: NOW + 60 * MIN, requestedBy: 'drills', reason: 'weekly', stopAlarms: ['greetings-5xx'], drill: 'weekly-lor1' });
    const props: FailoutProperties = { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [window(0, 9, NOW - MIN), window(10, 49, NOW + 5 * MIN), window(50, 99, NOW + 15 * MIN)] };

    // Act
    const text = renderClusters(withCluster(props)).text;

    // Assess
    // As one bar with the steps as typed (issue 24, item 6: ramp-view.ts)
    expect(text).toContain('<span class="ramp-share">10% moved</span>, step 1 of 3');
    expect(text).toMatch(/<li data-state="done">10%<\/li><li data-state="next">50%<\/li><li data-state="later">100%<\/li>/);
    expect(text).toContain('next 50% in <time');
    expect(text).toContain('data-share="10"');
    expect(text).toContain('stops when an alarm fires: <span class="alarms">greetings-5xx</span>');
    expect(text).toContain('drill weekly-lor1');
  });

  it('marks a bridge on its fallback control plane, and says when no replica leads', () => {
    // Act
    const fallback = renderPlanes(snapshot({ bridges: [bridge('bridge-a', 'leader', true), bridge('bridge-b', 'standby', false)] })).text;
    const leaderless = renderPlanes(snapshot({ bridges: [bridge('bridge-b', 'standby', false)] })).text;

    // Assess
    expect(fallback).toContain('One leader among 2 replicas');
    expect(fallback).toContain('active control plane <strong>fallback:18000</strong>');
    expect(fallback).toContain('FALLBACK in use');
    expect(fallback).toContain('primary primary:18000: transientFailure — connection refused');
    expect(fallback).toContain('<td>Cluster</td><td>greetings</td><td>7</td><td>ACKED</td>');
    expect(leaderless).toContain('No bridge replica leads');
  });

  it('says what to do when ZooKeeper or the queue is out of reach, and escapes their errors', () => {
    // Act
    const text = renderStatus(
      snapshot({ zk: { connect: 'zk:2181', state: 'suspended', error: '<b>x</b>', since: NOW }, queue: { url: 'http://q', probe: { ok: false, message: 'connect ECONNREFUSED <q>' }, at: NOW } }),
    ).text;

    // Assess
    expect(text).toContain('ZooKeeper at zk:2181 is not reachable</strong> (suspended: &lt;b&gt;x&lt;/b&gt;)');
    expect(text).toContain('Check ZK_CONNECT');
    expect(text).toContain('The request queue is not reachable</strong>: connect ECONNREFUSED &lt;q&gt;');
  });

  it("never shows the user:password@ of the queue URL (a proxy's), reachable, checking or not", () => {
    // Act
    const url = 'https://queue-user:s3cret-pw@sqs.example.com/000000000000/requests.fifo';
    const texts = [
      { probe: { ok: true as const, visible: 1, inFlight: 0 }, at: NOW },
      { probe: { ok: false as const, message: `could not reach ${url}` }, at: NOW },
      { probe: undefined, at: NOW },
    ].map((probe) => renderStatus(snapshot({ queue: { url, ...probe } })).text);

    // Assess
    for (const text of texts) expect(text).not.toContain('s3cret-pw');
    expect(texts[0]).toContain('Queue https://***@sqs.example.com/000000000000/requests.fifo: reachable');
    expect(texts[2]).toContain('Queue https://***@sqs.example.com/000000000000/requests.fifo: checking');
  });
});

describe('failout console options', () => {
  const log = pino({ level: 'silent' });

  it.each([
    [{ port: '70000' }, {}, 'is not a port number'],
    [{ port: 'http' }, {}, 'is not a port number'],
    [{ listen: '0.0.0.0' }, {}, 'needs an access token'],
    [{ listen: '0.0.0.0', token: 'short' }, {}, 'at least 32 characters'],
    [{ bridgeAdmin: ['not a url'] }, {}, '--bridge-admin: "not a url" is not a URL'],
    [{ bridgeAdmin: ['ftp://x'] }, {}, 'is not an http(s) URL'],
    [{ bridgeAdmin: ['http://admin:secret@x:9901'] }, {}, 'put no credentials in a URL'],
    [{ metrics: ['http://x/metrics'] }, {}, 'is not service=url'],
    [{}, { FAILOUT_METRICS_URLS: 'greetings=nope' }, 'FAILOUT_METRICS_URLS: "nope" is not a URL'],
  ])('rejects %j with env %j: %s', (flags, env, message) => {
    expect(() => consoleServerOptions(flags, env, log)).toThrow(message);
  });

  it.each([
    [{ bridgeAdmin: ['http://admin:s3cret-pw@bad host:9901'] }, {}],
    [{ bridgeAdmin: ['ftp://admin:s3cret-pw@x:9901'] }, {}],
    [{}, { FAILOUT_BRIDGE_ADMIN_URLS: 'http://admin:s3cret-pw@x:99999' }],
    [{ metrics: ['greetings=ftp://scraper:s3cret-pw@x/metrics'] }, {}],
    [{}, { FAILOUT_METRICS_URLS: 'greetings=http://scraper:s3cret-pw@[::1/metrics' }],
    [{ metrics: ['http://scraper:s3cret-pw@x/metrics'] }, {}],
  ])('refuses %j with env %j without quoting the password of a URL that is also malformed', (flags, env) => {
    // Act
    let message = '';
    try {
      consoleServerOptions(flags, env, log);
    } catch (err) {
      message = (err as Error).message;
    }

    // Assess
    expect(message).toMatch(/is not (a|an http\(s\)) URL|is not service=url/);
    expect(message).toContain('***@');
    expect(message).not.toContain('s3cret-pw');
  });

  it('reads the lists from the environment, several instances of a service summed under its name', () => {
    // Act
    const options = consoleServerOptions({}, { FAILOUT_BRIDGE_ADMIN_URLS: 'http://a:9901, http://b:9901', FAILOUT_METRICS_URLS: 'greetings=http://s1/metrics,greetings=http://s2/metrics', FAILOUT_CONSOLE_PORT: '0' }, log);

    // Assess
    expect({ host: options.host, port: options.port, bridges: options.bridgeUrls, metrics: Object.fromEntries(options.metricsUrls ?? []) }).toEqual({
      host: '127.0.0.1',
      port: 0,
      bridges: ['http://a:9901/', 'http://b:9901/'],
      metrics: { greetings: ['http://s1/metrics', 'http://s2/metrics'] },
    });
    void options.requests.close();
  });
});

describe('the history says why each request was made', () => {
  it("shows the request's reason as text, next to who asked", () => {
    // Prepare
    const s = snapshot({
      records: [{ requestId: 'r-1', status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt: NOW, clusterVersion: 3, requestedBy: 'oncall@example.com', requestReason: 'INC-4711 <img src=x onerror=alert(1)>' }],
    });

    // Act
    const html = renderHistoryRows(s).text;

    // Assess
    expect(html).toContain('<td class="why">INC-4711 &lt;img src=x onerror=alert(1)&gt;</td>');
    expect(html).not.toContain('<img');
  });
});

describe('the history says a restore removed an unreadable failout', () => {
  it("shows the codec's error beside the outcome as text, control and bidi characters as visible escapes", () => {
    // Prepare: the error quotes a peer name another tool wrote (markup, U+202E, ESC)
    const error = 'malformed cluster properties: failoutProperties.failoutRedirectConfigs[0].peer must be a cluster name, but "<img src=x onerror=alert(1)>\u202e\u001b[31m" has a slash';
    const s = snapshot({
      records: [{ requestId: 'r-2', status: 'applied', cluster: 'greetings-lor1', action: 'restore', appliedAt: NOW, clusterVersion: 4, requestedBy: 'oncall@example.com', unreadableFailout: error }],
    });

    // Act
    const html = renderHistoryRows(s).text;

    // Assess
    expect(html).toContain('<span class="unreadable">removed an unreadable failout (malformed cluster properties: failoutProperties.failoutRedirectConfigs[0].peer must be a cluster name, but &quot;&lt;img src=x onerror=alert(1)&gt;\\u202e\\u001b[31m&quot; has a slash)</span>');
    expect(html).not.toContain('<img');
    expect([html.includes('\u202e'), html.includes('\u001b')]).toEqual([false, false]);
  });

  it('says nothing of it for a restore that found a readable failout', () => {
    const s = snapshot({ records: [{ requestId: 'r-3', status: 'applied', cluster: 'greetings-lor1', action: 'restore', appliedAt: NOW, clusterVersion: 4 }] });
    expect(renderHistoryRows(s).text).not.toContain('unreadable');
  });
});
