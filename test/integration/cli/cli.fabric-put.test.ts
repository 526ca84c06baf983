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
import { queueDepth, startPollers } from '../../helpers/requests-queue';
import { encodeFabricMap, fabricMapPath } from '../../../lib/fabrics';

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
  // The version is the map node's: a fabric request writes no cluster node.
  expect(put.stdout).toMatch(/applied \(putFabric fabric lor1\) at \S+, fabric map node version 0\n/);
  const show = JSON.parse((await cli('fabric', 'show', 'lor1', '--json')).stdout) as { fabric: { clusters: { cluster: string; source: string; tier?: string }[] } };
  expect(show.fabric.clusters).toEqual(expect.arrayContaining([expect.objectContaining({ cluster: 'legacy-a', source: 'map', tier: 'frontend' })]));
  expect((await cli('fabric', 'list')).stdout).toMatch(/^lor1 /m);

  // Judged before sending with the worker's own check: refused, never queued (it used to reach the worker)
  const conflict = await cli('fabric', 'put', 'lva1', '--cluster', 'legacy-a=greetings', '--wait', '--output', 'json');
  expect(conflict.code).toBe(1);
  expect(JSON.parse(conflict.stdout)).toMatchObject({ sent: false, rejection: { reason: 'fabricConflict' } });

  expect(await cli('fabric', 'delete', 'lor1', '--wait')).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(deleteFabric fabric lor1\)/) });
});

it('refuses a malformed --cluster and a hostile name before sending', async () => {
  expect(await cli('fabric', 'put', 'lor1', '--cluster', 'no-service')).toMatchObject({ code: 2, stderr: expect.stringMatching(/<cluster>=<service>/) });
  expect(await cli('fabric', 'put', '..', '--cluster', 'a=b')).toMatchObject({ code: 2, stderr: expect.stringMatching(/badName/) });
});

it("refuses before sending a map naming a cluster another fabric's map names, saying which, with the worker's own check", async () => {
  // Prepare: lor1's map places legacy-a (written as the worker writes it)
  await bed.session.create(fabricMapPath(fabricsPath(), 'lor1'), encodeFabricMap({ fabric: 'lor1', clusters: [{ cluster: 'legacy-a', service: 'greetings' }] }), { parents: true, acl: OPEN_ACL });

  // Act
  const text = await cli('fabric', 'put', 'lva1', '--cluster', 'legacy-a=greetings', '--cluster', 'greetings-lor1=greetings');
  const json = await cli('fabric', 'put', 'lva1', '--cluster', 'legacy-a=greetings', '--output', 'json');
  const unrelated = await cli('fabric', 'put', 'ltx1', '--cluster', 'greetings-lor1=greetings');

  // Assess: both refused with the worker's reason and message, nothing queued; a map without a clash is sent
  expect(text.code).toBe(1);
  expect(text.stdout).toMatch(/REJECTED \(putFabric fabric lva1\): fabricConflict — cluster "legacy-a" is in fabric "lor1"'s map/);
  expect(text.stdout).toContain('nothing was sent');
  expect(json.code).toBe(1);
  expect(JSON.parse(json.stdout)).toMatchObject({ sent: false, request: { action: 'putFabric', fabric: 'lva1' }, rejection: { reason: 'fabricConflict', message: expect.stringContaining('"legacy-a" is in fabric "lor1"') } });
  expect(unrelated.code).toBe(0);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(1);
});

it('refuses before sending a map the codec will not write (over 256 KiB under a raised MAX_REQUEST_BYTES), naming why', async () => {
  // Prepare: 2,000 clusters with long names
  const flags = Array.from({ length: 2000 }, (_, i) => ['--cluster', `c${String(i).padStart(4, '0')}-${'x'.repeat(120)}=s-${'y'.repeat(120)}`]).flat();

  // Act
  const result = await runCli({ ...bed.env, FAILOUT_FABRICS_PATH: fabricsPath(), MAX_REQUEST_BYTES: String(1024 * 1024) }, 'fabric', 'put', 'lor1', ...flags);

  // Assess
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(/REJECTED \(putFabric fabric lor1\): badFabric — fabric map lor1 would have \d+ bytes, more than 262144/);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});
