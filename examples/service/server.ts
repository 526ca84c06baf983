// A service that adopts failout: it announces itself in D2 (ZooKeeper) and calls `greetings`
// through FailoutClient, so a failout of greetings' local cluster moves its calls to the peers.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import {
  LoadBalancerState,
  WeightedFailoutRedirectStrategy,
  ZooKeeperAnnouncer,
  ZooKeeperFailoutConfigProviderFactory,
  buildD2Client,
  type D2ClientConfig,
} from 'failout';
import { connectSession, type DigestCredential } from 'failout/zk';

const zkConnect = process.env.ZK_CONNECT ?? '127.0.0.1:2181';
const port = Number(process.env.PORT ?? 8080);
const cluster = process.env.CLUSTER ?? 'profiles-lor1'; // where this service announces itself
const upstream = process.env.UPSTREAM_SERVICE ?? 'greetings'; // the D2 service it calls

/**
 * The announcer identity (`user:password`) from ZK_ANNOUNCER_DIGEST, or the file ZK_ANNOUNCER_DIGEST_FILE
 * names (`npm start` prints one): on a secured tree only it may announce under /d2/uris/<cluster>.
 */
function announcerCredential(): DigestCredential | undefined {
  const file = process.env.ZK_ANNOUNCER_DIGEST_FILE;
  const text = (process.env.ZK_ANNOUNCER_DIGEST ?? (file ? readFileSync(file, 'utf8') : '')).trim();
  const colon = text.indexOf(':');
  if (text === '') return undefined;
  if (colon <= 0) throw new Error('ZK_ANNOUNCER_DIGEST(_FILE) must hold user:password');
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

async function main(): Promise<void> {
  const session = await connectSession({ connectString: zkConnect });
  const state = new LoadBalancerState({ session });
  const config: D2ClientConfig = {
    state,
    enableClusterFailout: true,
    failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
    failoutRedirectStrategy: (view, context) => new WeightedFailoutRedirectStrategy({ view, registry: context.registry }),
    // Open connections to a failed-out cluster's peers before its traffic moves there (the default;
    // spelled out here): through this client's own pools, so redirected requests find them open.
    warmUp: true,
    warmUpTimeoutMs: 5_000,
    warmUpConcurrency: 16,
  };
  const client = buildD2Client(config);
  await state.listenToService(upstream);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/metrics') {
      // Every counter of the client (redirects, fail-opens, warm-ups, malformed configs) in one registry.
      void client.registry.metrics().then((text) => {
        res.writeHead(200, { 'content-type': client.registry.contentType });
        res.end(text);
      });
      return;
    }
    const member = url.searchParams.get('member') ?? undefined; // same member, same bucket
    client
      .request(`d2://${upstream}/hello`, { routingKey: member, headersTimeout: 2000, bodyTimeout: 2000 })
      .then(async (upstreamRes) => {
        const greeting = await upstreamRes.body.text();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ member, greeting, servedBy: upstreamRes.target.cluster }) + '\n');
      })
      .catch((err: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`${upstream} failed: ${err instanceof Error ? err.message : String(err)}\n`);
      });
  });
  server.listen(port, '127.0.0.1');
  const announcer = new ZooKeeperAnnouncer({ session, cluster, uri: `http://127.0.0.1:${port}`, credential: announcerCredential() });
  await announcer.markUp();
  console.log(`listening on http://127.0.0.1:${port}, announced in ${cluster}; calling d2://${upstream}`);

  process.once('SIGINT', () => {
    void (async () => {
      await announcer.close(); // leave D2 first (marks down), so no caller picks a host that is going away
      server.close();
      await client.close();
      state.close();
      await session.close();
    })();
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
