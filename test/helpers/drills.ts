import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { RequestWriter } from '../../lib/requests';
import { decodeDrillNode, type DrillNode } from '../../lib/requests/drills';
import { silentRequestLogger } from '../../lib/requests/logger';
import { type Outcome } from '../../lib/requests/request-writer';
import { createHandler } from '../../lib/requests/lambda';
import { DrillRunner, HttpAlarmStates, type AlarmState } from '../../lib/safety';
import { OPEN_ACL, type ZkSession } from '../../lib/zk';
import type { SqsHandler } from '../../lib/local/sqs-poller';
import { startLocalDrills, type LocalDrills } from '../../lib/local/drills';
import type { LocalSqs } from '../../lib/local/sqs';
import { createLogger } from '../../lib/logging';
import { sharedConnectString } from './zk';
import { testPaths, type TestPaths } from './requests-queue';

/**
 * Pieces of the drill tests on the real pipeline: a small HTTP alarm-state server (the contract's
 * `FAILOUT_ALARMS_URL` shape), paths with a drills parent of the test's own, the REAL handler over a
 * RequestWriter writing drills there, and a runner over the same queue.
 */

/** Paths of one test, drills included. */
export interface DrillPaths extends TestPaths {
  readonly drillsPath: string;
}

export function drillPaths(): DrillPaths {
  const base = testPaths();
  return { ...base, drillsPath: base.d2Base.replace(/\/d2$/, '/drills') };
}

/** A loopback alarm-state server: `GET /alarms` → `{"alarms":[{name,state,since}]}`. */
export interface AlarmServer {
  readonly url: string;
  set(name: string, state: AlarmState): void;
  close(): Promise<void>;
}

export async function startAlarmServer(): Promise<AlarmServer> {
  const states = new Map<string, { state: AlarmState; since: number }>();
  const server: Server = createServer((req, res) => {
    if (req.url !== '/alarms') {
      res.writeHead(404).end();
      return;
    }
    const alarms = [...states].map(([name, s]) => ({ name, state: s.state, since: s.since }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ alarms }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alarms`,
    set: (name, state) => void states.set(name, { state, since: Date.now() }),
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** The real handler over a writer with the test's drills path; outcomes collected. */
export function drillHandler(session: ZkSession, paths: DrillPaths, outcomes: Outcome[] = []): SqsHandler {
  const writer = new RequestWriter({ session, d2BasePath: paths.d2Base, requestsPath: paths.requestsPath, drillsPath: paths.drillsPath, recordAcl: OPEN_ACL });
  return createHandler({
    writer: {
      process: async (body, meta) => {
        const outcome = await writer.process(body, meta);
        outcomes.push(outcome);
        return outcome;
      },
    },
    logger: new Logger({ serviceName: 'failout-requests-test', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }),
  });
}

/** A runner over the test's paths and queue, alarm states from `alarms`, clock `clock`. */
export function drillRunner(session: ZkSession, paths: DrillPaths, options: { client: SQSClient; queueUrl: string; alarmsUrl: string; clock?: () => number }): DrillRunner {
  return new DrillRunner({
    zk: session,
    d2BasePath: paths.d2Base,
    requestsPath: paths.requestsPath,
    drillsPath: paths.drillsPath,
    queueUrl: options.queueUrl,
    send: async (message) => {
      const out = await options.client.send(new SendMessageCommand(message));
      return out.MessageId === undefined ? {} : { messageId: out.MessageId };
    },
    alarms: new HttpAlarmStates(options.alarmsUrl),
    logger: silentRequestLogger,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}

/** The drill node, or undefined. */
export async function readDrill(session: ZkSession, paths: DrillPaths, name: string): Promise<DrillNode | undefined> {
  const node = await session.read(`${paths.drillsPath}/${name}`);
  return node.exists ? decodeDrillNode(node.data) : undefined;
}

/** A putDrill body with sensible defaults (every minute, 1 hour, outcome alarm `<name>-outcome`). */
export function putDrillBody(name: string, cluster: string, peers: readonly string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    requestId: `put-${randomUUID()}`,
    action: 'putDrill',
    cluster,
    drill: name,
    peers: peers.map((p) => ({ cluster: p, weight: 1 })),
    duration: 'PT1H',
    every: 'cron(* * ? * * *)',
    outcomeAlarm: `${name}-outcome`,
    requestedBy: 'test@example.com',
    ...overrides,
  };
}

/** The start of the minute after `ms`, plus one second: a time a `cron(* * ? * * *)` drill is due at, after now. */
export function nextMinute(ms: number): number {
  return Math.floor(ms / 60_000) * 60_000 + 60_000 + 1000;
}

/** The `failout-drills` Lambda bundle (lib/local `startLocalDrills`, as `npm start` runs it) over the test's paths, queue and alarm server, ticked by the test. */
export function startDrillsLambda(sqs: LocalSqs, alarmsUrl: string, paths: DrillPaths, name: string): Promise<LocalDrills> {
  return startLocalDrills({
    connectString: sharedConnectString(),
    sqs,
    alarmsUrl,
    logLevel: 'SILENT',
    logger: createLogger(name),
    tickMs: 0,
    env: { D2_BASE_PATH: paths.d2Base, FAILOUT_REQUESTS_PATH: paths.requestsPath, FAILOUT_DRILLS_PATH: paths.drillsPath },
  });
}
