import type { SQSBatchResponse } from 'aws-lambda';
import { clusterPath, parseClusterProperties, serializeClusterProperties, urisPath } from '../../../lib/d2';
import { bundleFunction, type FunctionBundle } from '../../../lib/local/function-bundle';
import { LambdaProcess } from '../../../lib/local/lambda-process';
import { localSecretArn, startLocalSecrets, type LocalSecrets } from '../../../lib/local/secrets-server';
import { startTcpProxy, type TcpProxy } from '../../../lib/local/tcp-proxy';
import { aclLayout, policyAcl } from '../../../lib/requests/acl';
import type { ZkSession } from '../../../lib/zk';
import { CREDENTIALS, IDS, ROLES } from '../../helpers/access';
import { failoutInput, sqsRecord } from '../../helpers/requests';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

// The deployed wiring is the tested wiring (issue 14): the failout-requests Lambda bundled as the CDK
// app ships it (esbuild, minified, @aws-sdk external), in a process of its own with the environment CDK
// gives it, reading its ZooKeeper digest through Powertools' getSecret from a local Secrets Manager
// endpoint, invoked with SQS events. Checked at ZooKeeper: the write, the record, their ACLs.

const SECRET_ARN = localSecretArn('failout/zk-writer-test');
const LOR1 = 'greetings-lor1';
const LVA1 = 'greetings-lva1';

describe('the failout-requests bundle CDK ships', () => {
  let bundle: FunctionBundle;
  let secrets: LocalSecrets;
  let admin: ZkSession;
  let root: string;
  let proxy: TcpProxy;
  const lambdas: LambdaProcess[] = [];

  beforeAll(async () => {
    bundle = await bundleFunction('failout-requests');
    secrets = await startLocalSecrets(new Map([[SECRET_ARN, JSON.stringify(CREDENTIALS.writer)]]));
  }, 60_000);

  afterAll(async () => {
    await secrets.close();
  });

  beforeEach(async () => {
    root = uniqueBase('bundle');
    admin = await openSession({ credentials: [CREDENTIALS.admin] });
    // The tree as the bridge and `failout zk secure` leave it: every node under the role policy.
    const acl = policyAcl(ROLES, layout());
    for (const cluster of [LOR1, LVA1]) {
      const doc = serializeClusterProperties(parseClusterProperties({ clusterName: cluster }));
      await admin.create(clusterPath(`${root}/d2`, cluster), Buffer.from(doc), { parents: true, acl });
      // A real announcement: the worker counts only hosts a D2 client would send to (issue 16).
      const announcement = JSON.stringify({ clusterName: cluster, weights: { [`http://127.0.0.1:1/${cluster}`]: 1 } });
      await admin.create(`${urisPath(`${root}/d2`, cluster)}/host-1`, Buffer.from(announcement), { parents: true, acl });
    }
    await admin.ensurePath(`${root}/failout/requests`, acl);
    proxy = await startTcpProxy(Number(sharedConnectString().split(':')[1]));
  });

  afterEach(async () => {
    for (const lambda of lambdas.splice(0)) await lambda.close();
    await proxy.close();
    await admin.removeRecursive(root).catch(() => undefined);
    await closeSessions();
  });

  function layout(): ReturnType<typeof aclLayout> {
    return aclLayout({ d2BasePath: `${root}/d2`, requestsPath: `${root}/failout/requests` });
  }

  /** The environment infra/lib/failout-requests-function.ts gives the function, pointed at this test's tree. */
  async function startLambda(extra: Record<string, string> = {}): Promise<LambdaProcess> {
    const lambda = await LambdaProcess.start({
      bundle: bundle.file,
      functionName: 'failout-requests',
      env: {
        ZK_CONNECT: proxy.address,
        D2_BASE_PATH: `${root}/d2`,
        FAILOUT_REQUESTS_PATH: `${root}/failout/requests`,
        ZK_DIGEST_SECRET_ARN: SECRET_ARN,
        ZK_ACL_BRIDGE_ID: IDS.bridge,
        ZK_ACL_ADMIN_ID: IDS.admin,
        POWERTOOLS_SERVICE_NAME: 'failout-requests',
        POWERTOOLS_METRICS_NAMESPACE: 'failout',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
        ...extra,
      },
    });
    lambdas.push(lambda);
    return lambda;
  }

  it('applies a failout from an SQS event: the cluster write, the record, both under the policy ACL', async () => {
    // Prepare
    const lambda = await startLambda();
    const body = failoutInput({ requestId: `bundle-${Date.now()}`, cluster: LOR1, peers: [{ cluster: LVA1, weight: 1 }] });

    // Act
    const response = (await lambda.invoke({ Records: [sqsRecord(body, LOR1)] })) as SQSBatchResponse;

    // Assess: acknowledged, written, recorded
    expect(response.batchItemFailures).toEqual([]);
    const cluster = JSON.parse((await admin.get(clusterPath(`${root}/d2`, LOR1))).data.toString('utf8')) as { failoutProperties?: { failoutRedirectConfigs: { peer: string }[] } };
    expect(cluster.failoutProperties?.failoutRedirectConfigs.map((r) => r.peer)).toEqual([LVA1]);
    const recordPath = `${root}/failout/requests/${String(body.requestId)}`;
    const record = JSON.parse((await admin.get(recordPath)).data.toString('utf8')) as { status: string };
    expect(record.status).toBe('applied');
    // The record's ACL is the policy's: everyone reads, only the admin may change it (records are write-once).
    const { acl } = await admin.getAcl(recordPath);
    expect(acl).toEqual(expect.arrayContaining([expect.objectContaining({ scheme: 'world', id: 'anyone', perms: ['read'] })]));
    expect(acl.filter((e) => e.scheme === 'world').flatMap((e) => e.perms)).toEqual(['read']);
    // An unauthenticated client can read it and change nothing.
    const anonymous = await openSession();
    await expect(anonymous.get(recordPath)).resolves.toBeDefined();
    await expect(anonymous.set(recordPath, Buffer.from('{}'))).rejects.toMatchObject({ kind: 'noAuth' });
    await expect(anonymous.set(clusterPath(`${root}/d2`, LOR1), Buffer.from('{}'))).rejects.toMatchObject({ kind: 'noAuth' });
    // The digest was read from the secret, and it never reached the function's logs.
    expect(secrets.reads.get(SECRET_ARN)).toBeGreaterThanOrEqual(1);
    expect(lambda.output().join('\n')).not.toContain(CREDENTIALS.writer.password);
  }, 60_000);

  it('judges failouts together (issue 21): refuses to strand another failout, and keeps the view under the policy ACL', async () => {
    // Prepare: a third cluster; lor1 failed out to lva1
    const acl = policyAcl(ROLES, layout());
    const ltx1 = 'greetings-ltx1';
    await admin.create(clusterPath(`${root}/d2`, ltx1), Buffer.from(serializeClusterProperties(parseClusterProperties({ clusterName: ltx1 }))), { acl });
    await admin.create(`${urisPath(`${root}/d2`, ltx1)}/host-1`, Buffer.from(JSON.stringify({ clusterName: ltx1, weights: { [`http://127.0.0.1:1/${ltx1}`]: 1 } })), { parents: true, acl });
    const lambda = await startLambda();
    const first = failoutInput({ requestId: `bundle-first-${Date.now()}`, cluster: LOR1, peers: [{ cluster: LVA1, weight: 1 }] });
    const strand = failoutInput({ requestId: `bundle-strand-${Date.now()}`, cluster: LVA1, peers: [{ cluster: ltx1, weight: 1 }] });

    // Act
    expect(((await lambda.invoke({ Records: [sqsRecord(first, LOR1)] })) as SQSBatchResponse).batchItemFailures).toEqual([]);
    expect(((await lambda.invoke({ Records: [sqsRecord(strand, LVA1)] })) as SQSBatchResponse).batchItemFailures).toEqual([]);

    // Assess: the second is recorded strandsFailout, naming lor1; lva1 untouched; the view holds lor1, writable by the writer only
    const record = JSON.parse((await admin.get(`${root}/failout/requests/${String(strand.requestId)}`)).data.toString('utf8')) as { status: string; reason: string; message: string };
    expect(record).toMatchObject({ status: 'rejected', reason: 'strandsFailout', message: expect.stringContaining(`"${LOR1}"`) });
    const lva1 = JSON.parse((await admin.get(clusterPath(`${root}/d2`, LVA1))).data.toString('utf8')) as Record<string, unknown>;
    expect(lva1.failoutProperties).toBeUndefined();
    const viewPath = `${root}/failout/view`;
    expect(Object.keys((JSON.parse((await admin.get(viewPath)).data.toString('utf8')) as { clusters: object }).clusters)).toEqual([LOR1]);
    expect((await admin.getAcl(viewPath)).acl).toEqual(acl(viewPath));
    await expect((await openSession()).set(viewPath, Buffer.from('{}'))).rejects.toMatchObject({ kind: 'noAuth' });
  }, 60_000);

  it('fails the record while ZooKeeper cannot be reached, then applies it on the redelivery (the failed first connect is forgotten)', async () => {
    // Prepare: ZooKeeper unreachable at the first invocation
    const lambda = await startLambda({ ZK_CONNECT_TIMEOUT_MS: '1500' });
    const body = failoutInput({ requestId: `bundle-retry-${Date.now()}`, cluster: LOR1, peers: [{ cluster: LVA1, weight: 1 }] });
    const record = sqsRecord(body, LOR1);
    proxy.refuse();

    // Act
    const first = (await lambda.invoke({ Records: [record] })) as SQSBatchResponse;
    proxy.accept();
    const second = (await lambda.invoke({ Records: [record] })) as SQSBatchResponse;

    // Assess: reported for retry (SQS redelivers), then applied by the same warm container
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(second.batchItemFailures).toEqual([]);
    expect(lambda.coldStarts).toBe(1);
    const stored = JSON.parse((await admin.get(`${root}/failout/requests/${String(body.requestId)}`)).data.toString('utf8')) as { status: string };
    expect(stored.status).toBe('applied');
  }, 60_000);

  it('refuses to write into a tree anyone may change, and says so in its log', async () => {
    // Prepare: an open cluster node (a tree nobody secured)
    await admin.setAcl(clusterPath(`${root}/d2`, LVA1), [{ scheme: 'world', id: 'anyone', perms: ['read', 'write', 'create', 'delete', 'admin'] }]);
    const lambda = await startLambda();
    const body = failoutInput({ requestId: `bundle-open-${Date.now()}`, cluster: LOR1, peers: [{ cluster: LVA1, weight: 1 }] });

    // Act
    const response = (await lambda.invoke({ Records: [sqsRecord(body, LOR1)] })) as SQSBatchResponse;

    // Assess: nothing written; the record waits (retried) until the tree is secured
    expect(response.batchItemFailures).toHaveLength(1);
    const cluster = JSON.parse((await admin.get(clusterPath(`${root}/d2`, LOR1))).data.toString('utf8')) as Record<string, unknown>;
    expect(cluster.failoutProperties).toBeUndefined();
    expect(lambda.output().join('\n')).toContain('failout zk secure');
  }, 60_000);
});
