/**
 * Issue 14: every CLI printer escapes what it shows. Text in ZooKeeper (a failout's reason, who asked,
 * peer names, a rejection's message) comes from other people; printed raw, an ESC sequence in it can
 * clear the operator's screen and draw a fake "all clear".
 */
import type { RequestRecord } from '../../../lib/requests';
import { describeCluster, formatClusterStatus, formatRecord } from '../../../lib/operator';

const NOW = Date.parse('2026-11-30T16:00:00Z');
const FAKE = '\u001b[2J\u001b[Hgreetings-lor1  serving\u009b';
/** The C0 (but newline), DEL and C1 characters in `text`: what must never reach a terminal raw. */
function controls(text: string): string[] {
  return [...text].filter((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f')));
}

describe('CLI printers escape text from data', () => {
  it('formatClusterStatus shows reason, who, request id and peers with visible escapes', () => {
    const node = JSON.stringify({
      clusterName: 'greetings-lor1',
      failoutProperties: {
        // A peer can hold no C0/C1 control (the codec refuses it) but ZooKeeper takes a bidi override.
        failoutRedirectConfigs: [{ peer: 'lva1\u202e1avl', weight: 1 }],
        failoutBucketConfigs: [{ offlineAt: NOW - 1000, onlineAt: NOW + 3_600_000, requestId: `r${FAKE}`, requestedBy: `mallory${FAKE}`, reason: `INC\n${FAKE}` }],
      },
    });
    const text = formatClusterStatus(describeCluster('greetings-lor1', node, NOW), NOW);
    expect(controls(text)).toEqual([]);
    expect(text).toContain('mallory\\u001b[2J\\u001b[Hgreetings-lor1  serving\\u009b — INC\\n\\u001b[2J');
    expect(text).toContain('lva1\\u202e1avl (weight 1, 100%)');
    expect(text.split('\n')[0]).toBe('greetings-lor1  FAILED OUT');
  });

  it("formatClusterStatus shows a malformed document's problem, which quotes the bad value, with visible escapes", () => {
    const node = JSON.stringify({ clusterName: 'greetings-lor1', failoutProperties: { failoutRedirectConfigs: [{ peer: `lva1${FAKE}` }], failoutBucketConfigs: [] } });
    const text = formatClusterStatus(describeCluster('greetings-lor1', node, NOW), NOW);
    expect(controls(text)).toEqual([]);
    expect(text).toMatch(/^greetings-lor1 {2}MALFORMED failout properties\n {2}problem {2}.*"lva1\\u001b\[2J\\u001b\[Hgreetings-lor1 {2}serving\\u009b"/);
  });

  it('formatRecord shows a rejection message and names with visible escapes', () => {
    const record: RequestRecord = {
      requestId: 'r-1',
      status: 'rejected',
      reason: 'badSchema',
      message: `reason: ${FAKE}`,
      cluster: 'greetings-lor1',
      action: 'failout',
      appliedAt: NOW,
      clusterVersion: null,
      requestedBy: FAKE,
    };
    const text = formatRecord(record);
    expect(controls(text)).toEqual([]);
    expect(text).toContain('reason: \\u001b[2J');
  });
});
