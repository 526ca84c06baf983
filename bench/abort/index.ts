// abort: how fast a stop alarm brings traffic home (issue 16: p99 ≤ 1 s). On the local stack (real
// ZooKeeper, fauxqs, the bridge, FailoutClient traffic, the failout-requests and failout-guard bundles
// in their own processes), N times: `failout out greetings-lor1 --peer greetings-lva1 --stop-alarm
// greetings-lva1-errors`, wait until all traffic is on the peer, break the peer (its backends answer
// 500), and measure from the alarm's event (the evaluator's transition to ALARM) to the first request
// after the last one that did not land back on greetings-lor1. The parts: event → the guard sent the
// restore; → the worker applied it (the record's appliedAt); → 100 % home.
import { run, type CliIo } from '../../lib/cli';
import { errorAlarmName, LocalStack, LOCAL_CLUSTER, type AlarmTransition } from '../../lib/local';
import { parseIntOptions } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';

const PEER = 'greetings-lva1';
const ALARM = errorAlarmName(PEER);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One run's figures, ms from the alarm event. */
interface Run {
  readonly guardMs: number;
  readonly appliedMs: number;
  readonly homeMs: number;
}

async function cli(stack: LocalStack, ...argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: () => undefined, env: { ...process.env, ...stack.env(), FAILOUT_USER: 'bench@local' }, now: () => Date.now() };
  return { code: await run(argv, io), stdout };
}

async function until(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/**
 * Waits until no request sent since `from` strayed from `home` for `quietMs`, and returns when the
 * first request after the last stray was sent.
 */
async function allOn(stack: LocalStack, from: number, home: (cluster: string | undefined) => boolean, quietMs = 1000): Promise<number> {
  const lastStray = (): number => Math.max(from, ...stack.traffic.samplesSince(from).filter((s) => !home(s.cluster)).map((s) => s.at));
  await until(() => Date.now() - lastStray() > quietMs && stack.traffic.samplesSince(lastStray() + 1).length > 0, 'switch of all traffic');
  const stray = lastStray();
  return stack.traffic.samplesSince(stray + (stray === from ? 0 : 1)).find((s) => home(s.cluster))?.at ?? Date.now();
}

function nextAlarm(stack: LocalStack): Promise<AlarmTransition> {
  return new Promise((resolve) => {
    const off = stack.alarms.onTransition((t) => {
      if (t.name !== ALARM || t.to !== 'ALARM') return;
      off();
      resolve(t);
    });
  });
}

async function once(stack: LocalStack): Promise<Run> {
  const sent = Date.now();
  const out = await cli(stack, 'out', LOCAL_CLUSTER, '--peer', PEER, '--for', '30m', '--stop-alarm', ALARM, '--reason', 'bench abort', '--wait');
  if (out.code !== 0) throw new Error(`failout out failed: ${out.stdout}`);
  await allOn(stack, sent, (c) => c === PEER, 300);
  const fired = nextAlarm(stack);
  stack.topology.setFault(PEER, true);
  try {
    const transition = await fired;
    const response = (await transition.response) as { restores?: { requestId: string }[] };
    const guardAt = Date.now();
    const requestId = response.restores?.[0]?.requestId;
    if (requestId === undefined) throw new Error(`the guard sent no restore: ${JSON.stringify(response)}`);
    const homeAt = await allOn(stack, transition.at, (c) => c === LOCAL_CLUSTER);
    const record = JSON.parse((await cli(stack, 'request', requestId, '--json')).stdout) as { appliedAt: number; stoppedByAlarm?: string };
    if (record.stoppedByAlarm !== ALARM) throw new Error(`the record does not say stopped by ${ALARM}: ${JSON.stringify(record)}`);
    return { guardMs: guardAt - transition.at, appliedMs: record.appliedAt - transition.at, homeMs: homeAt - transition.at };
  } finally {
    stack.topology.setFault(PEER, false);
    // The next run starts with the alarm OK again (its 1 s window empty of errors).
    await until(() => stack.alarms.state(ALARM) === 'OK', `${ALARM} back to OK`);
  }
}

export default async function abort(args: string[]): Promise<void> {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.FAILOUT_LOG_LEVEL ??= 'error';
  const p = parseIntOptions(args, { runs: { default: 20, min: 1 }, rate: { default: 100, min: 10 } });
  const stack = await LocalStack.start({ rate: p.rate, consolePort: 0 });
  const runs: Run[] = [];
  try {
    for (let i = 0; i < p.runs; i++) {
      const r = await once(stack);
      runs.push(r);
      process.stdout.write(`run ${i + 1}/${p.runs}: event → restore sent ${r.guardMs} ms, → applied ${r.appliedMs} ms, → 100 % home ${r.homeMs} ms\n`);
    }
  } finally {
    await stack.close();
  }
  const row = (what: string, values: number[]): Row => ({
    'from the alarm event to': what,
    runs: values.length,
    'p50 ms': round(percentile(values, 50), 1),
    'p99 ms': round(percentile(values, 99), 1),
    'max ms': round(Math.max(...values), 1),
  });
  const rows = [row('guard returned (restore sent)', runs.map((r) => r.guardMs)), row('restore applied (worker)', runs.map((r) => r.appliedMs)), row('100 % of traffic home', runs.map((r) => r.homeMs))];
  printTable(`abort: stop alarm → traffic home, local stack at ${p.rate} requests/s (target p99 ≤ 1000 ms)`, rows);
  const home = runs.map((r) => r.homeMs);
  writeResults('abort', { parameters: p, rows, summary: { homeP50Ms: percentile(home, 50), homeP99Ms: percentile(home, 99), homeMaxMs: Math.max(...home), targetP99Ms: 1000 }, runs });
}
