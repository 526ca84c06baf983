/**
 * Issue 23, `failout fabric put|delete` end to end: the CLI in-process against fauxqs and the shared
 * ZooKeeper, the real handler (writing maps under the test's own path) behind a poller; then
 * `fabric show` places the mapped cluster with source `map`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { RequestWriter } from '../../../lib/requests';
import { createHandler } from '../../../lib/requests/lambda';
import { OPEN_ACL } from '../../../lib/zk';
import { runCli, useCliQueueTestbed } from '../../helpers/cli';
import { startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed(['greetings-lor1', 'legacy-a']);

const fabricsPath = (): string => bed.paths.d2Base.replace(/\/d2$/, '/fabrics');
const cli = (...argv: string[]) => runCli({ ...bed.env, FAILOUT_FABRICS_PATH: fabricsPath() }, ...argv);

function fabricHandler() {
  const writer = new RequestWriter({ session: bed.session, d2BasePath: bed.paths.d2Base, requestsPath: bed.paths.requestsPath, fabricsPath: fabricsPath(), recordAcl: OPEN_ACL });
  return createHandler({
    writer,
    logger: new Logger({ serviceName: 'failout-requests-test', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }),
  });
}

it('puts a fabric map through the queue, shows its cluster from the map, refuses a conflicting map and deletes it', async () => {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: fabricHandler });

  const put = await cli('fabric', 'put', 'lor1', '--cluster', 'legacy-a=greetings:frontend', '--reason', 'CHG-1', '--wait');
  expect(put).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(putFabric fabric lor1\)/) });
  const show = JSON.parse((await cli('fabric', 'show', 'lor1', '--json')).stdout) as { fabric: { clusters: { cluster: string; source: string; tier?: string }[] } };
  expect(show.fabric.clusters).toEqual(expect.arrayContaining([expect.objectContaining({ cluster: 'legacy-a', source: 'map', tier: 'frontend' })]));
  expect((await cli('fabric', 'list')).stdout).toMatch(/^lor1 /m);

  const conflict = await cli('fabric', 'put', 'lva1', '--cluster', 'legacy-a=greetings', '--wait', '--output', 'json');
  expect(conflict.code).toBe(1);
  expect(JSON.parse(conflict.stdout)).toMatchObject({ outcome: { status: 'rejected', reason: 'fabricConflict' } });

  expect(await cli('fabric', 'delete', 'lor1', '--wait')).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(deleteFabric fabric lor1\)/) });
});

it('refuses a malformed --cluster and a hostile name before sending', async () => {
  expect(await cli('fabric', 'put', 'lor1', '--cluster', 'no-service')).toMatchObject({ code: 2, stderr: expect.stringMatching(/<cluster>=<service>/) });
  expect(await cli('fabric', 'put', '..', '--cluster', 'a=b')).toMatchObject({ code: 2, stderr: expect.stringMatching(/badName/) });
});
