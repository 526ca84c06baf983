/**
 * What an authority's dump holds for CSDS (gRFC A40): the resource as received while one is cached,
 * when the server last changed it, and the rejected update behind a NACK (version and time).
 */
import { CDS_TYPE_URL, fakeAny, fakeAuthority, recordingWatcher } from '../../helpers/xds-fakes';

const P = 'primary:1';
const T0 = 1_800_000_000_000;

describe('Authority dump for CSDS', () => {
  let now: jest.SpyInstance<number, []>;
  beforeEach(() => {
    now = jest.spyOn(Date, 'now').mockReturnValue(T0);
  });
  afterEach(() => now.mockRestore());

  const resource = (authority: ReturnType<typeof fakeAuthority>['authority'], name: string) => authority.dump().resources.find((r) => r.name === name);

  it('has no Any, time or rejected update while a resource is only requested', () => {
    // Prepare
    const { authority } = fakeAuthority([P]);

    // Act
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());

    // Assess
    expect(resource(authority, 'c1')).toMatchObject({ status: 'requested', version: '', raw: undefined, lastUpdated: undefined, rejected: undefined });
  });

  it('keeps the Any an accepted value came in, and when it came', () => {
    // Prepare
    const { authority, pool } = fakeAuthority([P]);
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());

    // Act
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v1' }, { version: '7' });

    // Assess
    expect(resource(authority, 'c1')).toEqual(
      expect.objectContaining({ status: 'acked', version: '7', raw: fakeAny(CDS_TYPE_URL, 'c1', 'v1'), lastUpdated: T0, rejected: undefined }),
    );
  });

  it('records the rejected version and time with a NACK, and keeps the accepted version, Any and time', () => {
    // Prepare
    const { authority, pool } = fakeAuthority([P]);
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v1' }, { version: '7' });
    now.mockReturnValue(T0 + 5000);

    // Act
    pool.live(P).respond(CDS_TYPE_URL, {}, { version: '8', errors: { c1: 'port out of range' } });

    // Assess
    const dumped = resource(authority, 'c1');
    expect(dumped).toMatchObject({ status: 'nacked', version: '7', raw: fakeAny(CDS_TYPE_URL, 'c1', 'v1'), lastUpdated: T0, rejected: { version: '8', at: T0 + 5000 } });
    expect(dumped?.error).toContain('port out of range');
  });

  it('forgets the rejected update and takes the new Any when a value is accepted again', () => {
    // Prepare
    const { authority, pool } = fakeAuthority([P]);
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v1' }, { version: '7' });
    pool.live(P).respond(CDS_TYPE_URL, {}, { version: '8', errors: { c1: 'bad' } });
    now.mockReturnValue(T0 + 9000);

    // Act
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v2' }, { version: '9' });

    // Assess
    expect(resource(authority, 'c1')).toMatchObject({ status: 'acked', version: '9', raw: fakeAny(CDS_TYPE_URL, 'c1', 'v2'), lastUpdated: T0 + 9000, rejected: undefined, error: undefined });
  });

  it('drops the Any when a resource is found not to exist, and records when', () => {
    // Prepare
    const { authority, pool } = fakeAuthority([P]);
    authority.watch(CDS_TYPE_URL, 'c1', recordingWatcher());
    authority.watch(CDS_TYPE_URL, 'c2', recordingWatcher());
    pool.live(P).respond(CDS_TYPE_URL, { c1: 'v1', c2: 'v1' }, { version: '1' });
    now.mockReturnValue(T0 + 3000);

    // Act: a CDS SotW response without c1 deletes it
    pool.live(P).respond(CDS_TYPE_URL, { c2: 'v1' }, { version: '2' });

    // Assess
    expect(resource(authority, 'c1')).toMatchObject({ status: 'doesNotExist', raw: undefined, lastUpdated: T0 + 3000 });
  });
});
