/**
 * Issue 14: the local stack's live view escapes what it shows. Cluster names, failout peers and a
 * malformed document's problem come from ZooKeeper; the view's own screen control (home, clear) is
 * the only escape sequence that reaches the terminal.
 */
import type { FailoutConfig } from '../../../lib/failout';
import { LiveView, renderView, type ViewSource } from '../../../lib/local/view';

const NOW = Date.parse('2026-11-30T16:00:00Z');
const FAKE = '\u001b[2J\u001b[Hall clear\u009b';

/** The C0 (but newline), DEL and C1 characters in `text`: what must never reach a terminal raw. */
function controls(text: string): string[] {
  return [...text].filter((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f')));
}

function source(): ViewSource {
  const failout: FailoutConfig = {
    cluster: 'greetings-lor1',
    peers: [{ cluster: `lva1${FAKE}`, weight: 1 }],
    windows: [{ partition: 'main', offlineAt: NOW - 1000, onlineAt: NOW + 60_000, buckets: { from: 0, to: 99 }, requestId: undefined, requestedBy: FAKE, reason: FAKE }],
    isFailedOut: () => true,
    isBucketFailedOut: () => true,
    getPeerClusters: () => new Set([`lva1${FAKE}`]),
  };
  return {
    rate: 10,
    samplesSince: () => [{ at: NOW, service: 'greetings', cluster: undefined, host: undefined, ok: false, latencyMs: 1, error: `boom${FAKE}` }],
    totals: () => ({ ok: 0, errors: 1 }),
    clusters: () => [
      { name: `greetings-lor1${FAKE}`, hosts: 1, failout },
      { name: 'greetings-ltx1', hosts: 1, failout: undefined, problem: `bad${FAKE}` },
    ],
    replicas: () => [{ id: `bridge-1${FAKE}`, role: 'leader', ready: true, controlPlane: 'primary', adminPort: undefined }],
    planes: () => [{ name: 'primary', uri: 'grpc://127.0.0.1:1', state: 'serving' }],
    worker: () => ({ batches: 0, records: 0, failures: 0, deleted: 0, handlerErrors: 0, sqsErrors: 0 }),
    warmUps: () => ({ started: 0, succeeded: 0, failed: 0, connections: 0 }),
    backendName: () => undefined,
    env: () => ({ FAILOUT_QUEUE_URL: 'http://q', SQS_ENDPOINT: 'http://s', ZK_CONNECT: '127.0.0.1:2181', ZK_ANNOUNCER_DIGEST_FILE: '/tmp/announcer.digest', FAILOUT_ALARMS_URL: 'http://127.0.0.1:1/alarms' }),
  };
}

describe('local view', () => {
  it('renders names, peers, problems and errors from data with visible escapes', () => {
    const frame = renderView(source(), NOW).join('\n');
    expect(controls(frame)).toEqual([]);
    expect(frame).toContain('greetings-lor1\\u001b[2J\\u001b[Hall clear\\u009b');
    expect(frame).toContain('bad\\u001b[2J');
    expect(frame).toContain('lva1\\u001b[2J');
    expect(frame).toContain('boom\\u001b[2J');
  });

  it('draws with its own screen control only', () => {
    let written = '';
    const view = new LiveView(source(), (text) => void (written += text));
    view.note = `key says ${FAKE}`;
    view.draw();
    expect(written.startsWith('\u001b[H\u001b[2J')).toBe(true);
    expect(controls(written.slice('\u001b[H\u001b[2J'.length))).toEqual([]);
  });
});
