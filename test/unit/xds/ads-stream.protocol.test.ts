/**
 * AdsStream wire protocol: first request, ACK, NACK, unknown types, coalescing (fake timers).
 */
import { LDS_TYPE_URL, CDS_TYPE_URL, fakeAny } from '../../helpers/xds-fakes';
import { streamFixture, tick } from './ads-stream-setup';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('AdsStream ACK/NACK', () => {
  it('sends node only in the first request, with the full name set and empty version and nonce', () => {
    const { stream, transport } = streamFixture();
    stream.start();
    stream.subscribe(LDS_TYPE_URL, 'l1');
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    const [first, second] = transport.current.requests;
    expect(first).toEqual({ version_info: '', node: { id: 'node-1' }, resource_names: ['l1'], type_url: LDS_TYPE_URL, response_nonce: '' });
    expect(second).toEqual({ version_info: '', resource_names: ['c1'], type_url: CDS_TYPE_URL, response_nonce: '' });
    stream.close();
  });

  it('ACKs with the response version and nonce', () => {
    const { stream, transport, responses } = streamFixture();
    stream.start();
    stream.subscribe(LDS_TYPE_URL, 'l1');
    tick();
    transport.current.respond({ type_url: LDS_TYPE_URL, version_info: 'v1', nonce: 'n1', resources: [fakeAny(LDS_TYPE_URL, 'l1', 'x')] });
    tick();
    expect(transport.current.requests.at(-1)).toEqual({ version_info: 'v1', resource_names: ['l1'], type_url: LDS_TYPE_URL, response_nonce: 'n1' });
    expect(responses[0]?.updates).toEqual([{ name: 'l1', value: 'x', raw: fakeAny(LDS_TYPE_URL, 'l1', 'x') }]);
    stream.close();
  });

  it('NACKs with the last accepted version, the rejected nonce and error_detail, and still reports the valid resources', () => {
    const { stream, transport, responses } = streamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'good');
    stream.subscribe(CDS_TYPE_URL, 'bad');
    tick();
    const call = transport.current;
    call.respond({ type_url: CDS_TYPE_URL, version_info: 'v1', nonce: 'n1', resources: [fakeAny(CDS_TYPE_URL, 'good', 1), fakeAny(CDS_TYPE_URL, 'bad', 1)] });
    call.respond({
      type_url: CDS_TYPE_URL,
      version_info: 'v2',
      nonce: 'n2',
      resources: [fakeAny(CDS_TYPE_URL, 'good', 2), fakeAny(CDS_TYPE_URL, 'bad', 0, 'no lb policy')],
    });
    tick();
    const nack = call.requests.at(-1);
    expect(nack).toMatchObject({ version_info: 'v1', response_nonce: 'n2', resource_names: ['good', 'bad'] });
    expect(nack?.error_detail?.code).toBe(14);
    expect(nack?.error_detail?.message).toMatch(/^xDS response validation errors: \[bad: no lb policy\]$/);
    expect(responses[1]?.updates).toEqual([{ name: 'good', value: 2, raw: fakeAny(CDS_TYPE_URL, 'good', 2) }]);
    expect(responses[1]?.errors.map((e) => e.name)).toEqual(['bad']);
    call.respond({ type_url: CDS_TYPE_URL, version_info: 'v3', nonce: 'n3', resources: [fakeAny(CDS_TYPE_URL, 'good', 3)] });
    tick();
    expect(call.requests.at(-1)).toEqual({ version_info: 'v3', resource_names: ['good', 'bad'], type_url: CDS_TYPE_URL, response_nonce: 'n3' });
    stream.close();
  });

  it('neither ACKs nor NACKs a response of an unknown type', () => {
    const { stream, transport, responses } = streamFixture();
    stream.start();
    stream.subscribe(LDS_TYPE_URL, 'l1');
    tick();
    const before = transport.current.requests.length;
    transport.current.respond({ type_url: 'type.googleapis.com/unknown.Type', nonce: 'n', resources: [] });
    tick();
    expect(transport.current.requests).toHaveLength(before);
    expect(responses).toEqual([]);
    stream.close();
  });

  it('ignores resources that were not requested and NACKs duplicate names', () => {
    const { stream, transport, responses } = streamFixture();
    stream.start();
    stream.subscribe(LDS_TYPE_URL, 'l1');
    tick();
    transport.current.respond({
      type_url: LDS_TYPE_URL,
      nonce: 'n1',
      version_info: 'v1',
      resources: [fakeAny(LDS_TYPE_URL, 'other', 0), fakeAny(LDS_TYPE_URL, 'l1', 1), fakeAny(LDS_TYPE_URL, 'l1', 2)],
    });
    tick();
    expect(responses[0]?.updates).toEqual([{ name: 'l1', value: 1, raw: fakeAny(LDS_TYPE_URL, 'l1', 1) }]);
    expect(responses[0]?.errors[0]?.error.message).toContain('duplicate');
    expect(transport.current.requests.at(-1)?.version_info).toBe('');
    stream.close();
  });

  it('NACKs a resource of another type than the response', () => {
    const { stream, transport, responses } = streamFixture();
    stream.start();
    stream.subscribe(LDS_TYPE_URL, 'l1');
    tick();
    transport.current.respond({ type_url: LDS_TYPE_URL, nonce: 'n1', resources: [fakeAny(CDS_TYPE_URL, 'l1', 0)] });
    tick();
    expect(responses[0]?.errors).toHaveLength(1);
    expect(transport.current.requests.at(-1)?.error_detail).toBeDefined();
    stream.close();
  });

  it('keeps versions across a restart and resets the nonce', () => {
    const { stream, transport } = streamFixture();
    stream.start();
    stream.subscribe(LDS_TYPE_URL, 'l1');
    tick();
    transport.current.respond({ type_url: LDS_TYPE_URL, version_info: 'v1', nonce: 'n1', resources: [fakeAny(LDS_TYPE_URL, 'l1', 1)] });
    tick();
    transport.current.close(new Error('reset'));
    jest.advanceTimersByTime(1); // immediate retry, then the flush (sinon delays 0-ms timers set during a tick by 1 ms)
    expect(transport.calls).toHaveLength(2);
    expect(transport.current.requests).toEqual([
      { version_info: 'v1', node: { id: 'node-1' }, resource_names: ['l1'], type_url: LDS_TYPE_URL, response_nonce: '' },
    ]);
    stream.close();
  });
});

describe('AdsStream coalescing', () => {
  it('writes one request per type per tick however many names change', () => {
    const { stream, transport } = streamFixture();
    stream.start();
    for (let i = 0; i < 1000; i++) stream.subscribe(CDS_TYPE_URL, `c${i}`);
    stream.unsubscribe(CDS_TYPE_URL, 'c0');
    tick();
    expect(transport.current.requests).toHaveLength(1);
    expect(transport.current.requests[0]?.resource_names).toHaveLength(999);
    stream.close();
  });

  it('folds an ACK and the subscription changes of the same tick into one request', () => {
    const { stream, transport } = streamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    transport.current.respond({ type_url: CDS_TYPE_URL, version_info: 'v1', nonce: 'n1', resources: [fakeAny(CDS_TYPE_URL, 'c1', 1)] });
    stream.subscribe(CDS_TYPE_URL, 'c2');
    tick();
    expect(transport.current.requests).toHaveLength(2);
    expect(transport.current.requests[1]).toMatchObject({ version_info: 'v1', response_nonce: 'n1', resource_names: ['c1', 'c2'] });
    stream.close();
  });

  it('sends an empty name list when the last name of a type goes, and nothing for a type never sent', () => {
    const { stream, transport } = streamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(LDS_TYPE_URL, 'l1');
    stream.unsubscribe(LDS_TYPE_URL, 'l1');
    tick();
    expect(transport.current.requests.map((r) => r.type_url)).toEqual([CDS_TYPE_URL]);
    stream.unsubscribe(CDS_TYPE_URL, 'c1');
    tick();
    expect(transport.current.requests.at(-1)).toMatchObject({ type_url: CDS_TYPE_URL, resource_names: [] });
    stream.close();
  });
});
