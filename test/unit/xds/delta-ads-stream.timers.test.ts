/**
 * DeltaAdsStream does-not-exist timer (fake timers): a server may never answer a name, so the timer
 * still runs for names written on a READY transport; `removed_resources` and resources stop it, and
 * a failed call stops it until the resend.
 */
import { CDS_TYPE_URL } from '../../helpers/xds-fakes';
import { tick } from './ads-stream-setup';
import { deltaStreamFixture } from './delta-ads-stream-setup';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('DeltaAdsStream does-not-exist timer', () => {
  it('fires 15 s after an unanswered name was written on a ready transport', () => {
    // Prepare
    const { stream, doesNotExist } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');

    // Act
    tick();
    jest.advanceTimersByTime(14_999);
    const before = [...doesNotExist];
    jest.advanceTimersByTime(1);

    // Assess
    expect(before).toEqual([]);
    expect(doesNotExist).toEqual(['c1']);
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('timeout');
    stream.close();
  });

  it('does not fire for names the server answered, with a resource or as removed', () => {
    // Prepare
    const { stream, transport, doesNotExist } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(CDS_TYPE_URL, 'gone');
    tick();

    // Act
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [['c1', 'v1', 1]], removed: ['gone'] });
    jest.advanceTimersByTime(60_000);

    // Assess
    expect(doesNotExist).toEqual([]);
    stream.close();
  });

  it('stops when the call fails and starts again only after the resend', () => {
    // Prepare
    const { stream, transport, doesNotExist } = deltaStreamFixture();
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    tick();
    jest.advanceTimersByTime(10_000);

    // Act: the call fails before any response; the retry comes 1 s later and resends c1
    transport.current.close(new Error('connection refused'));
    expect(stream.watchState(CDS_TYPE_URL, 'c1')).toBe('started');
    jest.advanceTimersByTime(1000); // retry 0 after 1 s
    jest.advanceTimersByTime(1); // the resend (sinon delays 0-ms timers set during a tick by 1 ms)
    jest.advanceTimersByTime(14_999);
    const before = [...doesNotExist];
    jest.advanceTimersByTime(1);

    // Assess
    expect(transport.calls).toHaveLength(2);
    expect(before).toEqual([]);
    expect(doesNotExist).toEqual(['c1']);
    stream.close();
  });

  it('does not start before the transport is ready, nor for a resource the owner has cached', () => {
    // Prepare
    const { stream, transport, cached, doesNotExist } = deltaStreamFixture();
    transport.ready = false;
    cached.add('cached');
    stream.start();
    stream.subscribe(CDS_TYPE_URL, 'c1');
    stream.subscribe(CDS_TYPE_URL, 'cached');
    tick();
    jest.advanceTimersByTime(20_000);
    const whileNotReady = [...doesNotExist];

    // Act
    transport.ready = true;
    stream.onTransportReady();
    jest.advanceTimersByTime(15_000);

    // Assess
    expect(whileNotReady).toEqual([]);
    expect(doesNotExist).toEqual(['c1']);
    stream.close();
  });
});
