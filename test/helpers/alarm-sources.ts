import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlarmState } from '../../lib/alarms';

/**
 * Alarm sources on loopback for the alarm-check tests (issue 21): a CloudWatch endpoint that answers
 * `DescribeAlarms` as the real service does in the SDK's protocol (AWS JSON 1.0, target
 * `GraniteServiceVersion20100801.DescribeAlarms`), so the real SDK client and the Lambda bundle
 * (`AWS_ENDPOINT_URL_CLOUDWATCH`) reach it. The HTTP evaluator's shape is test/helpers/drills
 * `startAlarmServer`.
 */

/** A fake CloudWatch: the alarms it has, the names each call asked for, and a switch to fail. */
export interface FakeCloudWatch {
  /** `http://127.0.0.1:<port>`: the SDK's endpoint. */
  readonly endpoint: string;
  /** The `AlarmNames` of each DescribeAlarms call, in order. */
  readonly calls: string[][];
  /** Creates or changes an alarm (a metric alarm). */
  set(name: string, state: AlarmState): void;
  /** From now on, answers every call with this AWS error (`AccessDeniedException`), or normally with undefined. */
  fail(error: { type: string; message: string } | undefined): void;
  close(): Promise<void>;
}

export async function startFakeCloudWatch(): Promise<FakeCloudWatch> {
  const alarms = new Map<string, AlarmState>();
  const calls: string[][] = [];
  let failure: { type: string; message: string } | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const reply = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
      if (target !== 'GraniteServiceVersion20100801.DescribeAlarms') return reply(400, { __type: 'UnknownOperationException', message: target });
      if (failure) return reply(400, { __type: failure.type, message: failure.message });
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { AlarmNames?: string[] };
      const names = input.AlarmNames ?? [];
      calls.push(names);
      const found = names.filter((n) => alarms.has(n)).map((n) => ({ AlarmName: n, StateValue: alarms.get(n) }));
      return reply(200, { MetricAlarms: found, CompositeAlarms: [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    set: (name, state) => void alarms.set(name, state),
    fail: (error) => void (failure = error),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
