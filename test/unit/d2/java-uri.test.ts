import { isJavaUri, javaUriScheme } from '../../../lib/d2/codecs/java-uri';

describe('isJavaUri (java.net.URI.create)', () => {
  it.each([
    'http://www.google.com',
    'https://test1.linkedin.com:12345/test',
    'http://badhost.example.com:8080/',
    'http://host7.example.com:8080/profile-war',
    'http://localhost:39901',
    'http://[::1]:8080/x',
    'http://[fe80::1%25eth0]:80/',
    'http://user:pw@h:1/p?q=1&r=%20#frag',
    'http://h:abc/',
    'http://:80/',
    'file:///tmp/x',
    'mailto:someone@example.com',
    'urn:isbn:096139210x',
    'relative/path',
    '/absolute/path',
    '',
    'http://h/ünïcode',
    'http://h/a;b=c/d,e',
    'd2://serviceName/request/query?q=5678',
  ])('accepts %j', (uri) => {
    // Act + Assess
    expect(isJavaUri(uri)).toBe(true);
  });

  it.each([
    'http://',
    'http://bad host/',
    'http://h/a b',
    'http://h/%zz',
    'http://h/%2',
    ':no-scheme',
    '1http://h',
    'ht tp://h',
    'http:',
    'http://h/[x]',
    'http://[zz]/',
    'http://h/<x>',
    'http://h/"q"',
    'http://h/a#b#c',
    'http://h/\u0001',
    'http://h/\u00a0',
    '//',
  ])('rejects %j', (uri) => {
    // Act + Assess
    expect(isJavaUri(uri)).toBe(false);
  });

  it.each([
    ['http://h:1/x', 'http'],
    ['HTTPS://h:1', 'HTTPS'],
    ['d2://svc/x', 'd2'],
    ['relative/x:y', null],
    ['http://bad host', null],
  ])('reads the scheme of %j as %j', (uri, scheme) => {
    // Act + Assess
    expect(javaUriScheme(uri)).toBe(scheme);
  });
});
