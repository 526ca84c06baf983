import { escapeHtml, html, SafeHtml } from '../../../lib/console/html';
import { jsonForScript } from '../../../lib/console/page';
import { parsePrometheusText, RateSeries, totalsByTarget } from '../../../lib/metrics';
import { csrfRefusal, digest, listenProblem } from '../../../lib/console/security';
import { groupClusters, type ClusterCard } from '../../../lib/console/snapshot';

describe('html: text from data is escaped by construction', () => {
  it.each([
    ['<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['" onmouseover="x', '&quot; onmouseover=&quot;x'],
    ["'&`", '&#39;&amp;&#96;'],
  ])('escapes %s', (text, expected) => {
    // Act
    const out = html`<p title="${text}">${text}</p>`;

    // Assess
    expect(out.text).toBe(`<p title="${expected}">${expected}</p>`);
    expect(escapeHtml(text)).toBe(expected);
  });

  it('keeps nested safe pieces and lists, drops null and false', () => {
    // Act
    const out = html`<ul>${['a<', 'b'].map((t) => html`<li>${t}</li>`)}</ul>${null}${false}${undefined}`;

    // Assess
    expect(out).toBeInstanceOf(SafeHtml);
    expect(out.text).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
  });

  it('shows control and bidi characters as visible escapes, as the CLI prints them (lib/text)', () => {
    // Act
    const out = html`<p title="${'a\u202Eb'}">${'INC\u001b[2J\u0000\u2066x\n'}</p>`;

    // Assess
    expect(out.text).toBe('<p title="a\\u202eb">INC\\u001b[2J\\u0000\\u2066x\\n</p>');
  });

  it('puts JSON in a script data block without a way to close it', () => {
    expect(jsonForScript({ s: '</script><script>alert(1)</script>' }).text).not.toContain('</script>');
  });
});

describe('prometheus: requests per second by target cluster', () => {
  const text = [
    '# HELP failout_client_redirected_total Requests of a failed-out cluster sent to a peer',
    '# TYPE failout_client_redirected_total counter',
    'failout_client_redirected_total{cluster="greetings-lor1",peer="greetings-lva1"} 10',
    'failout_client_redirected_total{cluster="greetings-lor1",peer="greetings-ltx1"} 5',
    'failout_local_requests_total{cluster="greetings-lva1"} 110',
    'failout_local_requests_total{cluster="greetings-lor1"} 200',
    'weird{label="a\\"b"} 1',
    'not a sample line',
  ].join('\n');

  it('parses samples with escaped label values and skips what is not one', () => {
    // Act
    const samples = parsePrometheusText(text);

    // Assess
    expect(samples).toHaveLength(5);
    expect(samples[4]).toEqual({ name: 'weird', labels: { label: 'a"b' }, value: 1 });
  });

  it('takes the traffic counter when exported, else the redirected requests by peer', () => {
    // Act
    const traffic = totalsByTarget(parsePrometheusText(text), 'failout_local_requests_total');
    const redirected = totalsByTarget(parsePrometheusText(text), undefined);

    // Assess
    expect({ source: traffic.source, totals: Object.fromEntries(traffic.totals) }).toEqual({ source: 'traffic', totals: { 'greetings-lva1': 110, 'greetings-lor1': 200 } });
    expect({ source: redirected.source, totals: Object.fromEntries(redirected.totals) }).toEqual({ source: 'redirected', totals: { 'greetings-lva1': 10, 'greetings-ltx1': 5 } });
  });

  it('makes rates from successive totals, restarting after a counter reset or a gap', () => {
    // Prepare
    const series = new RateSeries(2);

    // Act
    const first = series.add(1000, new Map([['a', 10]]));
    const second = series.add(2000, new Map([['a', 60]]));
    const reset = series.add(3000, new Map([['a', 5]]));
    series.gap();
    const afterGap = series.add(4000, new Map([['a', 100]]));

    // Assess
    expect([first, second?.rates, reset?.rates, afterGap]).toEqual([undefined, { a: 50 }, { a: 5 }, undefined]);
    expect(series.points()).toHaveLength(2);
  });
});

describe('security: same-origin CSRF and the listen rule', () => {
  const token = 'the-token';
  const ok = { host: '127.0.0.1:8300', origin: 'http://127.0.0.1:8300', 'content-type': 'application/json', 'x-csrf-token': token };

  it.each([
    ['the token, same origin, JSON', ok, undefined],
    ['no Origin header (same-origin fetch may omit it)', { ...ok, origin: undefined }, undefined],
    ['no token', { ...ok, 'x-csrf-token': undefined }, 'missingToken'],
    ['a wrong token', { ...ok, 'x-csrf-token': 'nope' }, 'wrongToken'],
    ['another origin', { ...ok, origin: 'http://evil.example' }, 'crossOrigin'],
    ['the same host on another port', { ...ok, origin: 'http://127.0.0.1:9999' }, 'crossOrigin'],
    ['an opaque origin', { ...ok, origin: 'null' }, 'crossOrigin'],
    ['Sec-Fetch-Site cross-site', { ...ok, 'sec-fetch-site': 'cross-site' }, 'crossOrigin'],
    ['a form body', { ...ok, 'content-type': 'application/x-www-form-urlencoded' }, 'notJson'],
  ])('%s → %s', (_case, headers, expected) => {
    expect(csrfRefusal(headers, digest(token))).toBe(expected);
  });

  it.each([
    ['127.0.0.1', undefined, false],
    ['::1', undefined, false],
    ['0.0.0.0', undefined, true],
    ['0.0.0.0', 'x'.repeat(32), false],
    ['127.0.0.1', 'short', true],
  ])('listen on %s with token %s: refused %s', (host, token, refused) => {
    expect(listenProblem(host, token) !== undefined).toBe(refused);
  });
});

describe('groupClusters', () => {
  const card = (name: string, peers: string[] = []): ClusterCard => ({
    name,
    hosts: 1,
    status: { cluster: name, state: peers.length > 0 ? 'failed-out' : 'serving', peers: peers.map((p) => ({ cluster: p, weight: 1 })), windows: [] },
    safety: [],
    problem: undefined,
  });

  it('groups the home cluster first, the clusters named after the service and its peers; the rest last', () => {
    // Act
    const groups = groupClusters([{ name: 'greetings', cluster: 'greetings-lor1' }], [card('greetings-lva1'), card('greetings-lor1', ['dr-site']), card('dr-site'), card('profiles-lor1')]);

    // Assess
    expect(groups.map((g) => [g.service, g.clusters.map((c) => c.name)])).toEqual([
      ['greetings', ['greetings-lor1', 'dr-site', 'greetings-lva1']],
      [undefined, ['profiles-lor1']],
    ]);
  });
});
