import fc from 'fast-check';
import { isFailedOutAt, parseClusterProperties, serializeClusterProperties } from '../../../lib/d2/data';
import { parseChangeRequest } from '../../../lib/requests';
import { applyRequest } from '../../../lib/requests/apply-request';
import { REJECTION_REASONS } from '../../../lib/requests/rejection';
import { failoutPropertiesArbitrary } from '../../helpers/failout-arbitraries';
import { HOUR, NOW } from '../../helpers/requests';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
const peer = fc.record({ cluster: name, weight: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }) }, { requiredKeys: ['cluster'] });
const bucketRange = fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })).map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) }));
const failoutBody = fc.record(
  {
    version: fc.constant(1),
    requestId: fc.uuid(),
    action: fc.constant('failout'),
    cluster: name,
    peers: fc.uniqueArray(peer, { minLength: 1, maxLength: 5, selector: (p) => p.cluster }),
    // Starts at most half an hour ago and lasts at least an hour: never already over.
    offlineAt: fc.integer({ min: NOW - HOUR / 2, max: NOW + HOUR }),
    duration: fc.integer({ min: 1, max: 48 }).map((h) => `PT${h}H`),
    buckets: bucketRange,
    requestedBy: fc.string(),
    reason: fc.string(),
    force: fc.boolean(),
  },
  { requiredKeys: ['version', 'requestId', 'action', 'cluster', 'peers', 'duration'] },
);

// Through JSON once, so that values JSON cannot keep (-0) compare as JSON keeps them.
const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const unknownKeys = fc.dictionary(fc.stringMatching(/^x[A-Za-z]{1,8}$/), json, { maxKeys: 4 });

describe('properties', () => {
  it('parseChangeRequest never throws, and rejects with a known reason and a message', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), json.map((v) => JSON.stringify(v)), failoutBody.map((b) => JSON.stringify(b))), (body) => {
        const result = parseChangeRequest(body, { now: NOW });
        if (!result.ok) {
          expect(REJECTION_REASONS).toContain(result.rejection.reason);
          expect(result.rejection.message.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it('a well-formed failout whose peers differ from the cluster is accepted, with a window inside the limit', () => {
    fc.assert(
      fc.property(failoutBody, (body) => {
        fc.pre(body.peers.every((p) => p.cluster !== body.cluster));
        const result = parseChangeRequest(body, { now: NOW });
        expect(result.ok).toBe(true);
        if (result.ok && result.request.action === 'failout') {
          expect(result.request.onlineAt).toBeGreaterThan(result.request.offlineAt);
          expect(result.request.onlineAt - NOW).toBeLessThanOrEqual(72 * HOUR);
        }
      }),
    );
  });

  it('applyRequest never drops unknown keys and never writes failoutProperties their parser refuses', () => {
    fc.assert(
      fc.property(failoutBody, unknownKeys, unknownKeys, fc.boolean(), fc.boolean(), (body, topExtra, failoutExtra, restore, hosts) => {
        const parsed = parseChangeRequest(restore ? { version: 1, requestId: body.requestId, action: 'restore', cluster: body.cluster } : body, {
          now: NOW,
        });
        fc.pre(parsed.ok);
        if (!parsed.ok) return;
        const doc = { clusterName: parsed.request.cluster, ...topExtra, failoutProperties: { failoutRedirectConfigs: [], failoutBucketConfigs: [], ...failoutExtra } };
        const props = parseClusterProperties(JSON.stringify(doc));
        const result = applyRequest(props, parsed.request, { now: NOW, peers: () => ({ exists: true, hostCount: hosts ? 1 : 0, failoutProperties: null }) });
        if (!result.ok) {
          expect(hosts || parsed.request.force).toBe(false);
          return;
        }
        const written = JSON.parse(serializeClusterProperties(result.props));
        for (const [key, value] of Object.entries(topExtra)) expect(written[key]).toEqual(value);
        const reread = parseClusterProperties(serializeClusterProperties(result.props)).failoutProperties;
        if (parsed.request.action === 'restore') {
          // The document has no open window: the cluster is serving, so the restore writes nothing (issue 21).
          expect(result.unchanged).toBe(true);
          expect(result.props).toBe(props);
        } else if (parsed.request.action === 'failout') {
          for (const [key, value] of Object.entries(failoutExtra)) expect(written.failoutProperties[key]).toEqual(value);
          expect(reread?.redirects.map((r) => r.peer)).toEqual(parsed.request.peers.map((p) => p.cluster));
          expect(isFailedOutAt(reread, parsed.request.offlineAt)).toBe(true);
        }
      }),
    );
  });

  it('every failoutProperties the worker writes reads back as the model it built, whatever failout it replaced', () => {
    fc.assert(
      fc.property(failoutBody, fc.option(failoutPropertiesArbitrary, { nil: null }), unknownKeys, (body, previous, topExtra) => {
        // Prepare
        const parsed = parseChangeRequest(body, { now: NOW });
        fc.pre(parsed.ok);
        if (!parsed.ok) return;
        const props = { ...parseClusterProperties({ clusterName: parsed.request.cluster, ...topExtra }), failoutProperties: previous };

        // Act
        const result = applyRequest(props, parsed.request, { now: NOW, peers: () => ({ exists: true, hostCount: 1, failoutProperties: null }) });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const after = result.props;
        const reread = parseClusterProperties(serializeClusterProperties(after));

        // Assess
        expect(reread.failoutProperties).toEqual(after.failoutProperties);
        expect(reread.failoutProperties?.extra).toEqual(previous?.extra);
        expect(reread.extra).toEqual(topExtra);
      }),
    );
  });
});
