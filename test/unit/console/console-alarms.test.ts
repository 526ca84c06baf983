import pino from 'pino';
import type { FailoutProperties } from '../../../lib/d2';
import { ALARM_POLL_MS, AlarmPoller, alarmErrorText, type AlarmStatesView } from '../../../lib/console/alarms';
import { renderClusters, renderStatus } from '../../../lib/console/page';
import { EMPTY_FABRIC_TABLE } from '../../../lib/console/fabric-view';
import { shownAlarmNames, windowSafety, type ConsoleSnapshot, type ServiceGroup } from '../../../lib/console/snapshot';
import { AlarmStatesError, CloudWatchAlarmStates, HttpAlarmStates, type AlarmState, type AlarmStates } from '../../../lib/safety';
import { describeFailout } from '../../../lib/operator/cluster-status';
import { consoleAlarmSource } from '../../../lib/console';

// The stop alarms' states on the console: how they render (escaped, ALARM marked, the source's
// trouble in one line), which names the poller asks for and how often, and how `failout console`
// picks the source.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;
const XSS_ALARM = '<img src=x onerror=alert(1)>';

function props(stopAlarms: string[], onlineAt = NOW + 60 * MIN): FailoutProperties {
  return {
    redirects: [{ peer: 'greetings-lva1', weight: 1 }],
    ignoredRedirectEntries: 0,
    buckets: [{ bucketOfflineRange: { from: 0, to: 99 }, offlineAt: NOW - MIN, onlineAt, requestedBy: 'oncall', reason: 'INC-1', stopAlarms }],
  };
}

function groups(p: FailoutProperties, now = NOW): ServiceGroup[] {
  return [{ service: 'greetings', homeCluster: 'greetings-lor1', clusters: [{ name: 'greetings-lor1', hosts: 3, status: describeFailout('greetings-lor1', p, now), safety: windowSafety(p), problem: undefined }] }];
}

function snapshot(alarms: AlarmStatesView, p: FailoutProperties = props(['greetings-5xx', XSS_ALARM])): ConsoleSnapshot {
  return {
    now: NOW,
    zk: { connect: '127.0.0.1:2181', state: 'connected', error: undefined, since: NOW },
    queue: { url: 'http://q', probe: { ok: true, visible: 0, inFlight: 0 }, at: NOW },
    groups: groups(p),
    records: [],
    bridges: [],
    traffic: [],
    fabrics: EMPTY_FABRIC_TABLE,
    alarms,
  };
}

const read = (states: Record<string, AlarmState>): AlarmStatesView => ({ kind: 'read', source: 'http://127.0.0.1:9/alarms', states: new Map(Object.entries(states)), at: NOW });

describe('alarm states on the cluster cards', () => {
  it('shows each state as text next to its name, ALARM marked firing, names escaped', () => {
    // Act
    const cards = renderClusters(snapshot(read({ 'greetings-5xx': 'ALARM', [XSS_ALARM]: 'OK' }))).text;
    const status = renderStatus(snapshot(read({ 'greetings-5xx': 'ALARM', [XSS_ALARM]: 'OK' }))).text;

    // Assess
    expect(cards).toContain('greetings-5xx <span class="alarm-state firing" data-alarm="greetings-5xx" data-alarm-state="ALARM">ALARM</span>');
    expect(cards).toContain('&lt;img src=x onerror=alert(1)&gt; <span class="alarm-state" data-alarm="&lt;img src=x onerror=alert(1)&gt;" data-alarm-state="OK">OK</span>');
    expect(cards).not.toContain('<img');
    expect(status).toContain('Alarm states from http://127.0.0.1:9/alarms: 2 read, <strong class="alarm-state firing" data-firing="1">1 in ALARM: greetings-5xx</strong>.');
  });

  it('names every alarm in ALARM in the status line, escaped', () => {
    // Act
    const status = renderStatus(snapshot(read({ 'greetings-5xx': 'ALARM', [XSS_ALARM]: 'ALARM', 'greetings-p99': 'OK' }))).text;

    // Assess
    expect(status).toContain('3 read, <strong class="alarm-state firing" data-firing="2">2 in ALARM: greetings-5xx, &lt;img src=x onerror=alert(1)&gt;</strong>.');
    expect(status).not.toContain('<img');
  });

  it('shows INSUFFICIENT_DATA unmarked, and a name the last read did not cover without a state', () => {
    // Act
    const cards = renderClusters(snapshot(read({ 'greetings-5xx': 'INSUFFICIENT_DATA' }))).text;

    // Assess
    expect(cards).toContain('<span class="alarm-state" data-alarm="greetings-5xx" data-alarm-state="INSUFFICIENT_DATA">INSUFFICIENT_DATA</span>');
    expect(cards).toContain(', &lt;img src=x onerror=alert(1)&gt;</span>');
    expect(cards).not.toContain('firing');
  });

  it('shows the names without states and one line why when the source is unreachable, its error escaped', () => {
    // Prepare
    const down: AlarmStatesView = { kind: 'unreachable', source: 'http://127.0.0.1:9/alarms', error: 'connect ECONNREFUSED <b>', at: NOW };

    // Act
    const cards = renderClusters(snapshot(down)).text;
    const status = renderStatus(snapshot(down)).text;

    // Assess
    expect(cards).toContain('stops when an alarm fires: <span class="alarms">greetings-5xx, &lt;img src=x onerror=alert(1)&gt;</span>');
    expect(cards).not.toContain('data-alarm-state');
    expect(status.match(/data-alarms=/g)).toHaveLength(1);
    expect(status).toContain('<strong>Alarm states could not be read</strong> from http://127.0.0.1:9/alarms: connect ECONNREFUSED &lt;b&gt;.');
  });

  it('says once, as a note and not an alert, that no source is configured', () => {
    // Act
    const status = renderStatus(snapshot({ kind: 'off' })).text;
    const cards = renderClusters(snapshot({ kind: 'off' })).text;

    // Assess
    expect(status.match(/Alarm states: not configured/g)).toHaveLength(1);
    expect(status).toContain('<p data-alarms="off">');
    expect(cards).toContain('<span class="alarms">greetings-5xx, &lt;img src=x onerror=alert(1)&gt;</span>');
  });
});

describe('shownAlarmNames', () => {
  it('names each alarm the cards show once; of an ended failout, only its last window', () => {
    // Prepare
    const twoWindows: FailoutProperties = {
      redirects: [{ peer: 'greetings-lva1', weight: 1 }],
      ignoredRedirectEntries: 0,
      buckets: [
        { bucketOfflineRange: { from: 0, to: 49 }, offlineAt: NOW - 3 * MIN, onlineAt: NOW - 2 * MIN, stopAlarms: ['old-alarm', 'shared'] },
        { bucketOfflineRange: { from: 50, to: 99 }, offlineAt: NOW - 2 * MIN, onlineAt: NOW - MIN, stopAlarms: ['shared', 'last-alarm'] },
      ],
    };

    // Act
    const active = shownAlarmNames(groups(props(['a', 'b', 'a'])));
    const ended = shownAlarmNames(groups(twoWindows));
    const none = shownAlarmNames(groups({ redirects: [], ignoredRedirectEntries: 0, buckets: [] }));

    // Assess
    expect(active).toEqual(['a', 'b']);
    expect(ended.sort()).toEqual(['last-alarm', 'shared']);
    expect(none).toEqual([]);
  });
});

/** An alarm source that records when and for what it was asked (a fake: this tests the poller's logic). */
class RecordingStates implements AlarmStates {
  readonly calls: { at: number; names: readonly string[] }[] = [];
  fail: Error | undefined;
  hang = false;
  /** How long each read takes. */
  delayMs = 0;

  async states(names: readonly string[]): Promise<ReadonlyMap<string, AlarmState>> {
    this.calls.push({ at: Date.now(), names });
    if (this.hang) return new Promise(() => undefined);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.fail) throw this.fail;
    return new Map(names.map((n) => [n, n.endsWith('5xx') ? 'ALARM' : 'OK']));
  }
}

const until = async (check: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('AlarmPoller', () => {
  const logger = pino({ level: 'silent' });
  let poller: AlarmPoller | undefined;

  afterEach(() => poller?.close());

  function start(reader: RecordingStates, names: () => readonly string[], options: { periodMs?: number; timeoutMs?: number } = {}): { changes: () => number } {
    let changes = 0;
    poller = new AlarmPoller({ source: { label: 'test', reader }, names, periodMs: options.periodMs ?? 150, timeoutMs: options.timeoutMs, logger, onChange: () => changes++ });
    poller.start();
    return { changes: () => changes };
  }

  it('asks nothing while no card shows an alarm, then only for the names shown, at most once per period', async () => {
    // Prepare
    const reader = new RecordingStates();
    let shown: string[] = [];
    start(reader, () => shown);
    await new Promise((r) => setTimeout(r, 300));
    const whileNone = reader.calls.length;

    // Act: a failout names two alarms; the renders wake the poller often (every 10 ms here)
    shown = ['greetings-5xx', 'greetings-p99', 'greetings-5xx'];
    const waking = setInterval(() => poller!.wake(), 10);
    await until(() => reader.calls.length >= 3);
    clearInterval(waking);

    // Assess
    expect(whileNone).toBe(0);
    expect(reader.calls[0]!.names).toEqual(['greetings-5xx', 'greetings-p99']);
    const gaps = reader.calls.slice(1).map((c, i) => c.at - reader.calls[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(145);
    const view = poller!.view();
    expect(view.kind === 'read' ? Object.fromEntries(view.states) : view).toEqual({ 'greetings-5xx': 'ALARM', 'greetings-p99': 'OK' });
  });

  it('reads at once when woken with now, even inside the period, and again right after a read in flight', async () => {
    // Prepare: a long period, one read done; reads take 200 ms
    const reader = new RecordingStates();
    start(reader, () => ['greetings-5xx'], { periodMs: 60_000 });
    await until(() => reader.calls.length === 1);
    reader.delayMs = 200;

    // Act: the failouts naming alarms changed; they change again while that read is in flight
    const woken = Date.now();
    poller!.wake(true);
    await until(() => reader.calls.length === 2, 2000);
    poller!.wake(true);
    poller!.wake(true);
    await until(() => reader.calls.length === 3, 2000);

    // Assess: the first at once, the second as soon as the first ended (one read, not two), not a period later
    expect(reader.calls[1]!.at - woken).toBeLessThan(1000);
    expect(reader.calls[2]!.at - reader.calls[1]!.at).toBeGreaterThanOrEqual(190);
    expect(reader.calls[2]!.at - woken).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 400));
    expect(reader.calls).toHaveLength(3);
  });

  it('reads once a second by default, so an ALARM is on the page within about 2 s', () => {
    expect(ALARM_POLL_MS).toBe(1000);
  });

  it('says the source is unreachable (access key ids removed), drops the states, and recovers', async () => {
    // Prepare
    const reader = new RecordingStates();
    const { changes } = start(reader, () => ['greetings-5xx']);
    await until(() => poller!.view().kind === 'read');

    // Act
    reader.fail = new AlarmStatesError('CloudWatch DescribeAlarms failed: key AKIAIOSFODNN7EXAMPLE is not authorised');
    await until(() => poller!.view().kind === 'unreachable');
    const down = poller!.view();
    reader.fail = undefined;
    await until(() => poller!.view().kind === 'read');

    // Assess
    expect(down).toMatchObject({ kind: 'unreachable', source: 'test', error: 'CloudWatch DescribeAlarms failed: key <access key id> is not authorised' });
    expect(changes()).toBeGreaterThanOrEqual(3);
  });

  it('counts a read that does not answer as unreachable', async () => {
    // Prepare
    const reader = new RecordingStates();
    reader.hang = true;

    // Act
    start(reader, () => ['greetings-5xx'], { timeoutMs: 100 });
    await until(() => poller!.view().kind === 'unreachable');

    // Assess
    expect(poller!.view()).toMatchObject({ kind: 'unreachable', error: 'no answer within 0 s' });
  });

  it('reads nothing after close', async () => {
    // Prepare
    const reader = new RecordingStates();
    start(reader, () => ['a'], { periodMs: 50 });
    await until(() => reader.calls.length >= 1);

    // Act
    poller!.close();
    const calls = reader.calls.length;
    poller!.wake();
    await new Promise((r) => setTimeout(r, 200));

    // Assess
    expect(reader.calls.length).toBe(calls);
  });

  it('alarmErrorText keeps messages and hides access key ids', () => {
    expect(alarmErrorText(new Error('denied for ASIAXXXXXXXXXXXXXXXX'))).toBe('denied for <access key id>');
    expect(alarmErrorText('plain')).toBe('plain');
  });
});

describe('failout console: the source of alarm states', () => {
  it.each([
    [{ alarmsUrl: 'http://127.0.0.1:9/alarms' }, { FAILOUT_ALARMS_URL: 'http://127.0.0.1:8/alarms' }, HttpAlarmStates, 'http://127.0.0.1:9/alarms'],
    [{}, { FAILOUT_ALARMS_URL: ' http://127.0.0.1:8/alarms ' }, HttpAlarmStates, 'http://127.0.0.1:8/alarms'],
    [{}, { FAILOUT_ALARMS_URL: 'http://127.0.0.1:8/alarms', FAILOUT_CONSOLE_CLOUDWATCH: '1' }, HttpAlarmStates, 'http://127.0.0.1:8/alarms'],
    [{ cloudwatchAlarms: true }, { FAILOUT_ALARMS_URL: 'http://127.0.0.1:8/alarms', AWS_REGION: 'eu-west-1' }, CloudWatchAlarmStates, 'CloudWatch DescribeAlarms in eu-west-1'],
    [{}, { FAILOUT_CONSOLE_CLOUDWATCH: '1' }, CloudWatchAlarmStates, 'CloudWatch DescribeAlarms'],
    [{}, { FAILOUT_CONSOLE_CLOUDWATCH: 'true', AWS_DEFAULT_REGION: 'us-east-1' }, CloudWatchAlarmStates, 'CloudWatch DescribeAlarms in us-east-1'],
  ])('flags %j with env %j read from %p, shown as %j', (flags, env, kind, label) => {
    // Act
    const source = consoleAlarmSource(flags, env);

    // Assess
    expect(source?.reader).toBeInstanceOf(kind);
    expect(source?.label).toBe(label);
  });

  it.each([[{}, {}], [{}, { FAILOUT_CONSOLE_CLOUDWATCH: '0' }], [{}, { FAILOUT_ALARMS_URL: '  ', FAILOUT_CONSOLE_CLOUDWATCH: '' }]])(
    'reads none with flags %j and env %j (not even CloudWatch when credentials are around)',
    (flags, env) => {
      expect(consoleAlarmSource(flags, { ...env, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y' })).toBeUndefined();
    },
  );

  it.each([
    [{ alarmsUrl: 'not a url' }, {}, '--alarms-url: "not a url" is not a URL'],
    [{ alarmsUrl: 'file:///etc/passwd' }, {}, 'is not an http(s) URL'],
    [{ alarmsUrl: 'http://user:secret@127.0.0.1:9/alarms' }, {}, 'put no credentials in a URL'],
    [{}, { FAILOUT_ALARMS_URL: 'nope' }, 'FAILOUT_ALARMS_URL: "nope" is not a URL'],
    [{}, { FAILOUT_CONSOLE_CLOUDWATCH: 'yes' }, 'FAILOUT_CONSOLE_CLOUDWATCH: "yes" is not 1 or 0'],
    [{ alarmsUrl: 'http://127.0.0.1:9/alarms', cloudwatchAlarms: true }, {}, 'pass one'],
  ])('rejects flags %j with env %j: %s', (flags, env, message) => {
    expect(() => consoleAlarmSource(flags, env)).toThrow(message);
  });
});
