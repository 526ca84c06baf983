/**
 * Issue 14: one cluster-name grammar. A name a change request may carry (cluster, peer, request id)
 * must be an SQS MessageGroupId / MessageDeduplicationId (at most 128 characters, ASCII letters, digits
 * and punctuation) and a znode name (no slash, not `.` or `..`); the intersection is printable ASCII
 * without `/`. Separately, some names cannot exist in ZooKeeper at all: readers refuse those.
 */
import { clusterNameProblem, MAX_CLUSTER_NAME_LENGTH } from '../../../lib/d2/data';
import { znodeNameProblem } from '../../../lib/d2/names';

describe('clusterNameProblem', () => {
  it.each([
    'greetings-lor1',
    'a',
    'outbound|80||greetings.default.svc.cluster.local',
    '!"#$%&\'()*+,-.:;<=>?@[\\]^_`{|}~',
    'x'.repeat(128),
  ])('accepts %j', (name) => {
    expect(clusterNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'is empty'],
    ['.', 'is not a valid znode name'],
    ['..', 'is not a valid znode name'],
    ['x'.repeat(129), 'is longer than 128 characters'],
    ['a/b', 'has characters other than ASCII letters, digits and punctuation (SQS MessageGroupId) or has a slash'],
    ['a b', 'has characters other than ASCII letters, digits and punctuation (SQS MessageGroupId) or has a slash'],
    ['grüße', 'has characters other than ASCII letters, digits and punctuation (SQS MessageGroupId) or has a slash'],
    ['tab\there', 'has characters other than ASCII letters, digits and punctuation (SQS MessageGroupId) or has a slash'],
  ])('refuses %j: it %s', (name, why) => {
    expect(MAX_CLUSTER_NAME_LENGTH).toBe(128);
    expect(clusterNameProblem(name)).toBe(why);
  });
});

describe('znodeNameProblem: names that cannot exist in ZooKeeper', () => {
  // ZooKeeper checks UTF-16 code units: an emoji's surrogates fall in its refused range too.
  it.each(['', '.', '..', 'a/b', '/', 'nul\u0000', 'bell\u0007', 'del\u007f', 'c1\u0085', 'private\ue000', 'special\ufff0', 'emoji\u{1F525}'])('refuses %j', (name) => {
    expect(znodeNameProblem(name)).toEqual(expect.any(String));
  });

  it.each(['greetings lor1', 'grüße', 'x'.repeat(300), 'ελληνικά'])('accepts %j, which ZooKeeper can hold', (name) => {
    expect(znodeNameProblem(name)).toBeUndefined();
  });
});
