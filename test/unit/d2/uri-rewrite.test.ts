import { rewriteD2Uri } from '../../../lib/d2/codecs/uri-rewrite';

describe('rewriteD2Uri (D2URIRewriter, §3.4, §5)', () => {
  it.each([
    [
      'vector 27: appends the request path and query to host + service path',
      'http://www.linkedin.com:1234',
      '/test',
      'd2://serviceName/request/query?q=5678',
      'http://www.linkedin.com:1234/test/request/query?q=5678',
    ],
    [
      'the quick-start example',
      'http://localhost:39901',
      '/articleRecommendation',
      'd2://articleRecommendation/x',
      'http://localhost:39901/articleRecommendation/x',
    ],
    [
      'keeps an encoded query as it is',
      'http://www.linkedin.com:1234',
      '/test',
      'd2://serviceName/request/query?q=hello%20world&name=foo%26bar',
      'http://www.linkedin.com:1234/test/request/query?q=hello%20world&name=foo%26bar',
    ],
    ['keeps the fragment', 'http://www.linkedin.com:1234', '', 'd2://serviceName/path?q=1#section', 'http://www.linkedin.com:1234/path?q=1#section'],
    ['joins with a single slash when both sides have one', 'http://h:1/', '', 'd2://svc/x', 'http://h:1/x'],
    ['adds a slash when the service path has none', 'http://h:1', '', 'd2://svc', 'http://h:1'],
    ['keeps a service path that ends in a slash', 'http://h:1', '/base/', 'd2://svc/x', 'http://h:1/base/x'],
    ['replaces the host URI query with the request query', 'http://h:1/p?old=1', '', 'd2://svc/x?new=2', 'http://h:1/p/x?new=2'],
    ['drops the host URI query when the request has none', 'http://h:1/p?old=1', '', 'd2://svc/x', 'http://h:1/p/x'],
    ['keeps an empty request query', 'http://h:1', '/p', 'd2://svc/x?', 'http://h:1/p/x?'],
  ])('%s', (_name, hostUri, servicePath, d2Uri, expected) => {
    // Act + Assess
    expect(rewriteD2Uri(hostUri, servicePath, d2Uri)).toBe(expected);
  });
});
