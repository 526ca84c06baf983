import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { logger } from '#powertools/logger';
import { loadRequestsConfig, RequestWriter, resolveDigestCredential, resolveWriterAcl } from '../../lib/requests';
import { ZkSession } from '../../lib/zk';

/**
 * The request writer of this Lambda container, imported as `#commons/request-writer`. Made on the
 * first record (not at import, so a cold start with ZooKeeper down fails records, which SQS retries,
 * instead of failing the init) and reused by every later invocation. The ZooKeeper session inside
 * reconnects and replaces itself after expiry on its own; a failed first connect is forgotten so the
 * next record tries again. Before it writes, `resolveWriterAcl` refuses a tree anyone could change
 * (README "Access control"): the records then fail, and wait, until the tree is secured.
 */
let pending: Promise<RequestWriter> | undefined;

/** The container's writer; see the module doc. */
export function getRequestWriter(): Promise<RequestWriter> {
  pending ??= createRequestWriter().catch((e: unknown) => {
    pending = undefined;
    throw e;
  });
  return pending;
}

async function createRequestWriter(): Promise<RequestWriter> {
  const config = loadRequestsConfig(process.env);
  const credential = await resolveDigestCredential(config, (arn) => getSecret(arn, { maxAge: 300 }));
  const session = new ZkSession({
    connectString: config.zkConnect,
    sessionTimeoutMs: config.sessionTimeoutMs,
    credentials: credential ? [credential] : [],
    // ZK_TLS_*: a refused handshake fails start() with a `tls` ZkError naming the reason (the record is retried).
    tls: config.tls,
  });
  await session.start(config.connectTimeoutMs);
  logger.info('zookeeper session ready', { zkConnect: config.zkConnect, digest: config.digest.source, tls: config.tls !== undefined });
  const recordAcl = await resolveWriterAcl({ session, config, credential, logger }).catch(async (e: unknown) => {
    await session.close();
    throw e;
  });
  return new RequestWriter({
    session,
    d2BasePath: config.d2BasePath,
    requestsPath: config.requestsPath,
    limits: { maxWindowMs: config.maxWindowMs, maxBodyBytes: config.maxBodyBytes, maxPeers: config.maxPeers },
    retention: { retentionMs: config.recordRetentionMs },
    recordAcl,
    logger,
  });
}
